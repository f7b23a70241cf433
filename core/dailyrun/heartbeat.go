package dailyrun

import (
	"fmt"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"time"
)

// Heartbeat is the one log line per pass, with the tokens of
// docs/design/daily-run.md#observability: status, shards, errors and duration are stable for grep;
// cursor_lag_max and walked_max_age are "cold" when no shard has a replay
// cursor or a walk yet; ambiguous counts the keys left alone for an
// ambiguous layout, those the pass met and those its shards' lists still
// hold (docs/design/daily-run.md#ambiguous-keys); walk_keys and
// walk_shards_done are the shards' walk progress (WalkProgress), 0 and
// 0/0 when no shard walked.
//
//	daily_run: status=ok shards=16 errors=0 duration=7s cursor_lag_max=2h walked_max_age=3m ambiguous=0 walk_keys=0 walk_shards_done=0/0
func (r *Result) Heartbeat() string {
	lag, walked := "cold", "cold"
	if d, ok := r.CursorLagMax(); ok {
		lag = FormatDuration(d)
	}
	if d, ok := r.WalkedMaxAge(); ok {
		walked = FormatDuration(d)
	}
	keys, done, walkers := r.WalkProgress()
	return fmt.Sprintf("daily_run: status=%s shards=%d errors=%d duration=%s cursor_lag_max=%s walked_max_age=%s ambiguous=%d walk_keys=%d walk_shards_done=%d/%d",
		r.Status(), len(r.Shards), r.Errors(), FormatDuration(r.Duration), lag, walked, r.AmbiguousKeys(), keys, done, walkers)
}

// WalkProgress is the shards' walk progress in one line's terms: the keys
// their walks listed this pass, the shards that walked (a walk covering at
// least one bucket) and of those, the ones whose walk is done, every
// bucket it covers done for the shard. Shards, not the per-shard bucket
// counts summed: every shard walks every bucket, so 3 buckets over 16
// shards would read as 48 buckets. done < walked after a pass says some
// shard's walk is unfinished: a recovery walk continues next pass, a
// steady-state walk starts over. The buckets are per shard, in JSON and
// the metrics.
func (r *Result) WalkProgress() (keys int64, done, walked int) {
	for _, s := range r.Shards {
		keys += s.WalkKeys
		if s.WalkBuckets == 0 {
			continue
		}
		walked++
		if s.WalkBucketsDone >= s.WalkBuckets {
			done++
		}
	}
	return keys, done, walked
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

// FormatDuration is lifecycle.FormatDuration, the one duration format of
// every line ilmctl prints for a person.
func FormatDuration(d time.Duration) string { return lifecycle.FormatDuration(d) }
