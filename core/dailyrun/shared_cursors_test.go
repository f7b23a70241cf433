package dailyrun

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// sharedStore is a fakeStore whose own lifecycle worker shares the cursor
// files, with that worker's hashes scripted.
type sharedStore struct {
	*fakeStore
	worker WorkerHashes
}

func (s *sharedStore) CursorHashes(*engine.Snapshot, time.Duration) WorkerHashes { return s.worker }

func newSharedStore() *sharedStore {
	return &sharedStore{fakeStore: newFakeStore(), worker: WorkerHashes{RuleSet: [32]byte{0xaa}, Promoted: [32]byte{0xbb}, TakeOver: true, HandOver: true}}
}

func runStore(t *testing.T, st filer.Store, snap *engine.Snapshot, now time.Time, mod func(*Config)) *Result {
	t.Helper()
	return runWith(t, context.Background(), st, snap, now, mod)
}

func rewriteCursors(t *testing.T, st filer.Store, edit func(*Cursor)) {
	t.Helper()
	for shard := range lifecycle.ShardCount {
		c, found, err := LoadCursor(context.Background(), st, shard)
		if err != nil || !found {
			t.Fatalf("cursor %d: found %v err %v", shard, found, err)
		}
		edit(&c)
		if err := SaveCursor(context.Background(), st, shard, c); err != nil {
			t.Fatal(err)
		}
	}
}

// On a store whose own worker shares the cursor files, a pass stamps each
// cursor with that worker's hashes and keeps its own beside them; it
// replays from a cursor by its own hashes when it saved it, and by the
// worker's (and compatibility) when the worker did.
func TestSharedCursorsStampAndTakeOver(t *testing.T) {
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 2))
	now := ts("2026-11-30T12:00:00Z")
	ownRS, ownP := engine.ReplayContentHash(snap), engine.PromotedHash(snap, engine.MaxEffectiveTTL(snap))
	setup := func(t *testing.T) *sharedStore {
		st := newSharedStore()
		st.addBucket("logs", filer.VersioningOff)
		st.put("logs", "a.log", "v1", now.Add(-time.Hour), 1)
		runStore(t, st, snap, now, nil)
		return st
	}
	st := setup(t)
	for shard := range lifecycle.ShardCount {
		c, _, err := LoadCursor(context.Background(), st, shard)
		want := Cursor{TsNs: c.TsNs, RuleSetHash: st.worker.RuleSet, PromotedHash: st.worker.Promoted, LastWalkedNs: now.UnixNano(),
			Own: OwnHashes{Present: true, RuleSet: ownRS, Promoted: ownP}}
		if c.Summary == nil || c.Summary.CursorTsNs != c.TsNs {
			t.Fatalf("shard %d cursor saved without its pending summary: %+v", shard, c.Summary)
		}
		c.Summary = nil
		if err != nil || c != want {
			t.Fatalf("shard %d cursor %+v (%v), want %+v", shard, c, err, want)
		}
	}

	for _, tc := range []struct {
		name       string
		edit       func(*Cursor)
		noTakeOver bool
		want       RecoveryReason
	}{
		{"ilmctl's own", func(*Cursor) {}, false, ""},
		{"ilmctl's own, the worker's hash changed meanwhile", func(c *Cursor) { c.RuleSetHash[0] = 1 }, false, ""},
		{"ilmctl's own, its rules changed", func(c *Cursor) { c.Own.RuleSet[0] ^= 1 }, false, "rule_edit"},
		{"ilmctl's own, its partition changed", func(c *Cursor) { c.Own.Promoted[0] ^= 1 }, false, "partition_flip"},
		{"the worker's, same rules", func(c *Cursor) { c.Own = OwnHashes{} }, false, ""},
		{"the worker's, other rules", func(c *Cursor) { c.Own, c.RuleSetHash[0] = OwnHashes{}, 1 }, false, "rule_edit"},
		{"the worker's, other partition", func(c *Cursor) { c.Own, c.PromotedHash[0] = OwnHashes{}, 1 }, false, "partition_flip"},
		{"the worker's, replay it does not cover", func(c *Cursor) { c.Own = OwnHashes{} }, true, "rule_edit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := setup(t)
			rewriteCursors(t, st, tc.edit)
			st.worker.TakeOver = !tc.noTakeOver
			res := runStore(t, st, snap, now.Add(time.Hour), nil)
			for _, s := range res.Shards {
				if s.Recovery != tc.want {
					t.Fatalf("shard %d: recovery %q, want %q", s.Shard, s.Recovery, tc.want)
				}
				if tc.want == "" && s.Walk != "" {
					t.Fatalf("shard %d walked (%s) on a cursor it may replay from", s.Shard, s.Walk)
				}
				if !s.CursorSaved || !s.Cursor.Own.Present || s.Cursor.RuleSetHash != st.worker.RuleSet {
					t.Fatalf("shard %d saved %+v", s.Shard, s.Cursor)
				}
			}
		})
	}
}

// When the worker's replay does work this pass's does not (HandOver
// false), the pass stamps its cursors with its own hashes, which the
// worker reads as a rule edit, and still replays from them itself.
func TestSharedCursorsNotHandedOver(t *testing.T) {
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 2))
	now := ts("2026-11-30T12:00:00Z")
	st := newSharedStore()
	st.worker.HandOver = false
	st.addBucket("logs", filer.VersioningOff)
	runStore(t, st, snap, now, nil)
	res := runStore(t, st, snap, now.Add(time.Hour), nil)
	own := engine.ReplayContentHash(snap)
	for _, s := range res.Shards {
		if s.Recovery != "" || s.Cursor.RuleSetHash != own || s.Cursor.RuleSetHash == st.worker.RuleSet || !s.Cursor.Own.Present {
			t.Fatalf("shard %d: recovery %q cursor %+v", s.Shard, s.Recovery, s.Cursor)
		}
	}
}

// Without a shared worker the cursor holds ilmctl's own hashes, as before,
// and no second pair.
func TestUnsharedCursorsHoldOwnHashes(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 2))
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T12:00:00Z"), nil)
	c := res.Shards[0].Cursor
	if c.Own.Present || c.RuleSetHash != engine.ReplayContentHash(snap) {
		t.Fatalf("cursor %+v", c)
	}
}

// A pass with no replay-eligible rule replays nothing and saves TsNs 0;
// its cursors carry zero hashes for the shared worker, which would
// otherwise read its own hash and replay the whole meta-log from 0.
func TestSharedCursorsEmptyReplayClaimsNothing(t *testing.T) {
	st := newSharedStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, lifecycle.Rule{ID: "d", Enabled: true, ExpirationDate: ts("2026-01-01T00:00:00Z")})
	res := runStore(t, st, snap, ts("2026-11-30T12:00:00Z"), nil)
	for _, s := range res.Shards {
		if s.Walk != "empty_replay" || s.Cursor.TsNs != 0 || s.Cursor.RuleSetHash != ([32]byte{}) || s.Cursor.PromotedHash != ([32]byte{}) || !s.Cursor.Own.Present {
			t.Fatalf("shard %d: walk %q cursor %+v", s.Shard, s.Walk, s.Cursor)
		}
	}
}

// keyAway returns a key of bucket whose version file path shards
// elsewhere than the key, and both shards.
func keyAway(bucket string, n int) (key, path string, keyShard, pathShard int) {
	for i := n; ; i++ {
		key = fmt.Sprintf("k%03d", i)
		path = key + ".versions/v_1"
		if a, b := lifecycle.ShardID(bucket, key), lifecycle.ShardID(bucket, path); a != b {
			return key, path, a, b
		}
	}
}

// putAt adds version vid as key's latest and its put event, sharded by
// path as a SeaweedFS filer's would be.
func putAt(f *fakeStore, bucket, key, vid, path string, mtime time.Time, eventAt time.Time) {
	obj := f.objects[bucket][key]
	if obj == nil {
		obj = &filer.Object{Key: key}
		f.objects[bucket][key] = obj
	}
	obj.Versions = append([]filer.Version{{VersionID: vid, IsLatest: true, MtimeNs: mtime.UnixNano(), Size: 1, ETag: "e-" + vid}}, obj.Versions...)
	f.events = append(f.events, filer.Event{TsNs: eventAt.UnixNano(), Type: filer.EventPut, Bucket: bucket, Key: key, VersionID: vid, Path: path})
}

// An event goes to the shard of its filer path when the store gives one,
// and that shard's cursor alone says whether it was done: SeaweedFS's
// worker, which shards by path, wrote these cursors. Before, an event
// sharded by key was skipped when the key's shard was past it although
// the path's shard, the one that owed it, was not.
func TestReplayShardsByPath(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	at := now.Add(-2 * time.Hour)
	snap := snapshotOf("b", filer.VersioningEnabled, expireDays("r", 1))
	key, path, keyShard, pathShard := keyAway("b", 0)
	for _, tc := range []struct {
		name             string
		keyTs, pathTs    time.Time // the two shards' cursors
		wantExpired      bool
		wantScannedShard int
	}{
		{"the path's shard owes it", at.Add(time.Minute), at.Add(-time.Minute), true, pathShard},
		{"only the key's shard is before it", at.Add(-time.Minute), at.Add(time.Minute), false, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newSharedStore()
			st.addBucket("b", filer.VersioningEnabled)
			putAt(st.fakeStore, "b", key, "v1", path, now.Add(-3*day), at)
			for shard := range lifecycle.ShardCount {
				c := Cursor{TsNs: now.Add(-time.Minute).UnixNano(), RuleSetHash: st.worker.RuleSet, PromotedHash: st.worker.Promoted, LastWalkedNs: 1}
				switch shard {
				case keyShard:
					c.TsNs = tc.keyTs.UnixNano()
				case pathShard:
					c.TsNs = tc.pathTs.UnixNano()
				}
				if err := SaveCursor(context.Background(), st, shard, c); err != nil {
					t.Fatal(err)
				}
			}
			res := runStore(t, st, snap, now, func(c *Config) { c.Retry.Sleep = (&noSleep{}).sleep })
			expired := len(res.Actions) == 1 && res.Actions[0].Outcome == "DONE" && res.Actions[0].Source == "replay"
			if expired != tc.wantExpired {
				t.Fatalf("expired %v, want %v (actions %+v)", expired, tc.wantExpired, res.Actions)
			}
			for _, s := range res.Shards {
				if s.Recovery != "" || s.Walk != "" {
					t.Fatalf("shard %d: recovery %q walk %q", s.Shard, s.Recovery, s.Walk)
				}
				if want := int64(0); s.Shard == tc.wantScannedShard {
					if s.EventsScanned != 1 {
						t.Errorf("shard %d scanned %d events, want the one", s.Shard, s.EventsScanned)
					}
				} else if s.EventsScanned != want {
					t.Errorf("shard %d scanned %d events, want none", s.Shard, s.EventsScanned)
				}
			}
		})
	}
}

// A match not yet due holds the cursor of the shard its event went to,
// the path's, and not the key's.
func TestPendingHoldsThePathShard(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	at := now.Add(-2 * time.Hour)
	st := newSharedStore()
	st.addBucket("b", filer.VersioningEnabled)
	key, path, keyShard, pathShard := keyAway("b", 0)
	putAt(st.fakeStore, "b", key, "v1", path, at, at)
	snap := snapshotOf("b", filer.VersioningEnabled, expireDays("r", 1))
	runStore(t, st, snap, now.Add(-3*time.Hour), nil) // cold start before the put
	res := runStore(t, st, snap, now, nil)
	if s := shardOf(res, pathShard); s.Pending != 1 || s.Cursor.TsNs >= at.UnixNano() {
		t.Errorf("path shard %d: pending %d cursor %v, want held before %v", pathShard, s.Pending, time.Unix(0, s.Cursor.TsNs).UTC(), at)
	}
	if s := shardOf(res, keyShard); s.Pending != 0 || s.Cursor.TsNs != now.UnixNano()-1 {
		t.Errorf("key shard %d: pending %d cursor %v, want just before runNow", keyShard, s.Pending, time.Unix(0, s.Cursor.TsNs).UTC())
	}
}

// After a cold start's recovery walk, the replay of an event in another
// shard than its key's skips the lookup only when the key's own shard
// walked it and left nothing pending; a key whose shard did not walk in
// this pass, or left a match pending, is looked up.
func TestColdWalkSettlesKeysForOtherShards(t *testing.T) {
	now := ts("2026-11-30T00:00:00Z")
	snap := snapshotOf("b", filer.VersioningEnabled, expireDays("r", 10)) // replays from now-11d
	settled, settledPath, _, _ := keyAway("b", 0)
	pending, pendingPath, pendingShard, pendingPathShard := keyAway("b", 500)
	build := func() *sharedStore {
		st := newSharedStore()
		st.addBucket("b", filer.VersioningEnabled)
		putAt(st.fakeStore, "b", settled, "v1", settledPath, now.Add(-10*day-time.Hour), now.Add(-10*day-time.Hour)) // due: the walk deletes it
		putAt(st.fakeStore, "b", pending, "v1", pendingPath, now.Add(-day), now.Add(-day))                           // due in 9 days
		return st
	}

	st := build()
	res := runStore(t, st, snap, now, nil)
	if got, want := st.remaining(), []string{"b/" + pending + "@v1"}; !cmp.Equal(got, want) {
		t.Fatalf("remaining %v, want %v", got, want)
	}
	if st.lookups != 1 {
		t.Errorf("%d lookups, want 1 (the pending key, replayed in shard %d)", st.lookups, pendingPathShard)
	}
	if s := shardOf(res, pendingPathShard); s.Pending != 1 || s.Cursor.TsNs >= now.Add(-day).UnixNano() {
		t.Errorf("shard %d holding the pending event: pending %d cursor %v", s.Shard, s.Pending, time.Unix(0, s.Cursor.TsNs).UTC())
	}

	// Only the event's shard runs: the key's shard did not walk, so the
	// key is looked up and its pending match holds the cursor.
	if pendingShard == pendingPathShard {
		t.Fatal("test keys must shard apart")
	}
	st = build()
	res = runStore(t, st, snap, now, func(c *Config) { c.Shards = []int{pendingPathShard} })
	if st.lookups != 1 || res.Shards[0].Pending != 1 || res.Shards[0].Cursor.TsNs >= now.Add(-day).UnixNano() {
		t.Errorf("shard %d alone: lookups %d pending %d cursor %v", pendingPathShard, st.lookups, res.Shards[0].Pending, time.Unix(0, res.Shards[0].Cursor.TsNs).UTC())
	}
}

// One version named by two events that different shards replay (a
// .versions pointer move and the version's own noncurrent stamp, on
// SeaweedFS) is one action in the pass, not one per shard.
func TestTargetDispatchedOncePerPass(t *testing.T) {
	now := ts("2026-11-30T00:00:00Z")
	st := newSharedStore()
	snap, _ := crossShardDemotion(t, st, now, 1)
	res := runStore(t, st, snap, now, func(c *Config) { c.DryRun = true })
	scanned := 0
	for _, s := range res.Shards {
		scanned += int(s.EventsScanned)
	}
	if scanned != 2 || len(res.Actions) != 1 || res.Actions[0].VersionID != "v1" || res.Actions[0].Outcome != OutcomeDryRun {
		t.Fatalf("scanned %d events; actions %+v, want one DRY_RUN of v1", scanned, res.Actions)
	}
}

// Sharded by path, one key's events reach several shards; the pass still
// reads the key once (the lookup cache is the pass's, not a shard's).
func TestPathShardedKeyIsLookedUpOnce(t *testing.T) {
	st := newSharedStore()
	st.addBucket("logs", filer.VersioningEnabled)
	start := ts("2026-11-20T00:00:00Z")
	for i, v := range []string{"v1", "v2", "v3"} {
		st.put("logs", "k", v, start.Add(time.Duration(i)*time.Hour), 1)
	}
	shards := map[int]bool{}
	for i := range st.events {
		ev := &st.events[i]
		ev.Path = "k.versions/v_" + ev.VersionID
		if ev.Type == filer.EventDemote {
			ev.Path = "k.versions"
		}
		shards[EventShard(*ev)] = true
	}
	if len(shards) < 2 {
		t.Fatalf("the key's events land in %d shard(s); the test needs several", len(shards))
	}
	snap := snapshotOf("logs", filer.VersioningEnabled, expireDays("e", 30),
		lifecycle.Rule{ID: "nc", Enabled: true, NoncurrentDays: 30})
	runStore(t, st, snap, start.Add(-time.Hour), nil) // cold start before the events
	st.lookups = 0
	res := runStore(t, st, snap, ts("2026-11-25T00:00:00Z"), nil)
	scanned, pending := int64(0), int64(0)
	for _, s := range res.Shards {
		scanned, pending = scanned+s.EventsScanned, pending+s.Pending
	}
	// Puts of v1 and v2 match nothing (no longer latest); put v3 and the
	// demotions of v1 and v2 are pending.
	if scanned != 5 || pending != 3 {
		t.Fatalf("scanned %d pending %d, want 5 events, 3 pending", scanned, pending)
	}
	if st.lookups != 1 {
		t.Fatalf("%d lookups of one key over %d shards, want 1", st.lookups, len(shards))
	}
}

// racingStore holds the first delete until a second dispatch of the same
// target either waits for it (the pass's claim) or reaches the store
// beside it, so the two shards' dispatches overlap every time.
type racingStore struct {
	*sharedStore
	calls  atomic.Int32
	second chan struct{} // closed by the second LifecycleDelete
	waited chan struct{} // closed when a dispatch waits for the first
}

func (r *racingStore) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	switch r.calls.Add(1) {
	case 1:
		select {
		case <-r.second:
		case <-r.waited:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	case 2:
		close(r.second)
	}
	return r.sharedStore.LifecycleDelete(ctx, req)
}

// One version named by two events that different shards replay is
// deleted once in a real pass too, when the two shards decide it at the
// same time: the second waits for the first's delete instead of sending
// its own beside it, and the report counts one DONE and its bytes once.
func TestTargetDeletedOnceWhenShardsRace(t *testing.T) {
	now := ts("2026-11-30T00:00:00Z")
	st := &racingStore{sharedStore: newSharedStore(), second: make(chan struct{}), waited: make(chan struct{})}
	snap, key := crossShardDemotion(t, st.sharedStore, now, 7)
	var once sync.Once
	res := runStore(t, st, snap, now, func(c *Config) {
		c.WalkerInterval = 48 * time.Hour
		c.onClaimWait = func(string) { once.Do(func() { close(st.waited) }) }
	})
	if res.Status() != StatusOK {
		t.Fatalf("status %s", res.Status())
	}
	if n := st.calls.Load(); n != 1 {
		t.Errorf("%d deletes of b/%s@v1 sent, want 1", n, key)
	}
	var done []string
	var freed int64
	for _, a := range res.Actions {
		done = append(done, fmt.Sprintf("%s@%s %s", a.Key, a.VersionID, a.Outcome))
		freed += a.BytesFreed
	}
	if len(done) != 1 || done[0] != key+"@v1 DONE" || freed != 7 {
		t.Errorf("actions %v freeing %d bytes, want one DONE of v1 freeing 7", done, freed)
	}
}

// crossShardDemotion gives st a key whose noncurrent v1 (size bytes) is
// named by two demotion events that shard apart by filer path (the
// .versions pointer move and the version's own noncurrent stamp, on
// SeaweedFS), due under the returned NoncurrentDays rule, with every
// shard's cursor just before them.
func crossShardDemotion(t *testing.T, st *sharedStore, now time.Time, size int64) (*engine.Snapshot, string) {
	t.Helper()
	snap := snapshotOf("b", filer.VersioningEnabled, lifecycle.Rule{ID: "nc", Enabled: true, NoncurrentDays: 1})
	st.addBucket("b", filer.VersioningEnabled)
	var key string
	for i := 0; ; i++ {
		key = fmt.Sprintf("k%03d", i)
		if lifecycle.ShardID("b", key+".versions") != lifecycle.ShardID("b", key+".versions/v_1") {
			break
		}
	}
	demoted := now.Add(-3 * day)
	st.objects["b"][key] = &filer.Object{Key: key, Versions: []filer.Version{
		{VersionID: "v2", IsLatest: true, MtimeNs: demoted.UnixNano(), Size: 1, ETag: "e2"},
		{VersionID: "v1", MtimeNs: demoted.Add(-day).UnixNano(), Size: size, ETag: "e1", NoncurrentSinceNs: demoted.UnixNano()},
	}}
	st.events = append(st.events,
		filer.Event{TsNs: demoted.UnixNano(), Type: filer.EventDemote, Bucket: "b", Key: key, VersionID: "v1", Path: key + ".versions"},
		filer.Event{TsNs: demoted.UnixNano() + 1, Type: filer.EventDemote, Bucket: "b", Key: key, VersionID: "v1", Path: key + ".versions/v_1"})
	for shard := range lifecycle.ShardCount {
		c := Cursor{TsNs: demoted.Add(-time.Hour).UnixNano(), RuleSetHash: st.worker.RuleSet, PromotedHash: st.worker.Promoted, LastWalkedNs: now.UnixNano()}
		if err := SaveCursor(context.Background(), st, shard, c); err != nil {
			t.Fatal(err)
		}
	}
	return snap, key
}
