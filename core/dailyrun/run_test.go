package dailyrun

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"golang.org/x/time/rate"
)

var day = 24 * time.Hour

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func snapshotOf(bucket string, v filer.Versioning, rules ...lifecycle.Rule) *engine.Snapshot {
	return engine.Compile([]engine.Bucket{{Name: bucket, Versioning: v, Rules: rules}}, lifecycle.RoundAWS).Snapshot()
}

func expireDays(id string, days int) lifecycle.Rule {
	return lifecycle.Rule{ID: id, Enabled: true, ExpirationDays: days}
}

// noSleep records backoffs instead of sleeping.
type noSleep struct{ waits []time.Duration }

func (n *noSleep) sleep(_ context.Context, d time.Duration) error {
	n.waits = append(n.waits, d)
	return nil
}

func runPass(t *testing.T, ctx context.Context, st *fakeStore, snap *engine.Snapshot, now time.Time, mod func(*Config)) *Result {
	t.Helper()
	return runWith(t, ctx, st, snap, now, mod)
}

// runWith runs one pass over st at now with the tests' defaults (backoffs
// recorded, not slept; listing pages of 2), changed by mod.
func runWith(t *testing.T, ctx context.Context, st filer.Store, snap *engine.Snapshot, now time.Time, mod func(*Config)) *Result {
	t.Helper()
	ns := &noSleep{}
	cfg := Config{Store: st, Snapshot: snap, RunNow: now, Clock: func() time.Time { return now },
		Retry: RetryPolicy{Sleep: ns.sleep}, PageSize: 2}
	if mod != nil {
		mod(&cfg)
	}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func shardOf(res *Result, id int) ShardResult {
	for _, s := range res.Shards {
		if s.Shard == id {
			return s
		}
	}
	panic("no shard")
}

// A cold start walks RecoveryView, expires what is due, leaves what is not,
// and freezes the cursor of the shard holding a pending match before its
// event while every other shard moves to runNow.
func TestRunColdStart(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "old.log", "v1", ts("2026-01-01T10:00:00Z"), 10)
	st.put("logs", "new.log", "v1", ts("2026-11-28T10:00:00Z"), 10)
	now := ts("2026-11-30T12:00:00Z")
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r30", 30)), now, nil)

	if got, want := st.remaining(), []string{"logs/new.log@v1"}; !cmp.Equal(got, want) {
		t.Fatalf("remaining = %v, want %v", got, want)
	}
	if res.Status() != StatusOK || res.Errors() != 0 || len(res.Shards) != 16 {
		t.Fatalf("status %s errors %d shards %d", res.Status(), res.Errors(), len(res.Shards))
	}
	pendingShard := lifecycle.ShardID("logs", "new.log")
	for _, s := range res.Shards {
		if s.Recovery != "cold_start" || s.Walk != "recovery" || !s.CursorSaved {
			t.Errorf("shard %d: recovery=%q walk=%q saved=%v", s.Shard, s.Recovery, s.Walk, s.CursorSaved)
		}
		if s.Shard == pendingShard {
			if s.Pending != 1 || s.Cursor.TsNs >= ts("2026-11-28T10:00:00Z").UnixNano() {
				t.Errorf("pending shard: pending=%d cursor=%v", s.Pending, time.Unix(0, s.Cursor.TsNs).UTC())
			}
			continue
		}
		if s.Cursor.TsNs != now.UnixNano()-1 {
			t.Errorf("shard %d cursor = %v, want just before runNow", s.Shard, time.Unix(0, s.Cursor.TsNs).UTC())
		}
	}
	if len(res.Actions) != 1 || res.Actions[0].Source != "walker" || res.Actions[0].Outcome != "DONE" {
		t.Fatalf("actions = %+v", res.Actions)
	}
	// All 16 shards walk RecoveryView through one shared listing.
	if st.listings != 1 {
		t.Errorf("bucket listed %d times, want once for all shards", st.listings)
	}
	// 31-day effective TTL (30 days + 1 day AWS rounding slack).
	if got, want := st.subscribed[0][0], now.Add(-31*day).UnixNano(); got != want {
		t.Errorf("subscribed since %v, want runNow-31d", time.Unix(0, got).UTC())
	}
}

// The next pass replays from the saved cursors, without walking, and
// dispatches the match that has become due.
func TestRunSteadyStateReplay(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "new.log", "v1", ts("2026-11-28T10:00:00Z"), 10)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r2", 2))
	runPass(t, context.Background(), st, snap, ts("2026-11-30T12:00:00Z"), nil)
	if len(st.remaining()) != 1 {
		t.Fatal("object expired before its due time 2026-12-01T00:00Z")
	}
	res := runPass(t, context.Background(), st, snap, ts("2026-12-01T00:00:00Z"), func(c *Config) { c.WalkerInterval = time.Hour })
	if len(st.remaining()) != 0 {
		t.Fatalf("remaining = %v", st.remaining())
	}
	s := shardOf(res, lifecycle.ShardID("logs", "new.log"))
	if s.Recovery != "" || s.Walk != "" || s.EventsScanned != 1 || res.Actions[0].Source != "replay" {
		t.Fatalf("shard = %+v actions = %+v", s, res.Actions)
	}
}

// Head-of-line blocking: a RETRY_LATER halts only its shard, whose cursor
// stays before the failed event; the other shards finish.
func TestRunHeadOfLineBlocking(t *testing.T) {
	for _, tc := range []struct {
		name      string
		script    func(filer.DeleteRequest, int) (filer.Outcome, error, bool)
		status    ShardStatus
		remaining int
		backoffs  int
	}{
		{"retry later", func(r filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
			return filer.OutcomeRetryLater, nil, r.Key == "b.log"
		}, StatusHalted, 1, 0},
		{"blocked", func(r filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
			return filer.OutcomeBlocked, nil, r.Key == "b.log"
		}, StatusHalted, 1, 0},
		{"transport error after 3 attempts", func(r filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
			return "", errTransport, r.Key == "b.log"
		}, StatusHalted, 1, 2},
		{"transport error then success", func(r filer.DeleteRequest, n int) (filer.Outcome, error, bool) {
			return "", errTransport, r.Key == "b.log" && n == 1
		}, StatusOK, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("logs", filer.VersioningOff)
			st.put("logs", "b.log", "v1", ts("2026-11-20T10:00:00Z"), 10)
			st.put("logs", "c.log", "v1", ts("2026-11-21T10:00:00Z"), 10)
			snap := snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1))
			// The first pass is cold: save empty cursors by walking nothing due.
			runPass(t, context.Background(), st, snap, ts("2026-11-20T11:00:00Z"), nil)
			st.script = tc.script
			ns := &noSleep{}
			res := runPass(t, context.Background(), st, snap, ts("2026-11-30T00:00:00Z"), func(c *Config) { c.Retry.Sleep = ns.sleep })
			s := shardOf(res, lifecycle.ShardID("logs", "b.log"))
			if s.Status != tc.status || res.Status() != tc.status {
				t.Fatalf("shard status %s pass %s, want %s (%s)", s.Status, res.Status(), tc.status, s.Err)
			}
			if got := len(st.remaining()); got != tc.remaining {
				t.Errorf("remaining %v", st.remaining())
			}
			if len(ns.waits) != tc.backoffs {
				t.Errorf("backoffs %v, want %d", ns.waits, tc.backoffs)
			}
			if tc.status == StatusHalted {
				if !s.CursorSaved || s.Cursor.TsNs >= ts("2026-11-20T10:00:00Z").UnixNano() {
					t.Errorf("halted cursor %v saved=%v, want before the failed event", time.Unix(0, s.Cursor.TsNs).UTC(), s.CursorSaved)
				}
				if other := shardOf(res, lifecycle.ShardID("logs", "c.log")); other.Shard != s.Shard && other.Status != StatusOK {
					t.Errorf("other shard %d status %s", other.Shard, other.Status)
				}
			}
		})
	}
}

func TestRetryBackoff(t *testing.T) {
	rp := RetryPolicy{}
	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 5 * time.Second, 5 * time.Second}
	for i, w := range want {
		if got := rp.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

// A halted shard that stops reading must not block the fan-out: more events
// than the channel holds arrive for it while every other shard finishes.
func TestRunHaltedShardDoesNotBlockOthers(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	base := ts("2026-11-01T00:00:00Z")
	var blockedKeys []string
	for i := 0; len(blockedKeys) < 3*shardChanSize; i++ {
		key := "k" + strings.Repeat("x", i%7) + time.Duration(i).String()
		if lifecycle.ShardID("logs", key) == 3 {
			blockedKeys = append(blockedKeys, key)
			st.put("logs", key, "v1", base.Add(time.Duration(i)*time.Second), 1)
		}
	}
	st.put("logs", "other", "v1", base.Add(-time.Hour), 1)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1))
	st.files[CursorPath(3)] = EncodeCursor(Cursor{TsNs: base.Add(-2 * time.Hour).UnixNano(), RuleSetHash: engine.ReplayContentHash(snap)}, 3)
	st.script = func(r filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
		return filer.OutcomeRetryLater, nil, lifecycle.ShardID("logs", r.Key) == 3
	}
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T00:00:00Z"), nil)
	// It stops deciding once a delete fails; the deletes already in
	// flight (at most defaultInFlight) finish.
	if s := shardOf(res, 3); s.Status != StatusHalted || s.EventsScanned < 1 || s.EventsScanned > defaultInFlight+1 {
		t.Fatalf("shard 3: %+v", s)
	}
	if res.Errors() != 1 {
		t.Fatalf("errors = %d, want only shard 3", res.Errors())
	}
}

// Editing a replay rule rewinds the cursor to runNow - maxTTL after the
// recovery walk, without draining.
func TestRunRuleEditRewinds(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "a.log", "v1", ts("2026-11-01T00:00:00Z"), 10)
	now := ts("2026-11-30T00:00:00Z")
	runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r", 90)), now, nil)
	edited := snapshotOf("logs", filer.VersioningOff, expireDays("r", 10))
	res := runPass(t, context.Background(), st, edited, now.Add(time.Hour), nil)
	for _, s := range res.Shards {
		if s.Recovery != "rule_edit" || s.EventsScanned != 0 || s.Cursor.TsNs != now.Add(time.Hour-11*day).UnixNano() {
			t.Fatalf("shard %d: recovery=%q scanned=%d cursor=%v", s.Shard, s.Recovery, s.EventsScanned, time.Unix(0, s.Cursor.TsNs).UTC())
		}
	}
	if len(st.remaining()) != 0 {
		t.Fatalf("the recovery walk did not expire a.log: %v", st.remaining())
	}
}

// A meta-log retention shorter than a rule's TTL promotes it to the walker;
// changing the retention flips the partition and triggers recovery.
func TestRunPartitionFlip(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 30))
	now := ts("2026-11-30T00:00:00Z")
	runPass(t, context.Background(), st, snap, now, nil)
	res := runPass(t, context.Background(), st, snap, now.Add(time.Hour), func(c *Config) { c.MetaLogRetention = 7 * day })
	if s := res.Shards[0]; s.Recovery != "partition_flip" {
		t.Fatalf("recovery = %q", s.Recovery)
	}
}

// walkerDue gates steady-state and empty-replay walks on WalkerInterval.
func TestRunWalkerInterval(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, lifecycle.Rule{ID: "d", Enabled: true, ExpirationDate: ts("2026-06-01T00:00:00Z")})
	now := ts("2026-11-30T00:00:00Z")
	for _, tc := range []struct {
		at   time.Duration
		walk WalkKind
	}{
		{0, "empty_replay"},
		{30 * time.Minute, ""},
		{2 * time.Hour, "empty_replay"},
	} {
		res := runPass(t, context.Background(), st, snap, now.Add(tc.at), func(c *Config) { c.WalkerInterval = time.Hour })
		if got := res.Shards[5].Walk; got != tc.walk {
			t.Errorf("at +%v walk = %q, want %q", tc.at, got, tc.walk)
		}
		if len(st.subscribed) != 0 {
			t.Fatalf("a walker-only rule set opened a subscription")
		}
	}
	if !walkerDue(0, now, time.Hour) || !walkerDue(now.UnixNano(), now, 0) || walkerDue(now.UnixNano(), now.Add(time.Minute), time.Hour) {
		t.Error("walkerDue")
	}
}

// A pass cancelled mid-dispatch (-runtime or Ctrl-C) still saves every
// shard's cursor with a fresh context; the cancelled shard's cursor stays
// before the event it was dispatching.
func TestRunCancelledSavesCursors(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "a.log", "v1", ts("2026-11-20T00:00:00Z"), 10)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 1))
	runPass(t, context.Background(), st, snap, ts("2026-11-20T01:00:00Z"), nil)
	ctx, cancel := context.WithCancel(context.Background())
	st.script = func(filer.DeleteRequest, int) (filer.Outcome, error, bool) {
		cancel()
		return "", context.Canceled, true
	}
	res := runPass(t, ctx, st, snap, ts("2026-11-30T00:00:00Z"), nil)
	if res.Status() != StatusCancelled {
		t.Fatalf("status %s", res.Status())
	}
	for _, s := range res.Shards {
		if !s.CursorSaved {
			t.Errorf("shard %d: cursor not saved (%s)", s.Shard, s.Status)
		}
	}
	s := shardOf(res, lifecycle.ShardID("logs", "a.log"))
	if s.Status != StatusCancelled || s.Cursor.TsNs >= ts("2026-11-20T00:00:00Z").UnixNano() {
		t.Errorf("cancelled shard: %s cursor %v", s.Status, time.Unix(0, s.Cursor.TsNs).UTC())
	}
}

func TestRunDryRun(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "a.log", "v1", ts("2026-11-01T00:00:00Z"), 10)
	st.uploads["logs"] = []filer.Upload{{Key: "big.bin", UploadID: "u1", Initiated: ts("2026-11-01T00:00:00Z")}}
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 1), lifecycle.Rule{ID: "mpu", Enabled: true, AbortMPUDays: 2})
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T00:00:00Z"), func(c *Config) { c.DryRun = true })
	if len(st.deletes) != 0 || len(st.files) != 0 {
		t.Fatalf("dry run deleted %v / wrote %d files", st.deleted(), len(st.files))
	}
	var got []string
	for _, a := range res.Actions {
		got = append(got, a.Outcome.String()+":"+string(a.Kind)+":"+a.Key)
	}
	want := []string{"DRY_RUN:ExpirationDays:a.log", "DRY_RUN:AbortMPU:big.bin"}
	if !cmp.Equal(sortStrings(got), sortStrings(want)) {
		t.Fatalf("actions = %v, want %v", got, want)
	}
}

func TestRunCorruptCursorFailsClosed(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "a.log", "v1", ts("2026-11-01T00:00:00Z"), 10)
	st.files[CursorPath(lifecycle.ShardID("logs", "a.log"))] = []byte(`{"version":1}`)
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r", 1)), ts("2026-11-30T00:00:00Z"), nil)
	if s := shardOf(res, lifecycle.ShardID("logs", "a.log")); s.Status != StatusError || !strings.Contains(fmt.Sprint(s.Err), "corrupt cursor") {
		t.Fatalf("shard = %+v", s)
	}
	if len(st.remaining()) != 1 || res.Errors() != 1 {
		t.Fatalf("remaining %v errors %d", st.remaining(), res.Errors())
	}
}

func TestRunShardSubset(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r", 1)), ts("2026-11-30T00:00:00Z"),
		func(c *Config) { c.Shards = []int{5, 1, 5, 9} })
	var ids []int
	for _, s := range res.Shards {
		ids = append(ids, s.Shard)
	}
	if !cmp.Equal(ids, []int{1, 5, 9}) {
		t.Fatalf("shards = %v", ids)
	}
	if _, err := Run(context.Background(), Config{Store: st, Snapshot: snapshotOf("logs", filer.VersioningOff), RunNow: time.Unix(1, 0), Clock: time.Now, Shards: []int{16}}); err == nil {
		t.Fatal("shard 16 accepted")
	}
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// In a shared recovery walk, a shard whose dispatch fails stops walking
// and saves no cursor, while the other shards' keys are still walked.
func TestRunSharedWalkIsolatesShardFailure(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	keys := []string{}
	for i := 0; len(keys) < 40; i++ {
		k := time.Duration(i).String()
		keys = append(keys, k)
		st.put("logs", k, "v1", ts("2026-01-01T00:00:00Z"), 1)
	}
	bad := lifecycle.ShardID("logs", keys[0])
	st.script = func(r filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
		return filer.OutcomeBlocked, nil, lifecycle.ShardID("logs", r.Key) == bad
	}
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r", 1)), ts("2026-11-30T00:00:00Z"), nil)
	for _, k := range keys {
		left := contains(st.remaining(), "logs/"+k+"@v1")
		if want := lifecycle.ShardID("logs", k) == bad; left != want {
			t.Errorf("%s (shard %d) left=%v, want %v", k, lifecycle.ShardID("logs", k), left, want)
		}
	}
	s := shardOf(res, bad)
	if n := s.Outcomes["BLOCKED"]; s.Status != StatusHalted || s.CursorSaved || n < 1 || n > defaultInFlight {
		t.Fatalf("failing shard: %+v", s)
	}
	if res.Errors() != 1 {
		t.Fatalf("errors = %d, want 1", res.Errors())
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// A rate limit that cannot hand out the next token before the -runtime
// deadline cancels the pass: the shard is cancelled, not halted, and no
// ERROR action is recorded against the store.
func TestRunLimiterDeadlineIsCancellation(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "a", "v1", ts("2026-11-20T00:00:00Z"), 1)
	st.put("logs", "b", "v1", ts("2026-11-20T00:00:01Z"), 1)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 1))
	runPass(t, context.Background(), st, snap, ts("2026-11-20T01:00:00Z"), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	res := runPass(t, ctx, st, snap, ts("2026-11-30T00:00:00Z"), func(c *Config) {
		c.Limiter = rate.NewLimiter(rate.Every(24*time.Hour), 1) // one token, the next a day later
	})
	for _, a := range res.Actions {
		if a.Outcome == OutcomeError {
			t.Fatalf("limiter deadline recorded as a store error: %+v", a)
		}
	}
	if res.Status() != StatusIncomplete || len(st.deletes) != 1 {
		t.Fatalf("status %s, %d deletes; want incomplete after the one token", res.Status(), len(st.deletes))
	}
}

// The pass's deadline (-runtime) is the designed cap: the pass is
// incomplete, never error, however far it got (here: nowhere, the
// deadline passed before it started; the meta-log subscription ends
// with it too). A signal's cancellation is cancelled.
func TestRuntimeIsIncompleteSignalIsCancelled(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want ShardStatus
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Unix(0, 0))
		}, StatusIncomplete},
		{"signal", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, StatusCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("logs", filer.VersioningOff)
			st.put("logs", "a.log", "v1", ts("2026-11-20T00:00:00Z"), 10)
			snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 1))
			runPass(t, context.Background(), st, snap, ts("2026-11-20T01:00:00Z"), nil)
			ctx, cancel := tc.ctx()
			defer cancel()
			res := runPass(t, ctx, st, snap, ts("2026-11-30T00:00:00Z"), nil)
			if res.Status() != tc.want || res.SubscribeErr != nil {
				t.Errorf("status %s (subscription: %v), want %s", res.Status(), res.SubscribeErr, tc.want)
			}
			if !strings.HasPrefix(res.Heartbeat(), "daily_run: status="+tc.want.String()+" ") {
				t.Errorf("heartbeat %s", res.Heartbeat())
			}
		})
	}
}

// A key's events share one lookup until the shard dispatches on the key;
// after a dispatch the next event reads the key again.
func TestReplayLooksUpEachKeyOnce(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningEnabled)
	for i, v := range []string{"v1", "v2", "v3"} {
		st.put("logs", "k", v, ts("2026-11-20T00:00:00Z").Add(time.Duration(i)*time.Hour), 1)
	}
	snap := snapshotOf("logs", filer.VersioningEnabled, expireDays("e", 30),
		lifecycle.Rule{ID: "nc", Enabled: true, NoncurrentDays: 30})
	runPass(t, context.Background(), st, snap, ts("2026-11-20T01:00:00Z"), nil) // cold: cursors at the floor
	st.lookups = 0
	res := runPass(t, context.Background(), st, snap, ts("2026-11-25T00:00:00Z"), nil)
	// The first pass moved the cursor past put v1 (v1 is no longer latest);
	// demote v1, put v2, demote v2 and put v3 remain, three of them pending.
	if s := shardOf(res, lifecycle.ShardID("logs", "k")); s.EventsScanned != 4 || s.Pending != 3 {
		t.Fatalf("scanned %d pending %d, want 4 events, 3 pending", s.EventsScanned, s.Pending)
	}
	if st.lookups != 1 {
		t.Fatalf("%d lookups for one key's 4 events, want 1", st.lookups)
	}
}

// After a cold-start recovery walk the replay in the same pass looks up
// only keys the walk left with a pending replay match; the rest of the
// window needs no round trip.
func TestColdStartReplaySkipsKeysTheWalkSettled(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	// A 10-day rule replays from runNow-11d (2026-11-19): every event below
	// is in the window.
	st.put("logs", "app/due", "v1", ts("2026-11-19T12:00:00Z"), 1)
	st.put("logs", "app/pending", "v1", ts("2026-11-29T00:00:00Z"), 1)
	st.put("logs", "other/x", "v1", ts("2026-11-25T00:00:00Z"), 1)
	snap := snapshotOf("logs", filer.VersioningOff, lifecycle.Rule{ID: "app", Enabled: true, Filter: lifecycle.Filter{Prefix: "app/"}, ExpirationDays: 10})
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T00:00:00Z"), nil)
	if got, want := st.remaining(), []string{"logs/app/pending@v1", "logs/other/x@v1"}; !cmp.Equal(got, want) {
		t.Fatalf("remaining %v, want %v", got, want)
	}
	if s := shardOf(res, lifecycle.ShardID("logs", "other/x")); s.EventsScanned != 1 {
		t.Fatalf("other/x's event was not replayed (scanned %d)", s.EventsScanned)
	}
	if st.lookups != 1 {
		t.Fatalf("%d lookups, want 1 (app/pending only)", st.lookups)
	}
	if s := shardOf(res, lifecycle.ShardID("logs", "app/pending")); s.Pending != 1 || s.Cursor.TsNs >= ts("2026-11-29T00:00:00Z").UnixNano() {
		t.Fatalf("pending shard: pending %d cursor %v", s.Pending, time.Unix(0, s.Cursor.TsNs).UTC())
	}
}

// metaLogless is a fake store without a meta-log, as s3:// is.
type metaLogless struct{ *fakeStore }

func (metaLogless) NoMetaLog() bool { return true }

// On a store without a meta-log the pass itself walks every rule: the
// replay kinds are found by the walker (the subscription delivers
// nothing), and
// the cursor's promoted hash records the promotion, whatever retention
// the caller asked for.
func TestRunWithoutMetaLogWalksEveryRule(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "old.log", "v1", ts("2026-10-01T10:00:00Z"), 10)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 30))
	now := ts("2026-11-30T12:00:00Z")
	ns := &noSleep{}
	res, err := Run(context.Background(), Config{Store: metaLogless{st}, Snapshot: snap, RunNow: now,
		Clock: func() time.Time { return now }, Retry: RetryPolicy{Sleep: ns.sleep}, PageSize: 2,
		MetaLogRetention: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Actions) != 1 || res.Actions[0].Source != "walker" || len(st.remaining()) != 0 {
		t.Fatalf("actions %+v remaining %v, want the expired object deleted by a walk", res.Actions, st.remaining())
	}
	s := shardOf(res, lifecycle.ShardID("logs", "old.log"))
	if want := engine.PromotedHash(snap, WalkerOnlyRetention); s.Cursor.PromotedHash != want || want == ([32]byte{}) {
		t.Errorf("cursor promoted hash %x, want %x (every replay rule promoted)", s.Cursor.PromotedHash, want)
	}
	if EffectiveRetention(st, 7*day) != 7*day || EffectiveRetention(metaLogless{st}, 7*day) != WalkerOnlyRetention {
		t.Error("EffectiveRetention: a store with a meta-log keeps the retention asked for; one without gets WalkerOnlyRetention")
	}
}

// Once a cold shard's cursor is frozen at its first match not yet due,
// replay looks up no more keys the shard's recovery walk finished: the walk
// dispatched every due match, and another pending one moves nothing. Only
// the events already started in the replay window are looked up.
func TestColdStartReplayStopsLookingUpOnceFrozen(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	const n = 3 * replayWindow
	shard := lifecycle.ShardID("logs", "app/p0")
	start := ts("2026-11-28T00:00:00Z")
	for i, found := 0, 0; found < n; i++ {
		k := fmt.Sprintf("app/p%d", i)
		if lifecycle.ShardID("logs", k) != shard {
			continue
		}
		st.put("logs", k, "v1", start.Add(time.Duration(found)*time.Minute), 1) // due 12-08 on
		found++
	}
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 10))
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T00:00:00Z"), func(c *Config) { c.Shards = []int{shard} })
	s := shardOf(res, shard)
	if res.Status() != StatusOK || s.EventsScanned != n || len(st.remaining()) != n {
		t.Fatalf("status %s, scanned %d, remaining %d; want ok, %d, %d", res.Status(), s.EventsScanned, len(st.remaining()), n, n)
	}
	if st.lookups < 1 || st.lookups > replayWindow+1 {
		t.Fatalf("%d lookups of %d pending keys, want at most the replay window (%d) and the first", st.lookups, n, replayWindow)
	}
	if s.Cursor.TsNs >= start.UnixNano() {
		t.Fatalf("cursor %v moved past the first pending event", time.Unix(0, s.Cursor.TsNs).UTC())
	}
}

// On a store without a meta-log every rule is walked on every pass: a lone
// delete marker written after the cold start is removed by a walk under
// either due rounding (an expired object delete marker is due as soon as
// found, so no rounding slack is what sends it to the walker).
func TestRunWithoutMetaLogWalksExpiredMarkers(t *testing.T) {
	for _, rnd := range []lifecycle.Rounding{lifecycle.RoundAWS, lifecycle.RoundExact} {
		t.Run(rnd.String(), func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("ver", filer.VersioningEnabled)
			snap := engine.Compile([]engine.Bucket{{Name: "ver", Versioning: filer.VersioningEnabled,
				Rules: []lifecycle.Rule{{ID: "edm", Enabled: true, ExpiredObjectDeleteMarker: true}}}}, rnd).Snapshot()
			store := metaLogless{st}
			runWith(t, context.Background(), store, snap, ts("2026-05-31T00:00:00Z"), nil) // cold start
			st.putMarker("ver", "m/k", "dm", ts("2026-06-01T00:00:00Z"))
			res := runWith(t, context.Background(), store, snap, ts("2026-06-02T00:00:00Z"), nil)
			if len(res.Actions) != 1 || res.Actions[0].Source != SourceWalker || len(st.remaining()) != 0 {
				t.Fatalf("actions %+v remaining %v, want the lone marker removed by a walk", res.Actions, st.remaining())
			}
		})
	}
}
