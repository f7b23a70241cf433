package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agreeFixture adds what e2eFixture and the demo leave out: rules that
// compete for one version (the earliest due wins, ties on rule ID), a
// rule with an empty ID, And with tags, a size bound on a marker, an
// Expiration Date beside a marker, transitions beside expirations,
// Suspended noncurrent versions, uploads under tag and prefix filters, and
// a bucket whose configuration is rejected.
var agreeFixture = map[string]any{"buckets": []any{
	map[string]any{"name": "mix", "versioning": "Enabled", "lifecycle_xml": lc +
		`<Rule><ID>slow</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration><NoncurrentVersionExpiration><NoncurrentDays>20</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>fast</ID><Filter><Prefix>a/b</Prefix></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration><NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><Filter><And><Prefix>t/</Prefix><Tag><Key>env</Key><Value>dev</Value></Tag><Tag><Key>team</Key><Value>x</Value></Tag></And></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
		`<Rule><ID>small</ID><Filter><ObjectSizeLessThan>50</ObjectSizeLessThan></Filter><Status>Enabled</Status><Expiration><Days>5</Days></Expiration></Rule>` +
		`<Rule><ID>date</ID><Filter><Prefix>d/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2026-10-01T00:00:00Z</Date></Expiration></Rule>` +
		`<Rule><ID>nnv2</ID><Filter><Prefix>n/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>2</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
		`<Rule><ID>tier</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition></Rule>` +
		`<Rule><ID>mpu-tag</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
		`</LifecycleConfiguration>`,
		"objects": []any{
			obj("a/b/1", ver("x1", "2026-11-01T00:00:00Z", 100), ver("x2", "2026-11-20T00:00:00Z", 200), ver("x3", "2026-11-27T00:00:00Z", 300)),
			obj("a/c", ver("c1", "2026-09-01T00:00:00Z", 1000), ver("c2", "2026-10-01T00:00:00Z", 2000)),
			obj("t/1", map[string]any{"version_id": "t1", "mtime": "2026-11-01T00:00:00Z", "size": 70, "etag": "e", "tags": map[string]string{"env": "dev", "team": "x"}}),
			obj("t/2", map[string]any{"version_id": "t2", "mtime": "2026-11-01T00:00:00Z", "size": 70, "etag": "e", "tags": map[string]string{"env": "dev"}}),
			obj("s/dm", ver("m1", "2026-09-01T00:00:00Z", 60), dm("m2", "2026-09-02T00:00:00Z")),
			obj("s/lone", dm("m3", "2026-09-01T00:00:00Z")),
			obj("d/x", ver("dx", "2026-01-01T00:00:00Z", 80)),
			obj("d/dm", dm("dd", "2026-01-01T00:00:00Z")),
			obj("n/k", ver("n1", "2026-01-01T00:00:00Z", 51), ver("n2", "2026-02-01T00:00:00Z", 52), ver("n3", "2026-03-01T00:00:00Z", 53),
				ver("n4", "2026-04-01T00:00:00Z", 54), ver("n5", "2026-05-01T00:00:00Z", 55)),
			// Delete markers among the noncurrent versions: they do not
			// count toward NewerNoncurrentVersions (unless
			// --newer-noncurrent-count versions-and-markers).
			obj("n/m", ver("o1", "2026-01-01T00:00:00Z", 41), dm("o2", "2026-01-15T00:00:00Z"), ver("o3", "2026-02-01T00:00:00Z", 43),
				dm("o4", "2026-02-15T00:00:00Z"), ver("o5", "2026-03-01T00:00:00Z", 45), ver("o6", "2026-04-01T00:00:00Z", 46)),
		},
		"uploads": []any{
			map[string]any{"upload_id": "u1", "key": "n/big", "initiated": "2026-11-20T00:00:00Z"},
			map[string]any{"upload_id": "u2", "key": "n/big", "initiated": "2026-11-29T12:00:00Z"},
			map[string]any{"upload_id": "u3", "key": "x/other", "initiated": "2026-01-01T00:00:00Z"},
		}},
	map[string]any{"name": "susp", "versioning": "Suspended", "lifecycle_xml": lc +
		`<Rule><ID>e</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>4</Days></Expiration><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule></LifecycleConfiguration>`,
		"objects": []any{
			obj("k", ver("v1", "2026-10-01T00:00:00Z", 10), map[string]any{"version_id": nil, "mtime": "2026-11-25T00:00:00Z", "size": 11, "etag": "e"}),
			obj("dmk", ver("v1", "2026-10-01T00:00:00Z", 10), dm("null", "2026-11-01T00:00:00Z")),
		}},
	map[string]any{"name": "rejected", "versioning": "Enabled", "lifecycle_xml": lc +
		`<Rule><ID>z</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>0</Days></Expiration></Rule></LifecycleConfiguration>`,
		"objects": []any{obj("k", ver("r1", "2026-01-01T00:00:00Z", 5))}},
	map[string]any{"name": "none", "objects": []any{obj("k", map[string]any{"mtime": "2026-01-01T00:00:00Z", "size": 5, "etag": "e"})}},
}}

// target is one version or upload a pass acts on, with its size.
type target struct {
	Bucket, Key, ID, Kind, RuleID string
	Size                          int64
}

func (t target) String() string {
	return fmt.Sprintf("%s/%s@%s %s rule %q size %d", t.Bucket, t.Key, t.ID, t.Kind, t.RuleID, t.Size)
}

// dryRunTargets is what `run --dry-run -o json` would dispatch on the
// filer filerArgs name (--filer and its options).
func dryRunTargets(t *testing.T, filerArgs []string, now string, flags []string) []target {
	t.Helper()
	args := append(append([]string{"run", "--dry-run", "--now", now, "-o", "json"}, filerArgs...), flags...)
	out, stderr, code := execute(t, args...)
	if code != 0 && code != 4 {
		t.Fatalf("run --dry-run exit %d: %s", code, stderr)
	}
	var rep struct {
		Actions []struct {
			Bucket, Key, Kind string
			VersionID         string `json:"version_id"`
			UploadID          string `json:"upload_id"`
			RuleID            string `json:"rule_id"`
			Size              int64  `json:"size"`
			Outcome           string `json:"outcome"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("run json: %v\n%s", err, out)
	}
	var got []target
	for _, a := range rep.Actions {
		if a.Outcome != "DRY_RUN" {
			t.Errorf("dry-run action outcome %s", a.Outcome)
		}
		id := a.VersionID
		if a.UploadID != "" {
			id = "upload:" + a.UploadID
		}
		got = append(got, target{a.Bucket, a.Key, id, a.Kind, a.RuleID, a.Size})
	}
	return sortTargets(got)
}

type explainJSON struct {
	Versions []explainTargetJSON `json:"versions"`
	Uploads  []explainTargetJSON `json:"uploads"`
}

type explainTargetJSON struct {
	VersionID string `json:"version_id"`
	UploadID  string `json:"upload_id"`
	Dispatch  *struct {
		RuleID   string `json:"rule_id"`
		Kind     string `json:"kind"`
		DueNow   bool   `json:"due_now"`
		NextPass bool   `json:"next_pass"`
		Size     int64  `json:"size"`
	} `json:"dispatch"`
	Verdicts []struct {
		RuleID  string `json:"rule_id"`
		Action  string `json:"action"`
		Outcome string `json:"outcome"`
		Reason  string `json:"reason"`
		Chosen  bool   `json:"chosen"`
	} `json:"verdicts"`
}

// explainTargets is, over keys, what `explain -o json` says the next pass
// dispatches (next_pass); it also checks each target's verdicts against its
// dispatch: the chosen verdict is the dispatched action, due (or never
// for Object Lock alone) exactly when the dispatch is due now.
func explainTargets(t *testing.T, filerArgs []string, keys [][2]string, now string, flags []string) []target {
	t.Helper()
	var got []target
	for _, bk := range keys {
		args := append(append([]string{"explain", "--now", now, "--bucket", bk[0], "--key", bk[1], "-o", "json"}, filerArgs...), flags...)
		out, stderr, code := execute(t, args...)
		if code != 0 {
			t.Fatalf("explain %s/%s exit %d: %s", bk[0], bk[1], code, stderr)
		}
		var rep explainJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("explain json: %v\n%s", err, out)
		}
		for _, tg := range append(rep.Versions, rep.Uploads...) {
			id := tg.VersionID
			if tg.UploadID != "" {
				id = "upload:" + tg.UploadID
			}
			chosen := 0
			for _, v := range tg.Verdicts {
				if !v.Chosen {
					continue
				}
				chosen++
				due := v.Outcome == "due" || strings.HasPrefix(v.Reason, "object_lock_")
				if tg.Dispatch == nil || v.RuleID != tg.Dispatch.RuleID || v.Action != tg.Dispatch.Kind || due != tg.Dispatch.DueNow {
					t.Errorf("%s/%s@%s: chosen verdict %+v disagrees with dispatch %+v", bk[0], bk[1], id, v, tg.Dispatch)
				}
			}
			if (tg.Dispatch != nil) != (chosen == 1) {
				t.Errorf("%s/%s@%s: %d chosen verdicts, dispatch %+v", bk[0], bk[1], id, chosen, tg.Dispatch)
			}
			if tg.Dispatch != nil && tg.Dispatch.NextPass && !tg.Dispatch.DueNow {
				t.Errorf("%s/%s@%s: dispatched next pass but not due: %+v", bk[0], bk[1], id, tg.Dispatch)
			}
			if tg.Dispatch != nil && tg.Dispatch.NextPass {
				got = append(got, target{bk[0], bk[1], id, tg.Dispatch.Kind, tg.Dispatch.RuleID, tg.Dispatch.Size})
			}
		}
	}
	return sortTargets(got)
}

// filerKeys lists every bucket/key with a version or an upload.
func filerKeys(t *testing.T, dir string) [][2]string {
	t.Helper()
	out, stderr, code := execute(t, "filer", "ls", "--filer", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("filer ls: %s", stderr)
	}
	var ls struct {
		Versions, Uploads []struct{ Bucket, Key string }
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		t.Fatal(err)
	}
	seen := map[[2]string]bool{}
	var keys [][2]string
	for _, v := range append(ls.Versions, ls.Uploads...) {
		k := [2]string{v.Bucket, v.Key}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

func sortTargets(ts []target) []target {
	sort.Slice(ts, func(i, j int) bool { return ts[i].String() < ts[j].String() })
	return ts
}

// Every case goes through both `run --dry-run` and `explain`, which must
// agree on every version and upload: what the dry run lists is exactly
// what explain says the next pass dispatches, by the same rule, kind and
// size. Cold filers (the recovery walk) and filers a real pass has
// already run over (steady state: cursors, replay, walks) both count.
func TestExplainAgreesWithDryRun(t *testing.T) {
	fixtures := []struct {
		name    string
		fixture any // nil: the demo fixture
	}{{"e2e", e2eFixture}, {"agree", agreeFixture}, {"demo", nil}}
	flagSets := [][]string{nil, {"--due-rounding", "exact"}, {"--expired-marker-days", "keep"}, {"--walker-interval", "48h"}, {"--newer-noncurrent-count", "versions-and-markers"}}
	dates := []string{"2026-06-15T00:00:00Z", "2026-11-29T23:00:00Z", "2026-11-30T00:00:00Z", "2026-12-02T12:00:00Z", "2027-03-01T00:00:00Z"}
	for _, fx := range fixtures {
		for _, flags := range flagSets {
			for _, steady := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/steady=%v", fx.name, strings.Join(flags, "="), steady)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					var dir string
					if fx.fixture == nil {
						dir = loadDemo(t)
					} else {
						dir = loadFixture(t, fx.fixture)
					}
					if steady {
						// A real pass first: cursors saved, the next one replays.
						args := append([]string{"run", "--now", "2026-11-29T00:00:00Z", "--filer", dir}, flags...)
						if _, stderr, code := execute(t, args...); code != 0 && code != 4 {
							t.Fatalf("run exit %d: %s", code, stderr)
						}
					}
					total := 0
					for _, now := range dates {
						if steady && now < "2026-11-29" {
							continue
						}
						fa := []string{"--filer", dir}
						want := dryRunTargets(t, fa, now, flags)
						got := explainTargets(t, fa, filerKeys(t, dir), now, flags)
						if diff := cmp.Diff(want, got); diff != "" {
							t.Errorf("--now %s: run --dry-run (-) and explain (+) disagree:\n%s", now, diff)
						}
						total += len(want)
					}
					if total == 0 {
						t.Errorf("no action at any date: the case tests nothing")
					}
				})
			}
		}
	}
}
