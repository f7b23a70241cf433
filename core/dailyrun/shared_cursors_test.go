package dailyrun

import (
	"context"
	"fmt"
	"reflect"
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
	return &sharedStore{fakeStore: newFakeStore(), worker: WorkerHashes{RuleSet: [32]byte{0xaa}, Promoted: [32]byte{0xbb}, TakeOver: true}}
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
// cursor with its own hashes, in both places (the worker reads them as a
// rule edit and walks), and Own, by which it tells its files from the
// worker's. It replays from its own cursor by its own hashes; it takes the
// worker's cursors over only when all of them are the worker's, on rules
// its replay covers, and walks (takeover) otherwise.
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
		want := Cursor{TsNs: c.TsNs, RuleSetHash: ownRS, PromotedHash: ownP, LastWalkedNs: now.UnixNano(),
			Own: OwnHashes{Present: true, RuleSet: ownRS, Promoted: ownP, ByKey: true}}
		if c.Summary == nil || c.Summary.CursorTsNs != c.TsNs {
			t.Fatalf("shard %d cursor saved without its pending summary: %+v", shard, c.Summary)
		}
		c.Summary = nil
		if err != nil || !reflect.DeepEqual(c, want) {
			t.Fatalf("shard %d cursor %+v (%v), want %+v", shard, c, err, want)
		}
	}

	worker := func(st *sharedStore) func(*Cursor) {
		return func(c *Cursor) {
			c.Own, c.RuleSetHash, c.PromotedHash, c.Summary = OwnHashes{}, st.worker.RuleSet, st.worker.Promoted, nil
		}
	}
	const odd = 5 // the shard a case treats apart from the others
	for _, tc := range []struct {
		name       string
		edit       func(st *sharedStore, shard int, c *Cursor) (remove bool)
		noTakeOver bool
		want       RecoveryReason
		wantOdd    RecoveryReason // shard odd's
	}{
		{"ilmctl's own", func(*sharedStore, int, *Cursor) bool { return false }, false, "", ""},
		{"ilmctl's own, the worker's hash changed meanwhile", func(_ *sharedStore, _ int, c *Cursor) bool { c.RuleSetHash[0] = 1; return false }, false, "", ""},
		{"ilmctl's own, its rules changed", func(_ *sharedStore, _ int, c *Cursor) bool { c.Own.RuleSet[0] ^= 1; return false }, false, "rule_edit", "rule_edit"},
		{"ilmctl's own, its partition changed", func(_ *sharedStore, _ int, c *Cursor) bool { c.Own.Promoted[0] ^= 1; return false }, false, "partition_flip", "partition_flip"},
		{"all the worker's, same rules", func(st *sharedStore, _ int, c *Cursor) bool { worker(st)(c); return false }, false, "", ""},
		{"all the worker's, other rules", func(st *sharedStore, _ int, c *Cursor) bool { worker(st)(c); c.RuleSetHash[0] = 1; return false }, false, "rule_edit", "rule_edit"},
		{"all the worker's, other partition", func(st *sharedStore, _ int, c *Cursor) bool { worker(st)(c); c.PromotedHash[0] = 1; return false }, false, "partition_flip", "partition_flip"},
		{"all the worker's, replay it does not cover", func(st *sharedStore, _ int, c *Cursor) bool { worker(st)(c); return false }, true, "rule_edit", "rule_edit"},
		{"the worker's but one ilmctl's", func(st *sharedStore, shard int, c *Cursor) bool {
			if shard != odd {
				worker(st)(c)
			}
			return false
		}, false, "takeover", ""},
		{"the worker's but one on other rules", func(st *sharedStore, shard int, c *Cursor) bool {
			worker(st)(c)
			if shard == odd {
				c.RuleSetHash[0] = 1
			}
			return false
		}, false, "takeover", "rule_edit"},
		{"the worker's but one missing", func(st *sharedStore, shard int, c *Cursor) bool { worker(st)(c); return shard == odd }, false, "takeover", "cold_start"},
		// An ilmctl that sharded replay by filer path, as the worker does,
		// wrote its own hashes without ilmctl_shards.
		{"all an ilmctl's by path", func(_ *sharedStore, _ int, c *Cursor) bool { c.Own.ByKey = false; return false }, false, "", ""},
		{"an ilmctl's by path but one by key", func(_ *sharedStore, shard int, c *Cursor) bool { c.Own.ByKey = shard == odd; return false }, false, "takeover", ""},
		{"an ilmctl's by path and the worker's", func(st *sharedStore, shard int, c *Cursor) bool {
			c.Own.ByKey = false
			if shard == odd {
				worker(st)(c)
			}
			return false
		}, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := setup(t)
			for shard := range lifecycle.ShardCount {
				c, _, err := LoadCursor(context.Background(), st, shard)
				if err != nil {
					t.Fatal(err)
				}
				if tc.edit(st, shard, &c) {
					delete(st.files, CursorPath(shard))
					continue
				}
				if err := SaveCursor(context.Background(), st, shard, c); err != nil {
					t.Fatal(err)
				}
			}
			st.worker.TakeOver = !tc.noTakeOver
			res := runStore(t, st, snap, now.Add(time.Hour), nil)
			for _, s := range res.Shards {
				want := tc.want
				if s.Shard == odd {
					want = tc.wantOdd
				}
				if s.Recovery != want {
					t.Fatalf("shard %d: recovery %q, want %q", s.Shard, s.Recovery, want)
				}
				if want == "" && s.Walk != "" {
					t.Fatalf("shard %d walked (%s) on a cursor it may replay from", s.Shard, s.Walk)
				}
				if !s.CursorSaved || !s.Cursor.Own.Present || !s.Cursor.Own.ByKey || s.Cursor.RuleSetHash != ownRS || s.Cursor.PromotedHash != ownP {
					t.Fatalf("shard %d saved %+v, want ilmctl's own hashes in both places", s.Shard, s.Cursor)
				}
			}
		})
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

// putAt adds version vid as key's latest and its put event, with the
// filer path a SeaweedFS filer's event would carry.
func putAt(f *fakeStore, bucket, key, vid, path string, mtime time.Time, eventAt time.Time) {
	obj := f.objects[bucket][key]
	if obj == nil {
		obj = &filer.Object{Key: key}
		f.objects[bucket][key] = obj
	}
	obj.Versions = append([]filer.Version{{VersionID: vid, IsLatest: true, MtimeNs: mtime.UnixNano(), Size: 1, ETag: "e-" + vid}}, obj.Versions...)
	f.events = append(f.events, filer.Event{TsNs: eventAt.UnixNano(), Type: filer.EventPut, Bucket: bucket, Key: key, VersionID: vid, Path: path})
}

// An event goes to the shard that owns its key, whatever its filer path.
// Taking over the worker's cursors, which it sharded by path, every shard
// replays from the oldest of them: the event is replayed, by the key's
// shard alone, whichever of the two shards' cursors is before it.
func TestReplayShardsByKey(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	at := now.Add(-2 * time.Hour)
	snap := snapshotOf("b", filer.VersioningEnabled, expireDays("r", 1))
	key, path, keyShard, pathShard := keyAway("b", 0)
	for _, tc := range []struct {
		name          string
		keyTs, pathTs time.Time // the two shards' cursors
		wantExpired   bool
	}{
		{"the path's shard is before it", at.Add(time.Minute), at.Add(-time.Minute), true},
		{"the key's shard is before it", at.Add(-time.Minute), at.Add(time.Minute), true},
		{"every shard is past it", at.Add(time.Minute), at.Add(time.Minute), false},
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
				want := int64(0)
				if s.Shard == keyShard && tc.wantExpired {
					want = 1
				}
				if s.EventsScanned != want {
					t.Errorf("shard %d scanned %d events, want %d", s.Shard, s.EventsScanned, want)
				}
			}
		})
	}
}

// A match not yet due holds the cursor of the shard that owns its key, not
// the one its filer path would name.
func TestPendingHoldsTheKeyShard(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	at := now.Add(-2 * time.Hour)
	st := newSharedStore()
	st.addBucket("b", filer.VersioningEnabled)
	key, path, keyShard, pathShard := keyAway("b", 0)
	putAt(st.fakeStore, "b", key, "v1", path, at, at)
	snap := snapshotOf("b", filer.VersioningEnabled, expireDays("r", 1))
	runStore(t, st, snap, now.Add(-3*time.Hour), nil) // cold start before the put
	res := runStore(t, st, snap, now, nil)
	if s := shardOf(res, keyShard); s.Pending != 1 || s.Cursor.TsNs >= at.UnixNano() {
		t.Errorf("key shard %d: pending %d cursor %v, want held before %v", keyShard, s.Pending, time.Unix(0, s.Cursor.TsNs).UTC(), at)
	}
	if s := shardOf(res, pathShard); s.Pending != 0 || s.Cursor.TsNs != now.UnixNano()-1 {
		t.Errorf("path shard %d: pending %d cursor %v, want just before runNow", pathShard, s.Pending, time.Unix(0, s.Cursor.TsNs).UTC())
	}
}

// One version named by two events whose filer paths shard apart (a
// .versions pointer move and the version's own noncurrent stamp, on
// SeaweedFS) is replayed by its key's shard alone, and is one action.
func TestTargetDispatchedOncePerPass(t *testing.T) {
	now := ts("2026-11-30T00:00:00Z")
	st := newSharedStore()
	snap, key := crossShardDemotion(t, st, now, 1)
	for _, dry := range []bool{true, false} {
		st := newSharedStore()
		crossShardDemotion(t, st, now, 7)
		res := runStore(t, st, snap, now, func(c *Config) { c.DryRun = dry })
		for _, s := range res.Shards {
			want := int64(0)
			if s.Shard == lifecycle.ShardID("b", key) {
				want = 2
			}
			if s.EventsScanned != want {
				t.Errorf("dry run %v: shard %d scanned %d events, want %d", dry, s.Shard, s.EventsScanned, want)
			}
		}
		outcome, sends := OutcomeDryRun, 0
		if !dry {
			outcome, sends = "DONE", 1
		}
		if len(res.Actions) != 1 || res.Actions[0].VersionID != "v1" || res.Actions[0].Outcome != outcome || len(st.deletes) != sends {
			t.Fatalf("dry run %v: actions %+v, %d deletes sent; want one %s of v1, %d sent", dry, res.Actions, len(st.deletes), outcome, sends)
		}
		if !dry && res.Actions[0].BytesFreed != 7 {
			t.Errorf("bytes freed %d, want 7 once", res.Actions[0].BytesFreed)
		}
	}
}

// One key's events reach one shard whatever their filer paths, and the
// pass reads the key once.
func TestKeyIsLookedUpOnce(t *testing.T) {
	st := newSharedStore()
	st.addBucket("logs", filer.VersioningEnabled)
	start := ts("2026-11-20T00:00:00Z")
	for i, v := range []string{"v1", "v2", "v3"} {
		st.put("logs", "k", v, start.Add(time.Duration(i)*time.Hour), 1)
	}
	paths := map[int]bool{}
	for i := range st.events {
		ev := &st.events[i]
		ev.Path = "k.versions/v_" + ev.VersionID
		if ev.Type == filer.EventDemote {
			ev.Path = "k.versions"
		}
		paths[lifecycle.ShardID(ev.Bucket, ev.Path)] = true
		if got, want := EventShard(*ev), lifecycle.ShardID("logs", "k"); got != want {
			t.Fatalf("event %+v in shard %d, want the key's, %d", *ev, got, want)
		}
	}
	if len(paths) < 2 {
		t.Fatalf("the key's event paths land in %d shard(s); the test needs several", len(paths))
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
		t.Fatalf("%d lookups of one key, want 1", st.lookups)
	}
}

// After a cold start's recovery walk, the key's shard replays the events
// of a key its walk settled without looking it up; a key with a match not
// yet due is looked up once, and its event holds the cursor.
func TestColdWalkSettlesItsKeys(t *testing.T) {
	now := ts("2026-11-30T00:00:00Z")
	snap := snapshotOf("b", filer.VersioningEnabled, expireDays("r", 10)) // replays from now-11d
	settled, settledPath, _, _ := keyAway("b", 0)
	pending, pendingPath, pendingShard, _ := keyAway("b", 500)
	st := newSharedStore()
	st.addBucket("b", filer.VersioningEnabled)
	putAt(st.fakeStore, "b", settled, "v1", settledPath, now.Add(-10*day-time.Hour), now.Add(-10*day-time.Hour)) // due: the walk deletes it
	putAt(st.fakeStore, "b", pending, "v1", pendingPath, now.Add(-day), now.Add(-day))                           // due in 9 days
	res := runStore(t, st, snap, now, nil)
	// The walk expired the settled key: a delete marker over v1.
	if got, want := st.remaining(), []string{"b/" + settled + "@dm-v1", "b/" + settled + "@v1", "b/" + pending + "@v1"}; !cmp.Equal(got, want) {
		t.Fatalf("remaining %v, want %v", got, want)
	}
	if st.lookups != 1 {
		t.Errorf("%d lookups, want 1 (the pending key)", st.lookups)
	}
	if s := shardOf(res, pendingShard); s.Pending != 1 || s.Cursor.TsNs >= now.Add(-day).UnixNano() {
		t.Errorf("shard %d holding the pending event: pending %d cursor %v", s.Shard, s.Pending, time.Unix(0, s.Cursor.TsNs).UTC())
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
