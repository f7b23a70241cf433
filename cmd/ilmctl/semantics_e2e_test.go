package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/client/embedded"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/dailyrun"
)

// lifecycle semantics on real configurations, end to end on
// the embedded filer.

type noticeJSON struct {
	Kind   string `json:"kind"`
	Shard  *int   `json:"shard"`
	Bucket string `json:"bucket"`
	Key    string `json:"key"`
	RuleID string `json:"rule_id"`
	Action string `json:"action"`
	Reason string `json:"reason"`
}

type runJSON struct {
	Status       string `json:"status"`
	Errors       int    `json:"errors"`
	BucketErrors []struct {
		Bucket string `json:"bucket"`
		Error  string `json:"error"`
	} `json:"bucket_errors"`
	Notices []noticeJSON `json:"notices"`
	Actions []struct {
		Bucket, Key, Kind, Outcome string
		RuleID                     string `json:"rule_id"`
	} `json:"actions"`
}

func decodeRun(t *testing.T, stdout string) runJSON {
	t.Helper()
	var rep runJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("run -o json: %v\n%s", err, stdout)
	}
	return rep
}

// A transition rule never disables its bucket: the expiration beside it
// runs, the transition is one notice, and the pass exits 0.
func TestTransitionRuleBesideExpiration(t *testing.T) {
	t.Setenv("COLUMNS", "")
	fixture := map[string]any{"buckets": []any{
		map[string]any{"name": "data", "versioning": "Off", "lifecycle_xml": lc +
			`<Rule><ID>tier</ID><Filter><Prefix>archive/</Prefix></Filter><Status>Enabled</Status><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition></Rule>` +
			`<Rule><ID>tmp</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`,
			"objects": []any{
				obj("archive/a", map[string]any{"mtime": "2025-01-01T00:00:00Z", "size": 5, "etag": "e"}),
				obj("tmp/b", map[string]any{"mtime": "2026-06-01T00:00:00Z", "size": 5, "etag": "e"}),
			}},
	}}
	for _, format := range []string{"json", "table"} {
		t.Run(format, func(t *testing.T) {
			dir := loadFixture(t, fixture)
			stdout, stderr, code := execute(t, "run", "--filer", dir, "--now", "2026-06-15T12:00:00Z", "-o", format)
			if code != 0 {
				t.Fatalf("exit %d, want 0: %s", code, stderr)
			}
			if diff := cmp.Diff([]string{"data/archive/a@null"}, remaining(t, dir)); diff != "" {
				t.Fatalf("remaining (-want +got):\n%s", diff)
			}
			// stderr is not a terminal here: the notice wraps at 80.
			wantLines := "ilmctl: notice: transition_not_executed data: 1 transition action not executed\n" +
				"  (ilmctl runs deletion actions only): rule tier: Transition to GLACIER 30 days\n" +
				"  after creation\n"
			if strings.Count(stderr, "transition_not_executed") != 1 || !strings.Contains(stderr, wantLines) {
				t.Errorf("stderr %q, want the notice %q", stderr, wantLines)
			}
			if !strings.Contains(stderr, "status=ok shards=16 errors=0 ") {
				t.Errorf("heartbeat in %q", stderr)
			}
			if format != "json" {
				return
			}
			rep := decodeRun(t, stdout)
			want := []noticeJSON{{Kind: "transition_not_executed", Bucket: "data", RuleID: "tier", Action: "Transition",
				Reason: "Transition to GLACIER 30 days after creation is not executed: ilmctl runs deletion actions only"}}
			if diff := cmp.Diff(want, rep.Notices); diff != "" {
				t.Errorf("notices (-want +got):\n%s", diff)
			}
			if len(rep.BucketErrors) != 0 || rep.Errors != 0 || len(rep.Actions) != 1 || rep.Actions[0].Key != "tmp/b" || rep.Actions[0].RuleID != "tmp" {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

// Expiration Days 5 removes the expired object delete marker "old"
// (2026-06-01) and keeps "young" (2026-06-13) at 2026-06-15T12:00Z;
// --expired-marker-days keep keeps both, as SeaweedFS's worker does.
func TestExpirationDaysRemovesExpiredMarkerEndToEnd(t *testing.T) {
	fixture := map[string]any{"buckets": []any{
		map[string]any{"name": "ver", "versioning": "Enabled", "lifecycle_xml": lc +
			`<Rule><ID>exp5</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>5</Days></Expiration></Rule></LifecycleConfiguration>`,
			"objects": []any{
				obj("old", dm("dm-old", "2026-06-01T00:00:00Z")),
				obj("young", dm("dm-young", "2026-06-13T00:00:00Z")),
			}},
	}}
	for _, tc := range []struct {
		flags []string
		want  []string
	}{
		{nil, []string{"ver/young@DM"}},
		{[]string{"--expired-marker-days", "aws"}, []string{"ver/young@DM"}},
		{[]string{"--expired-marker-days", "keep"}, []string{"ver/old@DM", "ver/young@DM"}},
	} {
		name := "default"
		if tc.flags != nil {
			name = strings.Join(tc.flags, "=")
		}
		t.Run(name, func(t *testing.T) {
			dir := loadFixture(t, fixture)
			args := append([]string{"run", "--filer", dir, "--now", "2026-06-15T12:00:00Z", "-o", "json"}, tc.flags...)
			stdout, stderr, code := execute(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(tc.want, remaining(t, dir)); diff != "" {
				t.Fatalf("remaining (-want +got):\n%s", diff)
			}
			rep := decodeRun(t, stdout)
			if len(tc.want) == 1 && (len(rep.Actions) != 1 || rep.Actions[0].Kind != "ExpiredDeleteMarker" || rep.Actions[0].RuleID != "exp5" || rep.Actions[0].Outcome != "DONE") {
				t.Errorf("actions %+v, want one DONE ExpiredDeleteMarker of rule exp5", rep.Actions)
			}
		})
	}
	_, stderr, code := execute(t, "run", "--filer", loadFixture(t, fixture), "--expired-marker-days", "remove")
	if code != cmdutil.ExitUsage || !strings.Contains(stderr, "--expired-marker-days: unknown expired marker policy \"remove\": use aws or keep") {
		t.Errorf("bad --expired-marker-days: exit %d %q", code, stderr)
	}
}

// One gate for lifecycle XML: filer load stores every document, warns with
// the parser's verdict for each rejected one and exits 0; the pass reports
// the bucket in bucket_errors and errors= and exits 4, while every other
// bucket is processed. An unfinished pass exits 3 even then.
func TestRejectedConfiguration(t *testing.T) {
	const expire1 = `<Rule><ID>e</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`
	good := map[string]any{"name": "good", "lifecycle_xml": lc + expire1 + `</LifecycleConfiguration>`,
		"objects": []any{obj("k", map[string]any{"mtime": "2026-01-01T00:00:00Z", "size": 1, "etag": "e"})}}
	for _, tc := range []struct {
		name    string
		doc     string
		warning string // the load's warning; "" for none
		code    int
	}{
		{"byte order mark, declaration, BucketLifecycleConfiguration root",
			"\uFEFF" + `<?xml version="1.0" encoding="utf-8"?><BucketLifecycleConfiguration>` + expire1 + `</BucketLifecycleConfiguration>`, "", 0},
		{"declared Latin-1", `<?xml version="1.0" encoding="ISO-8859-1"?><LifecycleConfiguration>` + expire1 + `</LifecycleConfiguration>`,
			`MalformedXML: the document declares encoding "ISO-8859-1"; a lifecycle configuration must be UTF-8 or US-ASCII`, cmdutil.ExitRejected},
		{"Days 0", lc + `<Rule><ID>z</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>0</Days></Expiration></Rule></LifecycleConfiguration>`,
			`InvalidArgument: rule "z": Expiration Days is 0; it must be a positive integer`, cmdutil.ExitRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixture := map[string]any{"buckets": []any{good, map[string]any{"name": "odd", "lifecycle_xml": tc.doc,
				"objects": []any{obj("k", map[string]any{"mtime": "2026-01-01T00:00:00Z", "size": 1, "etag": "e"})}}}}
			dir, loadErr := loadFixtureStderr(t, fixture)
			wantWarning := ""
			if tc.warning != "" {
				wantWarning = "ilmctl: warning: bucket odd: lifecycle_xml stored as given, but the lifecycle parser rejects it; ilmctl run will take no action on this bucket and exit 4: " + tc.warning + "\n"
			}
			if loadErr != wantWarning {
				t.Errorf("filer load stderr %q, want %q", loadErr, wantWarning)
			}
			stdout, stderr, code := execute(t, "run", "--filer", dir, "--now", "2026-06-15T12:00:00Z", "-o", "json")
			if code != tc.code {
				t.Fatalf("run exit %d, want %d: %s", code, tc.code, stderr)
			}
			rep := decodeRun(t, stdout)
			left := remaining(t, dir)
			if contains(left, "good/k@null") || contains(left, "odd/k@null") != (tc.code != 0) {
				t.Errorf("remaining %v: want good/k expired, odd/k expired only if its configuration was accepted", left)
			}
			if tc.code == 0 {
				if len(rep.BucketErrors) != 0 || rep.Errors != 0 {
					t.Errorf("report %+v", rep)
				}
				return
			}
			if len(rep.BucketErrors) != 1 || rep.BucketErrors[0].Bucket != "odd" || rep.BucketErrors[0].Error != tc.warning || rep.Errors != 1 || rep.Status != "ok" {
				t.Errorf("report: status %s errors %d bucket_errors %+v", rep.Status, rep.Errors, rep.BucketErrors)
			}
			for _, want := range []string{
				"ilmctl: bucket odd: lifecycle configuration rejected, no action taken on it: " + tc.warning,
				"daily_run: status=ok shards=16 errors=1 ",
				"ilmctl: pass ok, but 1 bucket(s) got no lifecycle action because their configuration was rejected: odd\nilmctl: hint: fix the XML (see the messages above) and put it again\n",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q lacks %q", stderr, want)
				}
			}

			// A corrupt cursor makes the next pass incomplete: 3 outranks 4.
			f, err := embedded.Open(dir, embedded.Options{MustExist: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.WriteFile(context.Background(), dailyrun.CursorPath(7), []byte("{")); err != nil {
				t.Fatal(err)
			}
			f.Close()
			_, stderr, code = execute(t, "run", "--filer", dir, "--now", "2026-06-16T12:00:00Z")
			if code != cmdutil.ExitIncomplete || !strings.Contains(stderr, "errors=2 ") || !strings.Contains(stderr, "1 of 16 shards did not finish") {
				t.Errorf("incomplete pass with a rejected bucket: exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// loadFixtureStderr loads fixture (marshalled to JSON) into a fresh
// embedded filer with ilmctl filer load and returns its directory and the
// command's stderr (its warnings).
func loadFixtureStderr(t *testing.T, fixture any) (dir, stderr string) {
	t.Helper()
	data, err := json.Marshal(fixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "filer")
	_, stderr, code := execute(t, "filer", "load", path, "--filer", dir)
	if code != 0 {
		t.Fatalf("filer load exit %d: %s", code, stderr)
	}
	return dir, stderr
}
