package dailyrun

import (
	"errors"
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                     "0s",
		400 * time.Millisecond:                "0s",
		7 * time.Second:                       "7s",
		3 * time.Minute:                       "3m",
		2 * time.Hour:                         "2h",
		2*time.Hour + 13*time.Minute:          "2h13m",
		26*time.Hour + 5*time.Second:          "1d2h",
		90*time.Second + 600*time.Millisecond: "1m30s",
		-3 * time.Minute:                      "-3m",
		91 * 24 * time.Hour:                   "91d",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestHeartbeat(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	r := &Result{RunNow: now, Duration: 7 * time.Second, Shards: []ShardResult{
		{Shard: 0, Status: StatusOK, Cursor: Cursor{TsNs: now.Add(-2 * time.Hour).UnixNano(), LastWalkedNs: now.Add(-3 * time.Minute).UnixNano()}},
		{Shard: 1, Status: StatusOK, Cursor: Cursor{TsNs: now.Add(-time.Hour).UnixNano()}, WalkKeys: 12, WalkBucketsDone: 2, WalkBuckets: 3},
		{Shard: 2, Status: StatusOK, WalkKeys: 30, WalkBucketsDone: 3, WalkBuckets: 3},
	}, Notices: []Notice{
		{Kind: NoticeAmbiguousLayout, Bucket: "b", Key: "k"},
		{Kind: NoticeTransitionNotExecuted, Bucket: "b", RuleID: "t"},
	}}
	if got, want := r.Heartbeat(), "daily_run: status=ok shards=3 errors=0 duration=7s cursor_lag_max=2h walked_max_age=3m ambiguous=1 walk_keys=42 walk_shards_done=1/2"; got != want {
		t.Errorf("heartbeat\n got %s\nwant %s", got, want)
	}
	cold := &Result{RunNow: now, Shards: []ShardResult{{Shard: 0, Status: StatusHalted}, {Shard: 1, Status: StatusCancelled}}}
	if got, want := cold.Heartbeat(), "daily_run: status=halted shards=2 errors=2 duration=0s cursor_lag_max=cold walked_max_age=cold ambiguous=0 walk_keys=0 walk_shards_done=0/0"; got != want {
		t.Errorf("heartbeat\n got %s\nwant %s", got, want)
	}
	if (&Result{SubscribeErr: errors.New("boom"), Shards: []ShardResult{{Status: StatusOK}}}).Status() != StatusError {
		t.Error("a failed subscription must not report ok")
	}
}
