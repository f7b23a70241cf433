package main

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	goldenfile "github.com/ilmctl/ilmctl/internal/golden"
)

// fits fails for every line of out that an 80-column terminal would
// wrap (maxWidth runes or more), or ending in a blank.
// oneMessage reports whether stderr is one error: a line of its own,
// then only hint lines (the advice main prints after the message).
func oneMessage(stderr string) bool {
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "ilmctl: hint: ") {
			return false
		}
	}
	return strings.HasPrefix(lines[0], "ilmctl: ") && !strings.HasPrefix(lines[0], "ilmctl: hint: ")
}

func fits(t *testing.T, what, out string) {
	t.Helper()
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n >= maxWidth {
			t.Errorf("%s line %d is %d columns, not under %d:\n%s", what, i+1, n, maxWidth, line)
		}
		if strings.TrimRight(line, " ") != line {
			t.Errorf("%s line %d ends in blanks: %q", what, i+1, line)
		}
	}
}

// The demo's tables, as make demo prints them where stdout is no terminal
// and $COLUMNS is unset, fit 80 columns and read as the golden files show:
// the dry run lists what it would do, the pass leads with its summary and
// lists only the shards that dispatched, and what the filer holds fits
// too.
func TestDemoTablesGolden(t *testing.T) {
	t.Setenv("COLUMNS", "")
	dir := loadDemo(t)
	ls, stderr, code := execute(t, "filer", "ls", "--filer", dir)
	if code != 0 {
		t.Fatalf("filer ls: %s", stderr)
	}
	fits(t, "filer ls", ls)
	golden(t, "demo-filer-ls.txt", ls)

	dry, stderr, code := execute(t, "run", "--dry-run", "--now", demoNow, "--filer", dir)
	if code != 0 {
		t.Fatalf("dry run exit %d: %s", code, stderr)
	}
	fits(t, "run --dry-run", dry)
	golden(t, "demo-run-dry-run.txt", dry)

	pass, stderr, code := execute(t, "run", "-runtime", "60m", "--now", demoNow, "--filer", dir)
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	fits(t, "run", pass)
	golden(t, "demo-run.txt", pass)
	if !strings.HasPrefix(pass, "Pass over 16 shards: all finished\nSTATUS ") {
		t.Errorf("the report does not lead with the pass summary:\n%s", pass)
	}

	ls, _, _ = execute(t, "filer", "ls", "--filer", dir)
	fits(t, "filer ls after the pass", ls)
	wide, _, _ := execute(t, "filer", "ls", "--filer", dir, "-o", "wide")
	if !strings.Contains(wide, "MTIME") || !strings.Contains(wide, "2026-11-25T18:00:00Z") {
		t.Errorf("filer ls -o wide has no MTIME:\n%s", wide)
	}

	next, stderr, code := execute(t, "run", "-runtime", "60m", "--now", "2026-12-01T00:00:00Z", "--filer", dir)
	if code != 0 {
		t.Fatalf("second run exit %d: %s", code, stderr)
	}
	fits(t, "second run", next)
	golden(t, "demo-run-next-day.txt", next)
}

// -o wide is every shard and every column of the same pass: the 16 shards,
// EVENTS, MATCHES, PENDING and WALKER_AGE, each halting outcome in its own
// column, a row per action kind with BYTES. It is as wide as that takes
// (wider than 80 columns), whatever the terminal.
func TestDemoRunWideGolden(t *testing.T) {
	t.Setenv("COLUMNS", "")
	dir := loadDemo(t)
	out, stderr, code := execute(t, "run", "-runtime", "60m", "--now", demoNow, "--filer", dir, "-o", "wide")
	if code != 0 {
		t.Fatalf("run -o wide exit %d: %s", code, stderr)
	}
	golden(t, "demo-run-wide.txt", out)
	for _, col := range []string{"EVENTS", "MATCHES", "PENDING", "WALKER_AGE", "RETRY_LATER", "BLOCKED", "STUCK", "ERROR", "KIND", "BYTES"} {
		if !strings.Contains(out, col) {
			t.Errorf("-o wide has no %s column", col)
		}
	}
	for s := 0; s < 16; s++ {
		if !strings.Contains(out, "\n"+twoDigits(s)+" ") {
			t.Errorf("-o wide does not list shard %02d", s)
		}
	}
}

func twoDigits(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// outputLog interleaves what a command writes to stdout and stderr, one entry
// per Write, so a test sees which came first.
type outputLog struct{ entries []logEntry }

type logEntry struct {
	stream string
	data   string
}

type logWriter struct {
	l      *outputLog
	stream string
	// failAfter, when > 0, makes every Write after that many fail, as a
	// closed pipe does.
	failAfter int
	writes    int
}

var errClosedPipe = errors.New("broken pipe")

func (w *logWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.failAfter > 0 && w.writes > w.failAfter {
		return 0, errClosedPipe
	}
	w.l.entries = append(w.l.entries, logEntry{w.stream, string(p)})
	return len(p), nil
}

// executeLogged runs the root command with stdout and stderr recorded in
// one log.
func executeLogged(t *testing.T, stdout *logWriter, args ...string) (*outputLog, error) {
	t.Helper()
	root := newRootCommand()
	root.SetOut(stdout)
	root.SetErr(&logWriter{l: stdout.l, stream: "stderr"})
	root.SetArgs(normalizeSingleDashFlags(root, args))
	return stdout.l, root.ExecuteContext(context.Background())
}

// -o jsonl writes one JSON object per line, every write whole lines: every
// action, "type":"action", as the pass records it (all of them out before
// the pass's heartbeat goes to stderr), then one "type":"summary" line
// that is the -o json report without actions. The demo's first pass deletes 14 versions and uploads
// and skips 2 locked ones.
func TestRunJSONLStreamsActionsThenSummary(t *testing.T) {
	dir := loadDemo(t)
	l, err := executeLogged(t, &logWriter{l: &outputLog{}, stream: "stdout"}, "run", "--now", demoNow, "--filer", dir, "-o", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	heartbeatAt, summaryAt := -1, -1
	for _, e := range l.entries {
		if e.stream == "stderr" {
			if strings.HasPrefix(e.data, "daily_run: ") {
				heartbeatAt = len(lines)
			}
			continue
		}
		if !strings.HasSuffix(e.data, "\n") {
			t.Fatalf("a stdout write does not end a line: %q", e.data)
		}
		for _, line := range strings.SplitAfter(strings.TrimSuffix(e.data, "\n"), "\n") {
			var v map[string]any
			dec := json.NewDecoder(strings.NewReader(line))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil || dec.More() {
				t.Fatalf("line %d is not one JSON object: %v\n%s", len(lines)+1, err, line)
			}
			if v["type"] == "summary" {
				summaryAt = len(lines)
			}
			lines = append(lines, v)
		}
	}
	if summaryAt != len(lines)-1 {
		t.Fatalf("summary at line %d of %d, want the last", summaryAt+1, len(lines))
	}
	if heartbeatAt != len(lines)-1 {
		t.Errorf("heartbeat came after %d lines, want after every action and before the summary (%d)", heartbeatAt, len(lines)-1)
	}
	outcomes := map[string]int{}
	for _, a := range lines[:len(lines)-1] {
		if a["type"] != "action" {
			t.Fatalf("line before the summary has type %v", a["type"])
		}
		for _, f := range []string{"shard", "source", "bucket", "key", "kind", "rule_id", "due", "outcome"} {
			if _, ok := a[f]; !ok {
				t.Errorf("action line has no %q: %v", f, a)
			}
		}
		outcomes[a["outcome"].(string)]++
	}
	if want := map[string]int{"DONE": 14, "SKIPPED_OBJECT_LOCK": 2}; !cmp.Equal(outcomes, want) {
		t.Errorf("action outcomes %v, want %v", outcomes, want)
	}

	// The summary is the -o json report of the same pass minus actions.
	sum := lines[len(lines)-1]
	if _, ok := sum["actions"]; ok {
		t.Error("the summary line carries actions")
	}
	out, stderr, code := execute(t, "run", "--now", demoNow, "--filer", loadDemo(t), "-o", "json")
	if code != 0 {
		t.Fatalf("run -o json: %s", stderr)
	}
	var full map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&full); err != nil {
		t.Fatal(err)
	}
	if n := len(full["actions"].([]any)); n != len(lines)-1 {
		t.Errorf("-o json has %d actions, -o jsonl %d", n, len(lines)-1)
	}
	for k := range full {
		if _, ok := sum[k]; !ok && k != "actions" {
			t.Errorf("summary lacks -o json's %q", k)
		}
	}
	for _, k := range []string{"status", "bucket_errors", "notices", "buckets", "ambiguous_keys", "errors"} {
		if !cmp.Equal(sum[k], full[k]) {
			t.Errorf("summary %s = %v, -o json says %v", k, sum[k], full[k])
		}
	}
}

// A reader that goes away (ilmctl run -o jsonl | head -3) stops the
// stream, not the pass: every delete is still made and every cursor
// saved; the command then says how far the stream got and exits 1.
func TestRunJSONLClosedStdoutFinishesThePass(t *testing.T) {
	dir := loadDemo(t)
	want := loadDemo(t)
	if _, stderr, code := execute(t, "run", "--now", demoNow, "--filer", want); code != 0 {
		t.Fatalf("reference pass: %s", stderr)
	}
	// Only the first write goes through: the demo's 16 action lines fit
	// in one batch, so the stream breaks at a later batch or the summary.
	_, err := executeLogged(t, &logWriter{l: &outputLog{}, stream: "stdout", failAfter: 1}, "run", "--now", demoNow, "--filer", dir, "-o", "jsonl")
	if cmdutil.Code(err) != cmdutil.ExitFailure || !errors.Is(err, errClosedPipe) || !regexp.MustCompile(`^write -o jsonl (summary )?after \d+ actions: `).MatchString(err.Error()) {
		t.Fatalf("want exit 1 naming the broken stream and how far it got, got %d: %v", cmdutil.Code(err), err)
	}
	if diff := cmp.Diff(remaining(t, want), remaining(t, dir)); diff != "" {
		t.Fatalf("the pass stopped with its stream (-full pass +streamed pass):\n%s", diff)
	}
	// Its cursors were saved: the next pass is steady state, as after the
	// full one.
	_, stderr, _ := execute(t, "run", "--now", "2026-12-01T00:00:00Z", "--filer", dir, "-o", "json")
	if !strings.Contains(stderr, "status=ok") || strings.Contains(stderr, "cursor_lag_max=cold") {
		t.Errorf("next pass heartbeat %q", stderr)
	}
}

// Every command takes the -o values it supports and names them when given
// another.
func TestOutputFormats(t *testing.T) {
	dir := loadDemo(t)
	for _, tc := range []struct {
		args []string
		msg  string // empty: accepted
	}{
		{[]string{"run", "--dry-run", "--now", demoNow, "--filer", dir, "-o", "yaml"}, `-o "yaml": use table, wide, json or jsonl`},
		{[]string{"run", "--dry-run", "--now", demoNow, "--filer", dir, "-o", "jsonl"}, ""},
		{[]string{"journal", "ls", "--meta", "../../testdata/ilm/pool-a", "-o", "jsonl"}, `-o "jsonl": use table, wide or json`},
		{[]string{"journal", "ls", "--meta", "../../testdata/ilm/pool-a", "-o", "wide"}, ""},
		{[]string{"journal", "show", "ilm/x.json", "--meta", "../../testdata/ilm/pool-a", "-o", "wide"}, `-o "wide": use table or json`},
		{[]string{"filer", "ls", "--filer", dir, "-o", "wide"}, ""},
		{[]string{"filer", "ls", "--filer", dir, "-o", "jsonl"}, `-o "jsonl": use table, wide or json`},
		{[]string{"filer", "ls", "--filer", dir, "-o", "json"}, ""},
	} {
		_, stderr, code := execute(t, tc.args...)
		switch {
		case tc.msg == "" && code != 0:
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
		case tc.msg != "" && (code != cmdutil.ExitUsage || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1):
			t.Errorf("%v: exit %d stderr %q, want one-line usage error with %q", tc.args, code, stderr, tc.msg)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got, "A change to what the demo's passes do (lifecycle semantics, testdata/demo/fixture.json) shows here too. ")
}

// maxWidth is the terminal width the default tables must fit: what
// cmdutil.Width gives when stdout is no terminal and $COLUMNS is unset.
const maxWidth = 80

// demoNow is the Makefile's DEMO_NOW: the demo's first pass.
const demoNow = "2026-11-30T00:00:00Z"

// loadDemo loads testdata/demo/fixture.json, as make demo does, into a
// fresh embedded filer.
func loadDemo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "filer")
	if _, stderr, code := execute(t, "filer", "load", "../../testdata/demo/fixture.json", "--filer", dir); code != 0 {
		t.Fatalf("filer load: %s", stderr)
	}
	return dir
}
