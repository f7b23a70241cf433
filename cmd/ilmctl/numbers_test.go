package main

import (
	"encoding/json"
	"testing"
)

// One set of numbers: on the demo (which holds versions under legal hold
// and retention), a dry run previews exactly the bytes the real pass then
// frees, with what Object Lock keeps apart as bytes_held, and in both the
// actions' bytes_freed add up to the total: only a DONE (DRY_RUN) action
// frees anything.
func TestDryRunPreviewsWhatThePassFrees(t *testing.T) {
	dir := loadDemo(t)
	type totals struct{ freed, held, actionsFreed int64 }
	pass := func(extra ...string) totals {
		t.Helper()
		out, stderr, code := execute(t, append([]string{"run", "--now", demoNow, "--filer", dir, "-o", "json"}, extra...)...)
		if code != 0 {
			t.Fatalf("run %v: exit %d: %s", extra, code, stderr)
		}
		var rep struct {
			BytesFreed int64 `json:"bytes_freed"`
			BytesHeld  int64 `json:"bytes_held"`
			Actions    []struct {
				Outcome    string `json:"outcome"`
				BytesFreed int64  `json:"bytes_freed"`
			} `json:"actions"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		tt := totals{freed: rep.BytesFreed, held: rep.BytesHeld}
		for _, a := range rep.Actions {
			tt.actionsFreed += a.BytesFreed
			if a.BytesFreed != 0 && a.Outcome != "DONE" && a.Outcome != "DRY_RUN" {
				t.Errorf("%v: a %s action frees %d bytes", extra, a.Outcome, a.BytesFreed)
			}
		}
		return tt
	}
	preview := pass("--dry-run")
	real := pass()
	if preview != real || real.held == 0 || real.freed != real.actionsFreed {
		t.Errorf("dry run %+v, real pass %+v: want equal, with held bytes, actions adding up to the total", preview, real)
	}
}
