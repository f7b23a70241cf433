package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// newerNoncurrentFixture is one key under NoncurrentVersionExpiration
// {NoncurrentDays 30, NewerNoncurrentVersions 2}: oldest first v167,
// v168, the delete marker v169 and the latest version, under the given
// versioning with the latest version's ID (null under Suspended).
func newerNoncurrentFixture(versioning string, latest map[string]any) map[string]any {
	return map[string]any{"buckets": []any{
		map[string]any{"name": "logs", "versioning": versioning, "lifecycle_xml": lc +
			`<Rule><ID>keep2</ID><Filter></Filter><Status>Enabled</Status><NoncurrentVersionExpiration>` +
			`<NoncurrentDays>30</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions>` +
			`</NoncurrentVersionExpiration></Rule></LifecycleConfiguration>`,
			"objects": []any{obj("web/g",
				ver("v167", "2026-02-08T00:00:00Z", 10), ver("v168", "2026-02-12T00:00:00Z", 10),
				dm("v169", "2026-02-20T00:00:00Z"), latest)},
		}}}
}

// NewerNoncurrentVersions counts noncurrent object versions, not delete
// markers (S3 User Guide, "Lifecycle configuration elements",
// NoncurrentVersionExpiration). At 2026-03-18 v167 has been noncurrent
// for more than 30 days and two noncurrent versions are newer than it,
// v168 and the marker v169; only one of them is an object version, so S3
// keeps v167 and so does a pass, under Suspended and Enabled alike.
// --newer-noncurrent-count versions-and-markers counts the marker, as
// SeaweedFS's worker does, and deletes v167. explain agrees with the pass
// either way.
func TestNewerNoncurrentDoesNotCountMarkers(t *testing.T) {
	const now = "2026-03-18T00:00:00Z"
	for _, tc := range []struct {
		versioning string
		latest     map[string]any
		latestID   string
	}{
		{"Suspended", map[string]any{"version_id": nil, "mtime": "2026-02-22T00:00:00Z", "size": 10, "etag": "etag-null"}, "null"},
		{"Enabled", ver("v170", "2026-02-22T00:00:00Z", 10), "v170"},
	} {
		for _, count := range []string{"", "versions", "versions-and-markers"} {
			t.Run(tc.versioning+" "+count, func(t *testing.T) {
				dir := loadFixture(t, newerNoncurrentFixture(tc.versioning, tc.latest))
				var flags []string
				if count != "" {
					flags = []string{"--newer-noncurrent-count", count}
				}
				want, reason := []string{"logs/web/g@" + tc.latestID, "logs/web/g@v167", "logs/web/g@v168", "logs/web/g@v169"}, "never newer_noncurrent_kept"
				if count == "versions-and-markers" {
					want, reason = slices.Delete(want, 1, 2), "due "
				}
				slices.Sort(want)

				args := append([]string{"explain", "--filer", dir, "--now", now, "--bucket", "logs", "--key", "web/g", "--version-id", "v167", "-o", "json"}, flags...)
				out, stderr, code := execute(t, args...)
				if code != 0 {
					t.Fatalf("explain: exit %d: %s", code, stderr)
				}
				if got := explainVerdict(t, out, "keep2"); got != reason {
					t.Errorf("explain v167: %q, want %q", got, reason)
				}

				args = append([]string{"run", "-runtime", "60m", "--filer", dir, "--now", now, "-o", "json"}, flags...)
				out, stderr, code = execute(t, args...)
				if code != 0 {
					t.Fatalf("run: exit %d: %s", code, stderr)
				}
				var rep struct {
					Actions []struct {
						Key       string
						VersionID string `json:"version_id"`
						Kind      string
						Outcome   string
					}
				}
				if err := json.Unmarshal([]byte(out), &rep); err != nil {
					t.Fatalf("run -o json: %v\n%s", err, out)
				}
				var done []string
				for _, a := range rep.Actions {
					done = append(done, a.Kind+" "+a.VersionID+" "+a.Outcome)
				}
				wantDone := []string(nil)
				if count == "versions-and-markers" {
					wantDone = []string{"NewerNoncurrent v167 DONE"}
				}
				if diff := cmp.Diff(wantDone, done); diff != "" {
					t.Errorf("actions (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(want, remaining(t, dir)); diff != "" {
					t.Errorf("remaining (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// explainVerdict is "OUTCOME REASON" of rule's verdict on the only version
// explain -o json reports.
func explainVerdict(t *testing.T, out, rule string) string {
	t.Helper()
	var rep struct {
		Versions []struct {
			Verdicts []struct {
				RuleID  string `json:"rule_id"`
				Outcome string `json:"outcome"`
				Reason  string `json:"reason"`
			} `json:"verdicts"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Versions) != 1 {
		t.Fatalf("explain -o json: %v\n%s", err, out)
	}
	var got []string
	for _, v := range rep.Versions[0].Verdicts {
		if v.RuleID == rule {
			got = append(got, v.Outcome+" "+v.Reason)
		}
	}
	return strings.Join(got, "; ")
}

// NewerNoncurrentVersions without NoncurrentDays is a configuration S3
// rejects (InvalidArgument), so under S3 nothing expires by it; MinIO
// would remove every version beyond the count at once. A pass rejects the
// bucket's configuration, exits 4 and deletes nothing, however old the
// versions beyond the count are.
func TestNewerNoncurrentWithoutDaysDeletesNothing(t *testing.T) {
	dir := loadFixture(t, map[string]any{"buckets": []any{
		map[string]any{"name": "logs", "versioning": "Enabled", "lifecycle_xml": lc +
			`<Rule><ID>keep1</ID><Filter></Filter><Status>Enabled</Status><NoncurrentVersionExpiration>` +
			`<NewerNoncurrentVersions>1</NewerNoncurrentVersions>` +
			`</NoncurrentVersionExpiration></Rule></LifecycleConfiguration>`,
			"objects": []any{obj("web/g",
				ver("v1", "2026-01-01T00:00:00Z", 10), ver("v2", "2026-01-02T00:00:00Z", 10),
				ver("v3", "2026-01-03T00:00:00Z", 10), ver("v4", "2026-01-04T00:00:00Z", 10))},
		}}})
	_, stderr, code := execute(t, "run", "-runtime", "60m", "--filer", dir, "--now", "2026-03-18T00:00:00Z")
	const want = `InvalidArgument: rule "keep1": 'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer`
	if code != 4 || !strings.Contains(stderr, "bucket logs: lifecycle configuration rejected, no action taken on it: "+want) {
		t.Errorf("run: exit %d, stderr %q; want exit 4 naming %q", code, stderr, want)
	}
	wantLeft := []string{"logs/web/g@v1", "logs/web/g@v2", "logs/web/g@v3", "logs/web/g@v4"}
	if diff := cmp.Diff(wantLeft, remaining(t, dir)); diff != "" {
		t.Errorf("remaining (-want +got):\n%s", diff)
	}
}
