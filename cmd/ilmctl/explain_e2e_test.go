package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// explain on the demo reads as the golden file shows and fits 80
// columns, the width off a terminal with $COLUMNS unset: a locked key, a key whose latest version is a delete marker
// with a version beneath it, an upload, and the same key again after the
// pass (cursors saved: the last event is behind the cursor).
func TestExplainDemoGolden(t *testing.T) {
	t.Setenv("COLUMNS", "")
	dir := loadDemo(t)
	var all strings.Builder
	explainAll := func(label string) {
		for _, bk := range [][2]string{{"media", "legal/contract.pdf"}, {"logs", "app/old.log"}, {"logs", "app/huge.tar"}, {"archive", "backups/db-2026-10.tar.gz"}} {
			out, stderr, code := execute(t, "explain", "--filer", dir, "--now", demoNow, "--bucket", bk[0], "--key", bk[1])
			if code != 0 {
				t.Fatalf("explain %v: exit %d: %s", bk, code, stderr)
			}
			fits(t, "explain "+bk[1], out)
			all.WriteString("== " + label + ": explain --bucket " + bk[0] + " --key " + bk[1] + "\n" + out + "\n")
		}
	}
	explainAll("before the pass")
	if _, stderr, code := execute(t, "run", "--now", demoNow, "--filer", dir); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	explainAll("after the pass")
	golden(t, "demo-explain.txt", all.String())
}

// -o json carries every verdict with its reason, filter predicate and due
// arithmetic, the dispatch with size and bytes freed, and the pass's
// standing; field names are a stable interface.
func TestExplainJSON(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	out, stderr, code := execute(t, "explain", "--filer", dir, "--now", "2026-11-30T00:00:00Z", "--bucket", "ver", "--key", "nc/x", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Bucket, Key string
		Versions    []struct {
			VersionID string `json:"version_id"`
			Dispatch  *struct {
				RuleID     string `json:"rule_id"`
				Kind       string `json:"kind"`
				DueNow     bool   `json:"due_now"`
				Size       int64  `json:"size"`
				BytesFreed int64  `json:"bytes_freed"`
				FoundBy    string `json:"found_by"`
			} `json:"dispatch"`
			Verdicts []struct {
				RuleID  string `json:"rule_id"`
				Action  string `json:"action"`
				Outcome string `json:"outcome"`
				Reason  string `json:"reason"`
				Filter  *struct {
					Matched bool   `json:"matched"`
					Failed  string `json:"failed"`
					Detail  string `json:"detail"`
				} `json:"filter"`
				DueMath *struct {
					BaseFrom string `json:"base_from"`
					Days     int    `json:"days"`
					Rounding string `json:"rounding"`
				} `json:"due_math"`
				Chosen bool `json:"chosen"`
			} `json:"verdicts"`
		} `json:"versions"`
		Pass struct {
			Shard int `json:"shard"`
			Plan  struct {
				CursorFound bool   `json:"cursor_found"`
				NextWalk    string `json:"next_walk"`
				Recovery    string `json:"recovery"`
			} `json:"plan"`
			MetaLog   bool `json:"meta_log"`
			LastEvent *struct {
				Type        string `json:"type"`
				AfterCursor bool   `json:"after_cursor"`
			} `json:"last_event"`
		} `json:"pass"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Bucket != "ver" || rep.Key != "nc/x" || len(rep.Versions) != 2 {
		t.Fatalf("report %s", out)
	}
	old := rep.Versions[1]
	if d := old.Dispatch; old.VersionID != "v1" || d == nil || d.RuleID != "nc" || d.Kind != "NoncurrentDays" || !d.DueNow || d.Size != 10 || d.BytesFreed != 10 || d.FoundBy != "replay" {
		t.Errorf("v1 dispatch %+v", old.Dispatch)
	}
	reasons := map[string]string{}
	for _, v := range old.Verdicts {
		reasons[v.RuleID+"/"+v.Action] = v.Outcome + " " + v.Reason
		switch v.RuleID {
		case "nc":
			if !v.Chosen || v.DueMath == nil || v.DueMath.BaseFrom != "noncurrent_since" || v.DueMath.Days != 2 || v.DueMath.Rounding != "aws" {
				t.Errorf("nc verdict %+v", v)
			}
		case "exp":
			if v.Filter == nil || v.Filter.Matched || v.Filter.Failed != "prefix" || !strings.Contains(v.Filter.Detail, `Prefix "exp/"`) {
				t.Errorf("exp filter %+v", v.Filter)
			}
		}
	}
	for k, want := range map[string]string{
		"nc/NoncurrentDays": "due ", "exp/ExpirationDays": "never filter", "off/ExpirationDays": "never rule_disabled",
		"mpu/": "never not_a_version_action", "nnv/NewerNoncurrent": "never filter",
	} {
		if reasons[k] != want {
			t.Errorf("%s: %q, want %q (all %v)", k, reasons[k], want, reasons)
		}
	}
	if p := rep.Pass; p.Plan.CursorFound || p.Plan.NextWalk != "recovery" || p.Plan.Recovery != "cold_start" || !p.MetaLog || p.LastEvent == nil || !p.LastEvent.AfterCursor {
		t.Errorf("pass %+v", rep.Pass)
	}
}

// Bad input is a one-line error with the fix (advice, when there is any,
// on its own "ilmctl: hint:" lines after it): usage errors exit 2, a
// bucket or version that is not there exits 1.
func TestExplainErrors(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"explain", "--filer", dir, "--key", "k"}, cmdutil.ExitUsage, "--bucket is required"},
		{[]string{"explain", "--filer", dir, "--bucket", "ver"}, cmdutil.ExitUsage, "--key is required"},
		{[]string{"explain", "--filer", dir, "--bucket", "ver", "--key", "k", "--now", "tomorrow"}, cmdutil.ExitUsage, `--now "tomorrow" is not RFC3339`},
		{[]string{"explain", "--filer", dir, "--bucket", "ver", "--key", "k", "-o", "yaml"}, cmdutil.ExitUsage, "unknown output format"},
		{[]string{"explain", "--filer", dir, "--bucket", "ver", "--key", "k", "--due-rounding", "up"}, cmdutil.ExitUsage, "--due-rounding"},
		{[]string{"explain", "--filer", dir, "--bucket", "ver", "--key", "k", "--state", "x"}, cmdutil.ExitUsage, "apply to s3:// filers only"},
		{[]string{"explain", "--filer", "s3://", "--bucket", "ver", "--key", "k"}, cmdutil.ExitUsage, "names no S3 endpoint"},
		{[]string{"explain", "--filer", dir, "--bucket", "nope", "--key", "k"}, cmdutil.ExitFailure, `no such bucket "nope"`},
		{[]string{"explain", "--filer", dir, "--bucket", "ver", "--key", "nc/x", "--version-id", "v9"}, cmdutil.ExitFailure, "ilmctl: ver/nc/x has no version \"v9\""},
		{[]string{"explain", "--filer", dir + "-missing", "--bucket", "ver", "--key", "k"}, cmdutil.ExitFailure, "no filer at"},
	} {
		_, stderr, code := execute(t, tc.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		hintsOnly := true
		for _, l := range lines[1:] {
			hintsOnly = hintsOnly && strings.HasPrefix(l, "ilmctl: hint: ")
		}
		if code != tc.code || !strings.Contains(lines[0], tc.msg) || !hintsOnly {
			t.Errorf("%q: exit %d stderr %q, want exit %d and one line with %q", tc.args[1:], code, stderr, tc.code, tc.msg)
		}
	}
	// A key with nothing is a mistake to point at (the report still says
	// what the pass would do): exit 1, and a leading '/' is named.
	for _, tc := range []struct{ key, hint string }{
		{"gone", "ilmctl filer ls --bucket ver lists"},
		{"/nc/x", "keys have no leading '/': try --key nc/x"},
	} {
		out, stderr, code := execute(t, "explain", "--filer", dir, "--bucket", "ver", "--key", tc.key, "--now", "2026-11-30T00:00:00Z")
		if code != cmdutil.ExitFailure || !strings.Contains(out, "no version and no incomplete upload of this key") ||
			!strings.Contains(stderr, `no object "`+tc.key+`" in bucket ver`) || !strings.Contains(stderr, tc.hint) {
			t.Errorf("absent key %q: exit %d %s %s", tc.key, code, out, stderr)
		}
	}
}

// A key a pass removed is no typo: explain says when it went (its last
// meta-log event) instead of asking to check --key, still exit 1.
func TestExplainRemovedKey(t *testing.T) {
	dir := loadDemo(t)
	for _, now := range []string{"2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z"} {
		if _, stderr, code := execute(t, "run", "-runtime", "60m", "--now", now, "--filer", dir); code != 0 {
			t.Fatalf("run at %s: exit %d: %s", now, code, stderr)
		}
	}
	_, stderr, code := execute(t, "explain", "--filer", dir, "--bucket", "logs", "--key", "app/old.log", "--now", "2026-12-03T00:00:00Z")
	want := "ilmctl: no object \"app/old.log\" in bucket logs: removed at 2026-12-02T00:00:00Z\n" +
		"ilmctl: hint: a pass's -o jsonl names the rule behind each delete\n"
	if code != cmdutil.ExitFailure || stderr != want {
		t.Errorf("explain a removed key: exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
}
