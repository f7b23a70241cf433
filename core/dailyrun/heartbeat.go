package dailyrun

import (
	"fmt"
	"strings"
	"time"
)

// Heartbeat is the one log line per pass, with the tokens of
// docs/design/daily-run.md#observability: status, shards, errors and duration are stable for grep;
// cursor_lag_max and walked_max_age are "cold" when no shard has a replay
// cursor or a walk yet; ambiguous counts the keys left alone for an
// ambiguous layout, those the pass met and those its shards' lists still
// hold (docs/design/daily-run.md#ambiguous-keys).
//
//	daily_run: status=ok shards=16 errors=0 duration=7s cursor_lag_max=2h walked_max_age=3m ambiguous=0
func (r *Result) Heartbeat() string {
	lag, walked := "cold", "cold"
	if d, ok := r.CursorLagMax(); ok {
		lag = FormatDuration(d)
	}
	if d, ok := r.WalkedMaxAge(); ok {
		walked = FormatDuration(d)
	}
	return fmt.Sprintf("daily_run: status=%s shards=%d errors=%d duration=%s cursor_lag_max=%s walked_max_age=%s ambiguous=%d",
		r.Status(), len(r.Shards), r.Errors(), FormatDuration(r.Duration), lag, walked, r.AmbiguousKeys())
}

// CursorLag is runNow minus the shard's replay cursor; ok is false when the
// shard has no replay cursor (cold start, or a walker-only rule set).
func (r *Result) CursorLag(s ShardResult) (time.Duration, bool) {
	if s.Cursor.TsNs <= 0 {
		return 0, false
	}
	return max(r.RunNow.Sub(time.Unix(0, s.Cursor.TsNs)), 0), true
}

// WalkerAge is runNow minus the shard's last walker fire; ok is false when
// it never walked.
func (r *Result) WalkerAge(s ShardResult) (time.Duration, bool) {
	if s.Cursor.LastWalkedNs <= 0 {
		return 0, false
	}
	return max(r.RunNow.Sub(time.Unix(0, s.Cursor.LastWalkedNs)), 0), true
}

// CursorLagMax is the largest CursorLag over shards.
func (r *Result) CursorLagMax() (time.Duration, bool) { return r.maxOver(r.CursorLag) }

// WalkedMaxAge is the largest WalkerAge over shards.
func (r *Result) WalkedMaxAge() (time.Duration, bool) { return r.maxOver(r.WalkerAge) }

func (r *Result) maxOver(f func(ShardResult) (time.Duration, bool)) (time.Duration, bool) {
	var m time.Duration
	found := false
	for _, s := range r.Shards {
		if d, ok := f(s); ok && (!found || d > m) {
			m, found = d, true
		}
	}
	return m, found
}

// FormatDuration prints d rounded to seconds without zero trailing units:
// 7s, 3m, 2h, 2h13m, 26h0m5s. Durations under a second print as 0s.
func FormatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
