package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/render"
)

// The JSON documents `run -o json` and `filer ls -o json` print are a
// promised interface: scripts read their field names and the spellings of
// status, recovery, walk, kind and outcome. These golden files pin them
// for the demo's passes; only the wall-clock duration is masked.
func TestRunJSONGolden(t *testing.T) {
	dir := loadDemo(t)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"demo-run-dry-run.json", []string{"run", "--dry-run", "--now", demoNow, "--filer", dir, "-o", "json"}},
		{"demo-run.json", []string{"run", "-runtime", "60m", "--now", demoNow, "--filer", dir, "-o", "json"}},
	} {
		out, stderr, code := execute(t, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		golden(t, tc.golden, maskDurations(sortedActions(t, out)))
	}
}

// -o jsonl: one object per action, then the summary. Actions arrive in
// the order shards record them, which differs between runs, so the golden
// file holds them sorted; the summary stays last.
func TestRunJSONLinesGolden(t *testing.T) {
	dir := loadDemo(t)
	out, stderr, code := execute(t, "run", "--dry-run", "--now", demoNow, "--filer", dir, "-o", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("not one JSON object per line: %q", l)
		}
	}
	summary := lines[len(lines)-1]
	if !strings.HasPrefix(summary, `{"type":"summary",`) {
		t.Fatalf("last line is not the summary: %s", summary)
	}
	actions := lines[:len(lines)-1]
	sort.Strings(actions)
	golden(t, "demo-run-dry-run.jsonl", maskDurationsJSONL(strings.Join(append(actions, summary), "\n")+"\n"))
}

func TestFilerLsJSONGolden(t *testing.T) {
	dir := loadDemo(t)
	out, stderr, code := execute(t, "filer", "ls", "--filer", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("filer ls -o json: exit %d: %s", code, stderr)
	}
	if !json.Valid([]byte(out)) {
		t.Fatalf("not one JSON document:\n%s", out)
	}
	golden(t, "demo-filer-ls.json", out)
}

// sortedActions re-encodes a -o json document with its actions sorted:
// shards record actions concurrently, so their order differs between
// runs; everything else, field order included, is as printed.
func sortedActions(t *testing.T, doc string) string {
	t.Helper()
	var rep render.RunReport
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("not one -o json document (%v):\n%s", err, doc)
	}
	sort.SliceStable(rep.Actions, func(i, j int) bool {
		a, b := rep.Actions[i], rep.Actions[j]
		return fmt.Sprint(a.Shard, a.Bucket, a.Key, a.VersionID, a.UploadID, a.Kind) < fmt.Sprint(b.Shard, b.Bucket, b.Key, b.VersionID, b.UploadID, b.Kind)
	})
	var buf bytes.Buffer
	if err := render.JSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var (
	durationSeconds = regexp.MustCompile(`"duration_seconds": [0-9.e+-]+`)
	durationCompact = regexp.MustCompile(`"duration_seconds":[0-9.e+-]+`)
	heartbeatDur    = regexp.MustCompile(` duration=[^ "]+`)
)

// maskDurations replaces the pass's wall-clock time, the one value of the
// report that differs between two identical passes.
func maskDurations(s string) string {
	s = durationSeconds.ReplaceAllString(s, `"duration_seconds": 0`)
	return heartbeatDur.ReplaceAllString(s, " duration=0s")
}

// maskDurationsJSONL is maskDurations for compact JSON lines.
func maskDurationsJSONL(s string) string {
	return maskDurations(durationCompact.ReplaceAllString(s, `"duration_seconds":0`))
}
