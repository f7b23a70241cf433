package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// restarting is the fake store with a meta-log that names its writers
// (filer.MetaLogRestarts), as SeaweedFS's does.
type restarting struct {
	*fakeStore
	writers []filer.MetaLogWriter
	err     error
	asked   int
}

func (r *restarting) MetaLogWriters(context.Context, int64) ([]filer.MetaLogWriter, error) {
	r.asked++
	return r.writers, r.err
}

// oneDayLogs is a store with one unversioned bucket, logs, and a snapshot
// of its rule: Expiration Days 1, counted unrounded.
func oneDayLogs() (*fakeStore, *engine.Snapshot) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	return st, engine.Compile([]engine.Bucket{{Name: "logs", Versioning: filer.VersioningOff,
		Rules: []lifecycle.Rule{expireDays("all", 1)}}}, lifecycle.RoundExact).Snapshot()
}

// forget drops every meta-log event of bucket/key, as a filer killed
// before it persisted them does.
func (f *fakeStore) forget(bucket, key string) {
	f.events = slices.DeleteFunc(f.events, func(ev filer.Event) bool { return ev.Bucket == bucket && ev.Key == key })
}

// A filer restart that lost the PUT events of two objects: the pass that
// finds the new writer walks every rule and deletes the one already due,
// and the pass after the restart plus the rule's one day deletes the
// other. Without the new writer, replay never finds either; it finds kept,
// whose event was not lost, either way.
func TestFilerRestartWalks(t *testing.T) {
	a := filer.MetaLogWriter{ID: "a", BeganByNs: ts("2026-11-01T00:01:00Z").UnixNano()}
	b := filer.MetaLogWriter{ID: "b", BeganByNs: ts("2026-11-11T11:30:00Z").UnixNano(), Successor: true}
	type pass struct {
		at        string
		recovery  RecoveryReason
		remaining []string
		restarts  []string
	}
	for _, tc := range []struct {
		name    string
		writers []filer.MetaLogWriter // from the second pass on
		known   []string              // the writers the cursors keep
		passes  []pass
	}{
		{
			name:    "a new writer after another",
			writers: []filer.MetaLogWriter{a, b},
			known:   []string{"a", "b"},
			passes: []pass{
				{at: "2026-11-11T12:00:00Z", recovery: RecoveryFilerRestart,
					remaining: []string{"logs/kept@v", "logs/young@v"}, restarts: []string{"2026-11-11T11:30:00Z"}},
				{at: "2026-11-12T12:00:00Z", recovery: RecoveryFilerRestart, restarts: []string{"2026-11-11T11:30:00Z"}},
				{at: "2026-11-13T12:00:00Z", restarts: []string{"2026-11-11T11:30:00Z"}},
			},
		},
		{
			name:    "no new writer: the lost events stay undecided",
			writers: []filer.MetaLogWriter{a},
			known:   []string{"a"},
			passes: []pass{
				{at: "2026-11-11T12:00:00Z", remaining: []string{"logs/kept@v", "logs/lost@v", "logs/young@v"}},
				{at: "2026-11-12T12:00:00Z", remaining: []string{"logs/lost@v", "logs/young@v"}},
			},
		},
		{
			name:    "a new writer that followed nobody lost nothing",
			writers: []filer.MetaLogWriter{{ID: "b", BeganByNs: b.BeganByNs}},
			known:   []string{"a", "b"}, // a stays known, gone from the listing
			passes: []pass{
				{at: "2026-11-11T12:00:00Z", remaining: []string{"logs/kept@v", "logs/lost@v", "logs/young@v"}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, snap := oneDayLogs()
			store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{a}}
			runWith(t, context.Background(), store, snap, ts("2026-11-10T00:00:00Z"), nil) // cold start
			st.put("logs", "lost", "v", ts("2026-11-10T10:00:00Z"), 1)
			st.forget("logs", "lost")
			st.put("logs", "kept", "v", ts("2026-11-11T11:00:00Z"), 1)
			st.put("logs", "young", "v", ts("2026-11-11T11:00:00Z"), 1)
			st.forget("logs", "young")
			store.writers = tc.writers
			for _, ps := range tc.passes {
				res := runWith(t, context.Background(), store, snap, ts(ps.at), nil)
				for _, sh := range res.Shards {
					if sh.Recovery != ps.recovery || sh.Status != StatusOK {
						t.Errorf("%s: shard %d: status %s recovery %q, want ok and %q", ps.at, sh.Shard, sh.Status, sh.Recovery, ps.recovery)
					}
					if ps.recovery != "" && sh.Walk != WalkRecovery {
						t.Errorf("%s: shard %d walked %q, want every rule", ps.at, sh.Shard, sh.Walk)
					}
				}
				if got := st.remaining(); !slices.Equal(got, ps.remaining) {
					t.Errorf("%s: remaining %v, want %v", ps.at, got, ps.remaining)
				}
				for id := range lifecycle.ShardCount {
					c, _, err := LoadCursor(context.Background(), st, id)
					if err != nil {
						t.Fatal(err)
					}
					var restarts []string
					for _, r := range c.Restarts {
						restarts = append(restarts, time.Unix(0, r).UTC().Format(time.RFC3339))
					}
					if !slices.Equal(restarts, ps.restarts) {
						t.Errorf("%s: shard %d restarts %v, want %v", ps.at, id, restarts, ps.restarts)
					}
					if !slices.Equal(c.Writers, tc.known) {
						t.Errorf("%s: shard %d writers %v, want %v", ps.at, id, c.Writers, tc.known)
					}
					if c.WritersListedNs != ts(ps.at).UnixNano() {
						t.Errorf("%s: shard %d writers listed at %d, want the pass clock", ps.at, id, c.WritersListedNs)
					}
				}
			}
			if store.asked != len(tc.passes)+1 {
				t.Errorf("writers listed %d times in %d passes, want once a pass", store.asked, len(tc.passes)+1)
			}
		})
	}
}

// A cursor that never recorded writers (an older ilmctl, SeaweedFS's
// worker) records them without walking; a listing that fails halts every
// shard with the cursor as it was.
func TestFilerRestartEdges(t *testing.T) {
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 1))
	b := filer.MetaLogWriter{ID: "b", BeganByNs: ts("2026-11-11T11:30:00Z").UnixNano(), Successor: true}

	t.Run("cursor without writers", func(t *testing.T) {
		st := newFakeStore()
		st.addBucket("logs", filer.VersioningOff)
		runWith(t, context.Background(), st, snap, ts("2026-11-10T00:00:00Z"), nil) // no MetaLogRestarts: no writers
		store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{b}}
		res := runWith(t, context.Background(), store, snap, ts("2026-11-11T12:00:00Z"), nil)
		for _, sh := range res.Shards {
			if sh.Recovery != "" || sh.Walk != "" {
				t.Errorf("shard %d: recovery %q walk %q, want neither", sh.Shard, sh.Recovery, sh.Walk)
			}
		}
		c, _, err := LoadCursor(context.Background(), st, 0)
		if err != nil || !reflect.DeepEqual(c.Writers, []string{"b"}) || c.Restarts != nil || c.WritersListedNs == 0 {
			t.Errorf("cursor writers %v listed at %d restarts %v (%v), want [b], the pass clock and none", c.Writers, c.WritersListedNs, c.Restarts, err)
		}
	})

	t.Run("listing fails", func(t *testing.T) {
		st := newFakeStore()
		st.addBucket("logs", filer.VersioningOff)
		store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{b}}
		runWith(t, context.Background(), store, snap, ts("2026-11-10T00:00:00Z"), nil)
		before, _, _ := LoadCursor(context.Background(), st, 3)
		store.err = errors.New("filer unavailable")
		res := runWith(t, context.Background(), store, snap, ts("2026-11-11T12:00:00Z"), nil)
		for _, sh := range res.Shards {
			if sh.Status != StatusError || sh.Err == nil || !strings.Contains(sh.Err.Error(), "filer restart") || sh.CursorSaved {
				t.Errorf("shard %d: status %s err %v saved %v, want error naming the restart check, no save", sh.Shard, sh.Status, sh.Err, sh.CursorSaved)
			}
		}
		if after, _, _ := LoadCursor(context.Background(), st, 3); !reflect.DeepEqual(after, before) {
			t.Errorf("cursor %+v, want it as it was, %+v", after, before)
		}
	})
}

// mergeRestarts keeps times sorted and unique, and past its bound merges
// the closest two into the later one.
func TestMergeRestarts(t *testing.T) {
	if got := mergeRestarts([]int64{5, 1, 5, 3}); !slices.Equal(got, []int64{1, 3, 5}) {
		t.Errorf("mergeRestarts = %v, want [1 3 5]", got)
	}
	if got := mergeRestarts(nil); got != nil {
		t.Errorf("mergeRestarts(nil) = %v", got)
	}
	var many []int64
	for i := range maxRestarts {
		many = append(many, int64(100*(i+1)))
	}
	many = append(many, 150) // closest to 100 and 200
	got := mergeRestarts(many)
	if len(got) != maxRestarts || slices.Contains(got, 100) || !slices.Contains(got, 150) || got[len(got)-1] != int64(100*maxRestarts) {
		t.Errorf("mergeRestarts over the bound = %v, want 100 merged into 150 and the last kept", got)
	}
}

// knownWriters keeps the writers listed, in order, after those known
// before and no longer listed, and drops the oldest past its bound.
func TestKnownWriters(t *testing.T) {
	w := func(ids ...string) []filer.MetaLogWriter {
		var out []filer.MetaLogWriter
		for _, id := range ids {
			out = append(out, filer.MetaLogWriter{ID: id})
		}
		return out
	}
	if got := knownWriters(w("b", "c"), []string{"a", "b"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("knownWriters = %v, want [a b c]", got)
	}
	var many []string
	for i := range maxWriters + 3 {
		many = append(many, fmt.Sprintf("w%03d", i))
	}
	got := knownWriters(w("new"), many)
	if len(got) != maxWriters || got[len(got)-1] != "new" || slices.Contains(got, "w000") {
		t.Errorf("knownWriters over the bound = %v, want the oldest dropped and new kept", got)
	}
}

// A pass whose listing finds no writer (an idle log) still records that
// it looked: the next pass walks for a restart that lost an event.
func TestFilerRestartAfterAnEmptyListing(t *testing.T) {
	st, snap := oneDayLogs()
	store := &restarting{fakeStore: st, writers: nil} // idle log: nothing persisted in the window
	runWith(t, context.Background(), store, snap, ts("2026-11-10T00:00:00Z"), nil)
	c, _, _ := LoadCursor(context.Background(), st, 0)
	if c.WritersListedNs == 0 {
		t.Fatalf("a pass that listed no writer saved no listing time: %+v", c)
	}
	st.put("logs", "lost", "v", ts("2026-11-10T10:00:00Z"), 1)
	st.forget("logs", "lost")
	store.writers = []filer.MetaLogWriter{
		{ID: "a", BeganByNs: ts("2026-11-10T09:01:00Z").UnixNano()},
		{ID: "b", BeganByNs: ts("2026-11-10T10:05:00Z").UnixNano(), Successor: true},
	}
	res := runWith(t, context.Background(), store, snap, ts("2026-11-11T12:00:00Z"), nil)
	if r := shardOf(res, 0).Recovery; r != RecoveryFilerRestart {
		t.Errorf("recovery %q, want filer_restart (b is a successor the cursor never saw)", r)
	}
	if got := st.remaining(); slices.Contains(got, "logs/lost@v") {
		t.Errorf("lost object kept: %v", got)
	}
}

// More than maxWriters writers in the listing (a filer restarted every
// half hour): those the cursor drops began before its listing, so no
// later pass takes them for new ones.
func TestFilerRestartManyWriters(t *testing.T) {
	st, snap := oneDayLogs()
	var ws []filer.MetaLogWriter
	base := ts("2026-11-09T00:00:00Z")
	for i := range maxWriters + 5 { // a filer restarted ~every 30 min for 35 hours
		ws = append(ws, filer.MetaLogWriter{ID: fmt.Sprintf("w%03d", i), BeganByNs: base.Add(time.Duration(i) * 30 * time.Minute).UnixNano(), Successor: i > 0})
	}
	store := &restarting{fakeStore: st, writers: ws}
	runWith(t, context.Background(), store, snap, ts("2026-11-10T12:00:00Z"), nil) // cold start
	walks := 0
	for h := 1; h <= 6; h++ { // no further restart
		res := runWith(t, context.Background(), store, snap, ts("2026-11-10T12:00:00Z").Add(time.Duration(h)*time.Hour), nil)
		if shardOf(res, 0).Recovery == RecoveryFilerRestart {
			walks++
		}
	}
	if walks > 0 {
		t.Errorf("%d of 6 passes after the last restart walked every rule for writers already walked for", walks)
	}
}

// cutListing cancels the pass (as -runtime does) after a number of
// ListObjects calls.
type cutListing struct {
	*restarting
	cancel context.CancelFunc
	after  int
	calls  int
}

func (c *cutListing) ListObjects(ctx context.Context, bucket, after string, limit int) ([]filer.Object, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	c.calls++
	if c.calls > c.after {
		c.cancel()
		return nil, "", context.Canceled
	}
	return c.restarting.ListObjects(ctx, bucket, after, limit)
}

// A restart walk cut by -runtime on every pass continues where it
// stopped, although the writer's first file in the listing window (and
// so its BeganByNs) moves a day later every day: the cut pass records the
// restart in the cursor, and the next pass goes by that.
func TestFilerRestartWalkContinuesAcrossPasses(t *testing.T) {
	for _, drift := range []bool{false, true} {
		t.Run(fmt.Sprint("drift ", drift), func(t *testing.T) { cutRestartWalk(t, drift) })
	}
}

func cutRestartWalk(t *testing.T, drift bool) {
	st, snap := oneDayLogs()
	for i := range 40 {
		st.put("logs", fmt.Sprintf("k%02d", i), "v", ts("2026-11-20T00:00:00Z"), 1) // not due
	}
	shard := lifecycle.ShardID("logs", "k00")
	only := func(c *Config) { c.Shards = []int{shard}; c.InFlight = 1 }
	a := filer.MetaLogWriter{ID: "a", BeganByNs: ts("2026-10-01T00:01:00Z").UnixNano()}
	store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{a}}
	runWith(t, context.Background(), store, snap, ts("2026-11-01T02:00:00Z"), only) // cold start
	// b replaced a at 2026-11-01T12:00; passes daily at 02:00, each cut
	// after 6 listing calls (-runtime), the walk needing ~20.
	resumed := 0
	for d := 2; d <= 12; d++ {
		now := ts(fmt.Sprintf("2026-11-%02dT02:00:00Z", d))
		began := ts(fmt.Sprintf("2026-11-%02dT00:01:00Z", d-1)) // first file in the window: yesterday 00:00
		if d == 2 || !drift {
			began = ts("2026-11-01T12:01:00Z")
		}
		store.writers = []filer.MetaLogWriter{{ID: "b", BeganByNs: began.UnixNano(), Successor: true}}
		ctx, cancel := context.WithCancel(context.Background())
		cl := &cutListing{restarting: store, cancel: cancel, after: 6}
		res := runWith(t, ctx, cl, snap, now, only)
		cancel()
		s := shardOf(res, shard)
		if s.WalkResumed {
			resumed++
		}
		if s.Status == StatusOK {
			if resumed == 0 {
				t.Errorf("the restart walk completed on %s without continuing a cut one", now.Format(time.DateOnly))
			}
			return
		}
		if s.Recovery != RecoveryFilerRestart {
			t.Fatalf("%s: recovery %q, want filer_restart until the walk completes", now.Format(time.DateOnly), s.Recovery)
		}
	}
	t.Errorf("after 11 daily passes the restart walk never completed (resumed %d times)", resumed)
}

// A restart walk cut at t1, then a second restart that lost the event of
// an object in a bucket the cut walk had finished: the pass after that
// object is due does not continue the walk begun at t1.
func TestFilerRestartWalkNotContinuedAcrossASecondRestart(t *testing.T) {
	st := newFakeStore()
	st.addBucket("a", filer.VersioningOff)
	st.addBucket("b", filer.VersioningOff)
	snap := engine.Compile([]engine.Bucket{
		{Name: "a", Versioning: filer.VersioningOff, Rules: []lifecycle.Rule{expireDays("a", 1)}},
		{Name: "b", Versioning: filer.VersioningOff, Rules: []lifecycle.Rule{expireDays("b", 1)}},
	}, lifecycle.RoundExact).Snapshot()
	for i := range 40 {
		st.put("b", fmt.Sprintf("k%02d", i), "v", ts("2026-12-20T00:00:00Z"), 1) // never due here
	}
	w := func(id, began string, succ bool) filer.MetaLogWriter {
		return filer.MetaLogWriter{ID: id, BeganByNs: ts(began).UnixNano(), Successor: succ}
	}
	store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{w("a", "2026-11-01T00:01:00Z", false)}}
	runWith(t, context.Background(), store, snap, ts("2026-11-10T00:00:00Z"), nil) // cold start
	// restart b; its walk is cut in bucket b, after finishing bucket a
	store.writers = append(store.writers, w("b", "2026-11-10T06:01:00Z", true))
	ctx, cancel := context.WithCancel(context.Background())
	res := runWith(t, ctx, &cutListing{restarting: store, cancel: cancel, after: 4}, snap, ts("2026-11-10T08:00:00Z"), nil)
	cancel()
	if sh := shardOf(res, lifecycle.ShardID("a", "x")); sh.Status != StatusCancelled || !sh.WalkSaved {
		t.Fatalf("x's shard in the cut pass: status %s walk saved %v, want a walk cut and saved", sh.Status, sh.WalkSaved)
	}
	// restart c loses the PUT of a/x
	st.put("a", "x", "v", ts("2026-11-10T09:00:00Z"), 1)
	st.forget("a", "x")
	store.writers = append(store.writers, w("c", "2026-11-10T09:02:00Z", true))
	res = runWith(t, context.Background(), store, snap, ts("2026-11-11T10:00:00Z"), nil)
	if sh := shardOf(res, lifecycle.ShardID("a", "x")); sh.Recovery != RecoveryFilerRestart || sh.WalkResumed {
		t.Errorf("x's shard: recovery %q resumed %v, want a new filer_restart walk", sh.Recovery, sh.WalkResumed)
	}
	if slices.Contains(st.remaining(), "a/x@v") {
		t.Errorf("a/x, due since 2026-11-11T09:00, kept")
	}
	runWith(t, context.Background(), store, snap, ts("2026-11-12T10:00:00Z"), nil)
	if slices.Contains(st.remaining(), "a/x@v") {
		t.Errorf("a/x still kept a pass later")
	}
}

// A rule-edit recovery walk that needs several passes (-runtime), with a
// filer restart during it whose writer's first file then leaves the
// listing window (its BeganByNs moves a day later every day): the cut
// passes record the restart in the cursor as it was, so the walk is
// continued and completes.
func TestFilerRestartDuringARuleEditWalk(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprint("restart ", restart), func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("logs", filer.VersioningOff)
			before := snapshotOf("logs", filer.VersioningOff, expireDays("all", 3)) // RoundAWS
			after := snapshotOf("logs", filer.VersioningOff, expireDays("all", 1))
			for i := range 40 {
				st.put("logs", fmt.Sprintf("k%02d", i), "v", ts("2026-12-20T00:00:00Z"), 1) // not due
			}
			shard := lifecycle.ShardID("logs", "k00")
			only := func(c *Config) { c.Shards = []int{shard}; c.InFlight = 1 }
			a := filer.MetaLogWriter{ID: "a", BeganByNs: ts("2026-10-01T00:01:00Z").UnixNano()}
			store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{a}}
			runWith(t, context.Background(), store, before, ts("2026-11-01T02:00:00Z"), only) // cold start
			for d := 2; d <= 14; d++ {
				now := ts(fmt.Sprintf("2026-11-%02dT02:00:00Z", d))
				if restart { // b replaced a at 11-01T12:00; its first file in the window drifts daily
					began := ts("2026-11-01T12:01:00Z")
					if d > 2 {
						began = ts(fmt.Sprintf("2026-11-%02dT00:01:00Z", d-1))
					}
					store.writers = []filer.MetaLogWriter{{ID: "b", BeganByNs: began.UnixNano(), Successor: true}}
				}
				ctx, cancel := context.WithCancel(context.Background())
				res := runWith(t, ctx, &cutListing{restarting: store, cancel: cancel, after: 6}, after, now, only)
				cancel()
				s := shardOf(res, shard)
				if s.Status == StatusOK {
					return
				}
			}
			t.Errorf("the rule-edit walk never completed in 13 daily passes")
		})
	}
}

// A pass with nothing to replay (the rule disabled) keeps the restarts the
// cursor knew: once the rule replays again, the walk at the restart plus
// its TTL deletes the object whose PUT the restart lost.
func TestFilerRestartKeptAcrossAWalkOnlyPass(t *testing.T) {
	for _, walkOnly := range []bool{false, true} {
		t.Run(fmt.Sprint("walk-only pass ", walkOnly), func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("logs", filer.VersioningOff)
			on := engine.Compile([]engine.Bucket{{Name: "logs", Versioning: filer.VersioningOff,
				Rules: []lifecycle.Rule{expireDays("all", 2)}}}, lifecycle.RoundExact).Snapshot()
			off := engine.Compile([]engine.Bucket{{Name: "logs", Versioning: filer.VersioningOff,
				Rules: []lifecycle.Rule{{ID: "all", Enabled: false, ExpirationDays: 2}}}}, lifecycle.RoundExact).Snapshot()
			a := filer.MetaLogWriter{ID: "a", BeganByNs: ts("2026-11-01T00:01:00Z").UnixNano()}
			b := filer.MetaLogWriter{ID: "b", BeganByNs: ts("2026-11-10T11:30:00Z").UnixNano(), Successor: true}
			store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{a}}
			runWith(t, context.Background(), store, on, ts("2026-11-10T00:00:00Z"), nil) // cold start
			st.put("logs", "lost", "v", ts("2026-11-10T10:00:00Z"), 1)                   // due 11-12T10:00
			st.forget("logs", "lost")
			store.writers = []filer.MetaLogWriter{a, b}
			runWith(t, context.Background(), store, on, ts("2026-11-11T12:00:00Z"), nil) // restart walk, not due yet
			if walkOnly {
				runWith(t, context.Background(), store, off, ts("2026-11-11T13:00:00Z"), nil)
				if c, _, _ := LoadCursor(context.Background(), st, lifecycle.ShardID("logs", "lost")); len(c.Restarts) == 0 || c.WritersListedNs == 0 {
					t.Errorf("cursor after the walk-only pass: restarts %v listed at %d, want both kept", c.Restarts, c.WritersListedNs)
				}
				runWith(t, context.Background(), store, on, ts("2026-11-11T14:00:00Z"), nil) // rule edit: rewind
			}
			for _, at := range []string{"2026-11-12T12:00:00Z", "2026-11-13T12:00:00Z", "2026-11-14T12:00:00Z"} {
				runWith(t, context.Background(), store, on, ts(at), nil)
			}
			if slices.Contains(st.remaining(), "logs/lost@v") {
				t.Errorf("logs/lost, due since 11-12T10:00 and lost by restart b, is never deleted")
			}
		})
	}
}

// A cold-start walk cut by -runtime, then a filer restart before the pass
// that completes it: that pass has no cursor to compare with, but the
// listing shows the new writer after the old one, past the replay floor,
// so the restart is recorded and the object whose PUT it lost is deleted
// when due.
func TestFilerRestartDuringAColdStart(t *testing.T) {
	st, snap := oneDayLogs()
	for i := range 40 {
		st.put("logs", fmt.Sprintf("k%02d", i), "v", ts("2026-12-20T00:00:00Z"), 1)
	}
	a := filer.MetaLogWriter{ID: "a", BeganByNs: ts("2026-11-01T00:01:00Z").UnixNano()}
	store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{a}}
	ctx, cancel := context.WithCancel(context.Background())
	res := runWith(t, ctx, &cutListing{restarting: store, cancel: cancel, after: 3}, snap, ts("2026-11-10T00:00:00Z"), nil)
	cancel()
	shard := lifecycle.ShardID("logs", "lost")
	if s := shardOf(res, shard); s.Status == StatusOK {
		t.Fatalf("cold start not cut")
	}
	st.put("logs", "lost", "v", ts("2026-11-10T05:00:00Z"), 1) // due 11-11T05:00
	st.forget("logs", "lost")
	store.writers = []filer.MetaLogWriter{a, {ID: "b", BeganByNs: ts("2026-11-10T06:01:00Z").UnixNano(), Successor: true, FollowsListed: true}}
	runWith(t, context.Background(), store, snap, ts("2026-11-10T08:00:00Z"), nil)
	for _, at := range []string{"2026-11-11T08:00:00Z", "2026-11-12T08:00:00Z"} {
		runWith(t, context.Background(), store, snap, ts(at), nil)
	}
	if slices.Contains(st.remaining(), "logs/lost@v") {
		t.Errorf("logs/lost (PUT lost by restart b, which came during the cold-start walk) is never deleted")
	}
}

// A pass dated in the past (--now) records a restart found in the listing
// at the time its writer began, not at the pass clock, so its walks come
// when the object it lost is due.
func TestFilerRestartFoundByABackdatedPass(t *testing.T) {
	st, snap := oneDayLogs()
	a := filer.MetaLogWriter{ID: "a", BeganByNs: ts("2026-11-01T00:01:00Z").UnixNano()}
	store := &restarting{fakeStore: st, writers: []filer.MetaLogWriter{a}}
	runWith(t, context.Background(), store, snap, ts("2026-11-11T00:00:00Z"), nil) // cold start
	st.put("logs", "lost", "v", ts("2026-11-11T05:00:00Z"), 1)                     // due 11-12T05:00
	st.forget("logs", "lost")
	store.writers = []filer.MetaLogWriter{a, {ID: "b", BeganByNs: ts("2026-11-11T06:01:00Z").UnixNano(), Successor: true}}
	runWith(t, context.Background(), store, snap, ts("2026-11-10T12:00:00Z"), func(c *Config) { c.ServerNow = ts("2026-11-11T07:00:00Z") }) // --now in the past; the filer clock says 11-11T07:00
	c, _, _ := LoadCursor(context.Background(), st, lifecycle.ShardID("logs", "lost"))
	if !slices.Equal(c.Restarts, []int64{ts("2026-11-11T06:01:00Z").UnixNano()}) {
		t.Errorf("restarts %v, want the writer's 2026-11-11T06:01", c.Restarts)
	}
	for _, at := range []string{"2026-11-11T13:00:00Z", "2026-11-12T13:00:00Z", "2026-11-13T13:00:00Z"} {
		runWith(t, context.Background(), store, snap, ts(at), nil)
	}
	if slices.Contains(st.remaining(), "logs/lost@v") {
		t.Errorf("logs/lost, due since 11-12T05:00 and lost by restart b, is never deleted")
	}
}
