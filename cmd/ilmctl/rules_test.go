package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// writeXML writes doc to a file of its own and returns its path.
func writeXML(t *testing.T, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lifecycle.xml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRulesCheck: an accepted document prints what each rule does and
// exits 0; a rejected one prints the parser's AWS code and text on one
// line, as a pass reports the bucket, and exits 4; a file that cannot be
// read is one line and exit 1; bad usage exits 2.
func TestRulesCheck(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // substrings of stdout
		err  string   // substring of the first stderr line; "" when none
	}{
		{"accepted", []string{"../../testdata/rules/accepted.xml"}, 0,
			[]string{"accepted, 3 rules", "expire-app-logs", "Expiration 30 days after creation", "Disabled", "prefix system/"}, ""},
		{"rejected value", []string{"../../testdata/rules/rejected.xml"}, cmdutil.ExitRejected, nil,
			`lifecycle configuration rejected: InvalidArgument: rule "expire-app-logs": Expiration Days is 0`},
		{"malformed", []string{writeXML(t, lc+`<Rule><Status>On</Status></Rule></LifecycleConfiguration>`)}, cmdutil.ExitRejected, nil,
			"lifecycle configuration rejected: MalformedXML: rule #1:"},
		{"invalid request", []string{writeXML(t, lc+`<Rule><Filter/><Status>Enabled</Status></Rule></LifecycleConfiguration>`)}, cmdutil.ExitRejected, nil,
			"InvalidRequest: rule #1: at least one action is required"},
		{"empty", []string{writeXML(t, "")}, cmdutil.ExitRejected, nil, "MalformedXML: document has no root element"},
		{"missing file", []string{filepath.Join(dir, "nope.xml")}, cmdutil.ExitFailure, nil, "rules check: open " + filepath.Join(dir, "nope.xml")},
		{"directory", []string{dir}, cmdutil.ExitFailure, nil, "is a directory"},
		{"no file", nil, cmdutil.ExitUsage, nil, "rules check takes one FILE.xml argument"},
		{"bad output", []string{"../../testdata/rules/accepted.xml", "-o", "yaml"}, cmdutil.ExitUsage, nil, "yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := execute(t, append([]string{"rules", "check"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			for _, s := range tc.out {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			first, _, _ := strings.Cut(stderr, "\n")
			if tc.err == "" && stderr != "" || !strings.Contains(first, tc.err) {
				t.Errorf("stderr %q, want its first line to hold %q", stderr, tc.err)
			}
			if tc.code == cmdutil.ExitFailure && strings.Count(stderr, "\n") != 1 {
				t.Errorf("an unreadable file is not one line: %q", stderr)
			}
			if tc.code == cmdutil.ExitRejected && out != "" {
				t.Errorf("a rejected document printed a table: %q", out)
			}
			fits80(t, out)
		})
	}
}

// fits80 fails for a line of out 80 columns or wider: rules check's table
// fits an 80-column terminal.
func fits80(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) >= 80 || strings.TrimRight(line, " ") != line {
			t.Errorf("line does not fit 80 columns or ends in blanks: %q", line)
		}
	}
}

// TestRulesCheckJSON: -o json is one document whatever the verdict, and
// reads from stdin with -.
func TestRulesCheckJSON(t *testing.T) {
	type report struct {
		File     string
		Accepted bool
		Error    *struct {
			Code      string
			RuleID    string `json:"rule_id"`
			RuleIndex int    `json:"rule_index"`
		}
		Rules []struct {
			Index      int
			ID, Status string
			Filter     string
			Actions    []string
		}
	}
	for _, tc := range []struct {
		path     string
		code     int
		accepted bool
		errCode  string
		rules    int
	}{
		{"../../testdata/rules/accepted.xml", 0, true, "", 3},
		{"../../testdata/rules/rejected.xml", cmdutil.ExitRejected, false, "InvalidArgument", 0},
	} {
		out, stderr, code := execute(t, "rules", "check", tc.path, "-o", "json")
		if code != tc.code {
			t.Fatalf("%s: exit %d: %s", tc.path, code, stderr)
		}
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", tc.path, err, out)
		}
		if rep.Accepted != tc.accepted || len(rep.Rules) != tc.rules || (rep.Error == nil) != (tc.errCode == "") ||
			rep.Error != nil && (rep.Error.Code != tc.errCode || rep.Error.RuleID != "expire-app-logs" || rep.Error.RuleIndex != 1) {
			t.Errorf("%s: %+v", tc.path, rep)
		}
	}
}

// TestRulesCheckStdin: - reads the document from stdin.
func TestRulesCheckStdin(t *testing.T) {
	doc, err := os.ReadFile("../../testdata/rules/accepted.xml")
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCommand()
	var out, errb strings.Builder
	root.SetIn(strings.NewReader(string(doc)))
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs([]string{"rules", "check", "-"})
	if code := report(&errb, root.Execute()); code != 0 || !strings.HasPrefix(out.String(), "stdin: accepted, 3 rules\n") {
		t.Errorf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
}

// previewFixture is one bucket with data every action kind can reach and
// the lifecycle configuration xml (none when ""), so one fixture previews
// a candidate and its twin runs the pass with it stored.
func previewFixture(xml string) map[string]any {
	b := map[string]any{"name": "logs", "versioning": "Enabled",
		"objects": []any{
			obj("app/old", ver("a1", "2026-09-01T00:00:00Z", 100)),
			obj("app/new", ver("a2", "2026-11-28T00:00:00Z", 100)),
			obj("app/nc", ver("n1", "2026-08-01T00:00:00Z", 10), ver("n2", "2026-09-01T00:00:00Z", 20),
				ver("n3", "2026-10-01T00:00:00Z", 30), ver("n4", "2026-11-29T00:00:00Z", 40)),
			obj("tmp/lonely", dm("d1", "2026-10-01T00:00:00Z")),
			obj("tmp/x", tagged("t1", "2026-11-01T00:00:00Z", "dev")),
			obj("system/s", ver("s1", "2026-01-01T00:00:00Z", 5)),
		},
		"uploads": []any{
			map[string]any{"upload_id": "u-old", "key": "app/big.bin", "initiated": "2026-11-01T00:00:00Z"},
			map[string]any{"upload_id": "u-new", "key": "app/big.bin", "initiated": "2026-11-29T12:00:00Z"},
		}}
	if xml != "" {
		b["lifecycle_xml"] = xml
	}
	other := map[string]any{"name": "other", "lifecycle_xml": lc +
		`<Rule><ID>e</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`,
		"objects": []any{obj("o", map[string]any{"mtime": "2026-01-01T00:00:00Z", "size": 5, "etag": "e"})}}
	return map[string]any{"buckets": []any{b, other}}
}

// previewCandidate covers every deletion kind, a tag filter, a disabled
// rule and a transition.
const previewCandidate = lc +
	`<Rule><ID>app-30d</ID><Filter><Prefix>app/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
	`<Rule><ID>nc</ID><Filter><Prefix>app/nc</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>` +
	`<Rule><ID>markers</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>` +
	`<Rule><ID>dev</ID><Filter><Tag><Key>env</Key><Value>dev</Value></Tag></Filter><Status>Enabled</Status><Expiration><Date>2026-11-15T00:00:00Z</Date></Expiration></Rule>` +
	`<Rule><ID>off</ID><Filter><Prefix>system/</Prefix></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
	`<Rule><ID>cold</ID><Filter><Prefix>system/</Prefix></Filter><Status>Enabled</Status><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition></Rule>` +
	`</LifecycleConfiguration>`

// passActions runs args (a run with -o json) and returns each action as
// bucket/key@id kind rule, with its outcome when withOutcome.
func passActions(t *testing.T, wantCode int, withOutcome bool, args ...string) []string {
	t.Helper()
	out, stderr, code := execute(t, args...)
	if code != wantCode {
		t.Fatalf("%v: exit %d, want %d: %s", args, code, wantCode, stderr)
	}
	var rep struct {
		Actions []struct {
			Bucket, Key, Kind, Outcome string
			VersionID                  string `json:"version_id"`
			UploadID                   string `json:"upload_id"`
			RuleID                     string `json:"rule_id"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	var got []string
	for _, a := range rep.Actions {
		id := a.VersionID
		if a.UploadID != "" {
			id = "upload:" + a.UploadID
		}
		s := a.Bucket + "/" + a.Key + "@" + id + " " + a.Kind + " " + a.RuleID
		if withOutcome {
			s += " " + a.Outcome
		}
		got = append(got, s)
	}
	sort.Strings(got)
	return got
}

// TestPreviewIsThePass: `run --dry-run --rules` on a bucket without (or
// with another) configuration previews exactly the actions a real pass
// takes once the candidate is the bucket's configuration, and changes
// nothing; the other bucket keeps its stored rules in both.
func TestPreviewIsThePass(t *testing.T) {
	const now = "2026-11-30T00:00:00Z"
	candidate := writeXML(t, previewCandidate)
	for _, stored := range []string{"", lc +
		`<Rule><ID>old</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`} {
		previewDir := loadFixture(t, previewFixture(stored))
		before := remaining(t, previewDir)
		preview := passActions(t, 0, false, "run", "--dry-run", "--now", now, "--filer", previewDir, "-o", "json", "--rules", "logs="+candidate)
		if diff := cmp.Diff(before, remaining(t, previewDir)); diff != "" {
			t.Fatalf("the preview changed the filer:\n%s", diff)
		}

		passDir := loadFixture(t, previewFixture(previewCandidate))
		pass := passActions(t, 0, true, "run", "--now", now, "--filer", passDir, "-o", "json")
		var done []string
		for _, a := range pass {
			// Every target the pass reached, whatever its outcome.
			done = append(done, a[:strings.LastIndex(a, " ")])
			if !strings.HasSuffix(a, " DONE") {
				t.Logf("pass outcome: %s", a)
			}
		}
		t.Logf("preview: %q", preview)
		if len(preview) < 6 {
			t.Fatalf("the preview reached too little to prove anything: %v", preview)
		}
		if diff := cmp.Diff(done, preview); diff != "" {
			t.Errorf("stored %q: preview differs from the pass (-pass +preview):\n%s", stored, diff)
		}
	}
}

// TestPreviewErrors: --rules without --dry-run and a malformed value are
// usage errors; an unknown bucket and an unreadable file are failures; a
// rejected candidate exits 4 with the pass's own line for a rejected
// configuration, in run and in explain.
func TestPreviewErrors(t *testing.T) {
	dir := loadFixture(t, previewFixture(""))
	good, bad := "../../testdata/rules/accepted.xml", "../../testdata/rules/rejected.xml"
	rejectedLine := `ilmctl: bucket logs: lifecycle configuration rejected, no action taken on it: InvalidArgument: rule "expire-app-logs": Expiration Days is 0`
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "--rules", "logs=" + good}, cmdutil.ExitUsage, "ilmctl: --rules needs --dry-run\nilmctl: hint: a candidate configuration is previewed, never acted on\n"},
		{[]string{"run", "--dry-run", "--rules", "logs"}, cmdutil.ExitUsage, `--rules "logs": want BUCKET=FILE`},
		{[]string{"run", "--dry-run", "--rules", "logs=" + good, "--rules", "logs=" + bad}, cmdutil.ExitUsage, "names bucket logs twice"},
		{[]string{"run", "--dry-run", "--rules", "nope=" + good}, cmdutil.ExitFailure, `no such bucket "nope" on this filer`},
		{[]string{"explain", "--bucket", "logs", "--key", "app/old", "--rules", "nope=" + good}, cmdutil.ExitFailure, `no such bucket "nope" on this filer`},
		{[]string{"run", "--dry-run", "--rules", "logs=missing.xml"}, cmdutil.ExitFailure, "--rules logs=missing.xml: open missing.xml"},
		{[]string{"run", "--dry-run", "--rules", "logs=" + writeXML(t, "")}, cmdutil.ExitUsage, "is empty"},
		{[]string{"run", "--dry-run", "--rules", "logs=" + bad}, cmdutil.ExitRejected, rejectedLine},
		{[]string{"explain", "--bucket", "logs", "--key", "app/old", "--rules", "logs=" + bad}, cmdutil.ExitRejected, rejectedLine},
	} {
		args := append(tc.args, "--filer", dir, "--now", "2026-11-30T00:00:00Z")
		_, stderr, code := execute(t, args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d stderr %q, want exit %d with %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}

// TestExplainPreview: explain --rules gives the verdicts of the candidate,
// and they agree with the preview's dry run.
func TestExplainPreview(t *testing.T) {
	dir := loadFixture(t, previewFixture(""))
	candidate := writeXML(t, previewCandidate)
	out, stderr, code := execute(t, "explain", "--filer", dir, "--now", "2026-11-30T00:00:00Z", "--bucket", "logs", "--key", "app/old", "-o", "json", "--rules", "logs="+candidate)
	if code != 0 {
		t.Fatalf("explain exit %d: %s", code, stderr)
	}
	var rep explainJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Versions) != 1 || rep.Versions[0].Dispatch == nil || rep.Versions[0].Dispatch.RuleID != "app-30d" || !rep.Versions[0].Dispatch.DueNow {
		t.Errorf("explain with the candidate: %s", out)
	}
	// Without it, the bucket has no configuration.
	out, _, _ = execute(t, "explain", "--filer", dir, "--now", "2026-11-30T00:00:00Z", "--bucket", "logs", "--key", "app/old", "-o", "json")
	if !strings.Contains(out, `"no_configuration": true`) {
		t.Errorf("explain without the candidate: %s", out)
	}
}
