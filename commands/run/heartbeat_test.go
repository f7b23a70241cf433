package run

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrapHeartbeat(t *testing.T) {
	hb := "daily_run: status=ok shards=16 errors=0 duration=0s cursor_lag_max=91d walked_max_age=0s ambiguous=0"
	for _, tc := range []struct {
		width int
		want  []string
	}{
		{200, []string{hb}},
		{40, []string{"daily_run: status=ok shards=16 errors=0", "  duration=0s cursor_lag_max=91d", "  walked_max_age=0s ambiguous=0"}},
		{8, []string{"daily_run:", "  status=ok", "  shards=16", "  errors=0", "  duration=0s", "  cursor_lag_max=91d", "  walked_max_age=0s", "  ambiguous=0"}},
	} {
		if got := wrapHeartbeat(hb, tc.width); !cmp.Equal(got, tc.want) {
			t.Errorf("width %d: %q, want %q", tc.width, got, tc.want)
		}
	}
}

// Off a terminal (a log, a pipe, a buffer) the heartbeat stays one line.
func TestHeartbeatOneLineOffATerminal(t *testing.T) {
	hb := "daily_run: status=ok shards=16 errors=0 duration=0s cursor_lag_max=91d walked_max_age=0s ambiguous=0 walk_keys=23"
	if got := heartbeatLines(hb, &bytes.Buffer{}); len(got) != 1 || got[0] != hb {
		t.Errorf("heartbeat off a terminal: %q", got)
	}
}
