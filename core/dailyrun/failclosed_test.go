package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// errUnreadable stands for a store's own unparseable-entry error, e.g. a
// latest-version pointer naming a version that does not exist.
var errUnreadable = errors.New("latest-version pointer names a missing version")

// putMarker adds a delete marker as the latest version of key at mtime.
func (f *fakeStore) putMarker(bucket, key, vid string, mtime time.Time) {
	f.put(bucket, key, vid, mtime, 0)
	o := f.objects[bucket][key]
	o.Versions[0].DeleteMarker = true
	o.Versions[0].ETag = ""
}

// keysAvoiding returns n keys "prefix<i>" whose shard is not avoid, so a
// test can assert they finish while avoid's shard halts.
func keysAvoiding(bucket, prefix string, n, avoid int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		k := fmt.Sprintf("%s%03d", prefix, i)
		if lifecycle.ShardID(bucket, k) != avoid {
			out = append(out, k)
		}
	}
	return out
}

func compile(rnd lifecycle.Rounding, bs ...engine.Bucket) *engine.Snapshot {
	return engine.Compile(bs, rnd).Snapshot()
}

// One unreadable key halts the shard that owns it, in every walk kind and
// in replay; every other shard finishes and an unrelated bucket's 32 due
// objects are expired.
func TestUnreadableKeyHaltsOnlyItsShard(t *testing.T) {
	const bad = "e/dang"
	badShard := lifecycle.ShardID("ver", bad)
	now1 := ts("2026-11-30T12:00:00Z")
	now2 := now1.Add(3 * day)
	expireE := lifecycle.Rule{ID: "e", Enabled: true, Filter: lifecycle.Filter{Prefix: "e/"}, ExpirationDays: 1}
	cases := []struct {
		name  string
		rules []lifecycle.Rule
		other lifecycle.Rule // the unrelated bucket's rule
		// setup fills ver before the first pass.
		setup func(st *fakeStore)
		// between runs after a clean first pass, when twoPass is set.
		between func(st *fakeStore)
		// twoPass: a clean first pass, then the key turns unreadable.
		twoPass  bool
		wantWalk WalkKind
	}{
		{
			name:     "recovery walk",
			rules:    []lifecycle.Rule{expireE},
			other:    expireDays("o", 1),
			setup:    func(st *fakeStore) { st.put("ver", bad, "v1", now1.Add(-10*day), 1) },
			wantWalk: WalkRecovery,
		},
		{
			name:  "steady-state walk, ExpiredObjectDeleteMarker",
			rules: []lifecycle.Rule{expireE, {ID: "m", Enabled: true, Filter: lifecycle.Filter{Prefix: "m/"}, ExpiredObjectDeleteMarker: true}},
			other: expireDays("o", 1),
			setup: func(st *fakeStore) {
				st.put("ver", bad, "v1", now1.Add(-time.Hour), 1) // due only by the second pass
				st.putMarker("ver", "m/gone", "d1", now1.Add(-10*day))
			},
			twoPass:  true,
			wantWalk: WalkSteadyState,
		},
		{
			name:  "steady-state walk, NewerNoncurrentVersions",
			rules: []lifecycle.Rule{expireE, {ID: "n", Enabled: true, Filter: lifecycle.Filter{Prefix: "n/"}, NewerNoncurrentVersions: 1}},
			other: expireDays("o", 1),
			setup: func(st *fakeStore) {
				st.put("ver", bad, "v1", now1.Add(-time.Hour), 1)
				st.put("ver", "n/k", "v1", now1.Add(-10*day), 1)
			},
			twoPass:  true,
			wantWalk: WalkSteadyState,
		},
		{
			name:     "empty-replay walk",
			rules:    []lifecycle.Rule{{ID: "m", Enabled: true, ExpiredObjectDeleteMarker: true}},
			other:    lifecycle.Rule{ID: "o", Enabled: true, ExpirationDate: ts("2026-01-01T00:00:00Z")},
			setup:    func(st *fakeStore) {},
			between:  func(st *fakeStore) { st.putMarker("ver", bad, "d1", now1.Add(time.Hour)) },
			twoPass:  true,
			wantWalk: WalkEmptyReplay,
		},
		{
			name:    "replay",
			rules:   []lifecycle.Rule{expireE},
			other:   expireDays("o", 1),
			setup:   func(st *fakeStore) {},
			between: func(st *fakeStore) { st.put("ver", bad, "v1", now1.Add(time.Hour), 1) }, // after the cursors, due by now2
			twoPass: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("ver", filer.VersioningEnabled)
			st.addBucket("other", filer.VersioningOff)
			tc.setup(st)
			snap := compile(lifecycle.RoundAWS,
				engine.Bucket{Name: "ver", Versioning: filer.VersioningEnabled, Rules: tc.rules},
				engine.Bucket{Name: "other", Rules: []lifecycle.Rule{tc.other}})
			now := now1
			if tc.twoPass {
				if res := runPass(t, context.Background(), st, snap, now1, nil); res.Status() != StatusOK {
					t.Fatalf("first pass: %s", res.Heartbeat())
				}
				now = now2
				if tc.between != nil {
					tc.between(st)
				}
			}
			for _, k := range keysAvoiding("other", "o/", 32, badShard) {
				st.put("other", k, "null", now.Add(-2*day), 1)
			}
			st.keyErrs = map[string]error{"ver/" + bad: errUnreadable}

			res := runPass(t, context.Background(), st, snap, now, nil)

			for _, r := range st.remaining() {
				if strings.HasPrefix(r, "other/") {
					t.Errorf("%s was not expired: another shard's bad key stopped it", r)
				}
			}
			for _, s := range res.Shards {
				want := StatusOK
				if s.Shard == badShard {
					want = StatusHalted
				}
				if s.Status != want {
					t.Errorf("shard %d status %s (%s), want %s", s.Shard, s.Status, s.Err, want)
				}
			}
			if s := shardOf(res, badShard); !strings.Contains(fmt.Sprint(s.Err), errUnreadable.Error()) || !strings.Contains(fmt.Sprint(s.Err), bad) {
				t.Errorf("halted shard's error %q does not name the key and the cause", s.Err)
			}
			if tc.wantWalk != "" && shardOf(res, badShard).Walk != tc.wantWalk {
				t.Errorf("walk = %q, want %q", shardOf(res, badShard).Walk, tc.wantWalk)
			}
			if res.Errors() != 1 {
				t.Errorf("errors = %d, want 1", res.Errors())
			}
		})
	}
}

// A key whose layout is ambiguous gets no action, is reported once as a
// notice, and halts nothing: status ok, every cursor saved.
func TestAmbiguousKeyIsNoticeNotHalt(t *testing.T) {
	for _, replay := range []bool{false, true} {
		t.Run(fmt.Sprintf("replay=%v", replay), func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", filer.VersioningSuspended)
			snap := snapshotOf("b", filer.VersioningSuspended, expireDays("r1", 1))
			now := ts("2026-11-30T12:00:00Z")
			written := now.Add(-3 * day)
			if replay {
				runPass(t, context.Background(), st, snap, now, nil)
				written, now = now.Add(time.Hour), now.Add(3*day)
			}
			st.put("b", "k", "null", written, 6<<20)
			st.put("b", "plain", "null", written, 1)
			st.keyErrs = map[string]error{"b/k": fmt.Errorf("%w: k and k.versions/v_null both carry version ID \"null\"", filer.ErrAmbiguousLayout)}

			res := runPass(t, context.Background(), st, snap, now, nil)

			// plain expired: its null version became a null delete marker.
			if got, want := st.remaining(), []string{"b/k@null", "b/plain@null"}; !cmp.Equal(got, want) {
				t.Errorf("remaining = %v, want %v", got, want)
			}
			if !st.objects["b"]["plain"].Versions[0].DeleteMarker {
				t.Error("plain's null version was not expired")
			}
			if res.Status() != StatusOK {
				t.Errorf("status %s, want ok", res.Status())
			}
			want := []Notice{{Kind: NoticeAmbiguousLayout, Shard: lifecycle.ShardID("b", "k"), Bucket: "b", Key: "k"}}
			if !cmp.Equal(res.Notices, want, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Reason" }, cmp.Ignore())) {
				t.Errorf("notices = %+v, want %+v", res.Notices, want)
			}
			if res.AmbiguousKeys() != 1 || len(res.Notices) != 1 || !strings.Contains(res.Notices[0].Reason, "v_null") {
				t.Fatalf("ambiguous keys = %d, notices %+v", res.AmbiguousKeys(), res.Notices)
			}
			for _, s := range res.Shards {
				if !s.CursorSaved {
					t.Errorf("shard %d saved no cursor", s.Shard)
				}
			}
			for _, d := range st.deletes {
				if d.Key == "k" {
					t.Errorf("a delete was sent for the ambiguous key: %+v", d)
				}
			}
		})
	}
}

// A bucket whose listing fails is the bucket's failure alone: the walk goes
// on with the next bucket and expires it; no shard records the walk as
// complete (no cursor), so the next pass walks again.
func TestBucketListingFailureStaysInBucket(t *testing.T) {
	st := newFakeStore()
	st.addBucket("a-broken", filer.VersioningOff)
	st.addBucket("b-fine", filer.VersioningOff)
	now := ts("2026-11-30T12:00:00Z")
	st.put("a-broken", "x", "null", now.Add(-3*day), 1)
	st.put("b-fine", "y", "null", now.Add(-3*day), 1)
	st.listErrs = map[string]error{"a-broken": errTransport}
	snap := compile(lifecycle.RoundAWS,
		engine.Bucket{Name: "a-broken", Rules: []lifecycle.Rule{expireDays("r", 1)}},
		engine.Bucket{Name: "b-fine", Rules: []lifecycle.Rule{expireDays("r", 1)}})

	res := runPass(t, context.Background(), st, snap, now, nil)

	if got, want := st.remaining(), []string{"a-broken/x@null"}; !cmp.Equal(got, want) {
		t.Errorf("remaining = %v, want %v", got, want)
	}
	for _, s := range res.Shards {
		if s.Status != StatusHalted || s.CursorSaved || !strings.Contains(fmt.Sprint(s.Err), "a-broken") {
			t.Errorf("shard %d: status %s saved %v err %q; want halted, no cursor, naming the bucket", s.Shard, s.Status, s.CursorSaved, s.Err)
		}
	}
}

// A cursor never runs ahead of the filer: with the pass clock three days
// after the server's, the meta-log is read only to just before the
// server's time and
// no cursor is saved past it; an object written after that is replayed
// and expired by a later pass. Without a server clock (the embedded
// filer), a quiet shard's cursor moves to the pass clock as before.
func TestCursorNeverPastServerClock(t *testing.T) {
	serverNow := ts("2026-11-30T12:00:00Z")
	runNow := serverNow.Add(3 * day)
	for _, tc := range []struct {
		name      string
		serverNow time.Time
		wantUntil time.Time // the subscription ends 1ns before it
	}{
		{"server clock", serverNow, serverNow},
		{"pass clock only", time.Time{}, runNow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", filer.VersioningOff)
			st.put("b", "old", "null", serverNow.Add(-day), 1)
			snap := snapshotOf("b", filer.VersioningOff, expireDays("r30", 30))
			res := runPass(t, context.Background(), st, snap, runNow, func(c *Config) { c.ServerNow = tc.serverNow })
			if got := st.subscribed[0][1]; got != tc.wantUntil.UnixNano()-1 {
				t.Errorf("subscribed until %v, want %v", time.Unix(0, got).UTC(), tc.wantUntil)
			}
			for _, s := range res.Shards {
				if s.Cursor.TsNs > tc.wantUntil.UnixNano() {
					t.Errorf("shard %d cursor %v is past %v", s.Shard, time.Unix(0, s.Cursor.TsNs).UTC(), tc.wantUntil)
				}
			}
		})
	}

	// The scenario end to end: a pass dated ahead, then an object written
	// (and aged) after it, is still found by replay.
	st := newFakeStore()
	st.addBucket("b", filer.VersioningOff)
	snap := snapshotOf("b", filer.VersioningOff, expireDays("r1", 1))
	runPass(t, context.Background(), st, snap, serverNow, func(c *Config) { c.ServerNow = serverNow })
	runPass(t, context.Background(), st, snap, runNow, func(c *Config) { c.ServerNow = serverNow })
	st.put("b", "late", "null", serverNow.Add(time.Hour), 1)
	later := serverNow.Add(5 * day)
	runPass(t, context.Background(), st, snap, later, func(c *Config) { c.ServerNow = later })
	if got := st.remaining(); len(got) != 0 {
		t.Errorf("remaining = %v: an object written after a future-dated pass was skipped by replay", got)
	}
}

// Every predicate an action was chosen on is re-decided on the store's
// fresh read: a change between listing and delete turns the delete into
// NOOP_RESOLVED and the version stays.
func TestDeleteRechecksWholeRule(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	cases := []struct {
		name   string
		rule   lifecycle.Rule
		setup  func(st *fakeStore)
		change func(o *filer.Object)
		target string // the version that must survive
	}{
		{
			name: "tags",
			rule: lifecycle.Rule{ID: "t", Enabled: true, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "expire", Value: "yes"}}}, ExpirationDays: 1},
			setup: func(st *fakeStore) {
				st.put("b", "k", "v1", now.Add(-3*day), 1000)
				st.objects["b"]["k"].Versions[0].Tags = map[string]string{"expire": "yes"}
			},
			change: func(o *filer.Object) { o.Versions[0].Tags = map[string]string{"expire": "no"} },
			target: "b/k@v1",
		},
		{
			name: "still latest",
			rule: lifecycle.Rule{ID: "e", Enabled: true, ExpirationDays: 1},
			setup: func(st *fakeStore) {
				st.put("b", "k", "v1", now.Add(-3*day), 1)
			},
			change: func(o *filer.Object) {
				o.Versions[0].IsLatest = false
				o.Versions = append([]filer.Version{{VersionID: "v2", IsLatest: true, MtimeNs: now.UnixNano(), Size: 1}}, o.Versions...)
			},
			target: "b/k@v1",
		},
		{
			name: "successor time",
			rule: lifecycle.Rule{ID: "n", Enabled: true, NoncurrentDays: 2},
			setup: func(st *fakeStore) {
				st.put("b", "k", "v1", now.Add(-10*day), 1)
				st.put("b", "k", "v2", now.Add(-5*day), 1)
			},
			// The successor was replaced by one written an hour ago.
			change: func(o *filer.Object) {
				o.Versions[0] = filer.Version{VersionID: "v3", IsLatest: true, MtimeNs: now.Add(-time.Hour).UnixNano(), Size: 1}
				o.Versions[1].NoncurrentSinceNs = now.Add(-time.Hour).UnixNano()
			},
			target: "b/k@v1",
		},
		{
			name: "NewerNoncurrentVersions count",
			rule: lifecycle.Rule{ID: "nn", Enabled: true, NewerNoncurrentVersions: 1},
			setup: func(st *fakeStore) {
				st.put("b", "k", "v1", now.Add(-10*day), 1)
				st.put("b", "k", "v2", now.Add(-9*day), 1)
				st.put("b", "k", "v3", now.Add(-8*day), 1)
			},
			// v2, the one newer noncurrent version, is gone: v1 is now the
			// newest noncurrent and must be kept.
			change: func(o *filer.Object) { o.Versions = append(o.Versions[:1:1], o.Versions[2:]...) },
			target: "b/k@v1",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", filer.VersioningEnabled)
			tc.setup(st)
			st.beforeDelete = func(f *fakeStore, req filer.DeleteRequest) { tc.change(f.objects["b"]["k"]) }
			snap := snapshotOf("b", filer.VersioningEnabled, tc.rule)
			res := runPass(t, context.Background(), st, snap, now, nil)
			if !contains(st.remaining(), tc.target) {
				t.Fatalf("%s was deleted although the rule no longer applied; remaining %v", tc.target, st.remaining())
			}
			for _, a := range res.Actions {
				if a.Outcome != filer.OutcomeNoopResolved {
					t.Errorf("action %+v: outcome %s, want NOOP_RESOLVED", a, a.Outcome)
				}
			}
			if len(res.Actions) == 0 {
				t.Fatal("no action dispatched: the test did not reach the delete")
			}
		})
	}
}

// A store that answers NOOP_RESOLVED while the target is unchanged and
// still due has not resolved anything: the outcome is STUCK, the shard
// halts (exit 3, errors=1), and the version is still there. A NOOP on a
// target that really changed stays NOOP_RESOLVED.
func TestNoopOnUnchangedTargetIsStuck(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	for _, tc := range []struct {
		name    string
		rewrite bool
		want    filer.Outcome
	}{
		{"refused, unchanged", false, filer.OutcomeStuck},
		{"refused, rewritten", true, filer.OutcomeNoopResolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", filer.VersioningOff)
			st.put("b", "mpu", "null", now.Add(-3*day), 6<<20)
			st.script = func(req filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
				if tc.rewrite {
					st.objects["b"]["mpu"].Versions[0].ETag = "rewritten"
				}
				return filer.OutcomeNoopResolved, nil, true // a 412 on a mismatched ETag
			}
			res := runPass(t, context.Background(), st, snapshotOf("b", filer.VersioningOff, expireDays("r", 1)), now, nil)
			if len(res.Actions) != 1 || res.Actions[0].Outcome != tc.want {
				t.Fatalf("actions = %+v, want one %s", res.Actions, tc.want)
			}
			shard := shardOf(res, lifecycle.ShardID("b", "mpu"))
			if stuck := tc.want == filer.OutcomeStuck; stuck != (shard.Status == StatusHalted) || stuck != (res.Errors() == 1) {
				t.Errorf("status %s errors %d for outcome %s", shard.Status, res.Errors(), tc.want)
			}
			if tc.want == filer.OutcomeStuck && !strings.Contains(res.Heartbeat(), "errors=1") {
				t.Errorf("heartbeat %q does not count the stuck delete", res.Heartbeat())
			}
		})
	}
}

// applies re-decides an action from the object alone: each predicate the
// rule depends on, changed, makes it false.
func TestAppliesPredicates(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	gt := int64(100)
	p := newPass(Config{Snapshot: snapshotOf("b", filer.VersioningEnabled), RunNow: now})
	old := now.Add(-10 * day).UnixNano()
	v := func(id string, mtime int64, size int64, tags map[string]string) filer.Version {
		return filer.Version{VersionID: id, MtimeNs: mtime, Size: size, Tags: tags}
	}
	tagged := lifecycle.Rule{ID: "t", Enabled: true, Filter: lifecycle.Filter{Prefix: "k", Tags: []lifecycle.Tag{{Key: "expire", Value: "yes"}}, SizeGreaterThan: &gt}, ExpirationDays: 1}
	yes := map[string]string{"expire": "yes"}
	cases := []struct {
		name string
		rule lifecycle.Rule
		kind lifecycle.ActionKind
		obj  filer.Object
		idx  int
		want bool
	}{
		{"all hold", tagged, lifecycle.ExpirationDays, filer.Object{Key: "k", Versions: []filer.Version{v("a", old, 500, yes)}}, 0, true},
		{"tag changed", tagged, lifecycle.ExpirationDays, filer.Object{Key: "k", Versions: []filer.Version{v("a", old, 500, map[string]string{"expire": "no"})}}, 0, false},
		{"size below the filter", tagged, lifecycle.ExpirationDays, filer.Object{Key: "k", Versions: []filer.Version{v("a", old, 50, yes)}}, 0, false},
		{"no longer latest", tagged, lifecycle.ExpirationDays, filer.Object{Key: "k", Versions: []filer.Version{v("b", now.UnixNano(), 500, yes), v("a", old, 500, yes)}}, 1, false},
		{"rewritten recently", tagged, lifecycle.ExpirationDays, filer.Object{Key: "k", Versions: []filer.Version{v("a", now.UnixNano(), 500, yes)}}, 0, false},
		{"noncurrent, successor old", lifecycle.Rule{ID: "n", Enabled: true, NoncurrentDays: 2}, lifecycle.NoncurrentDays,
			filer.Object{Key: "k", Versions: []filer.Version{v("b", old, 1, nil), v("a", old, 1, nil)}}, 1, true},
		{"noncurrent, successor new", lifecycle.Rule{ID: "n", Enabled: true, NoncurrentDays: 2}, lifecycle.NoncurrentDays,
			filer.Object{Key: "k", Versions: []filer.Version{v("b", now.UnixNano(), 1, nil), v("a", old, 1, nil)}}, 1, false},
		{"newer noncurrent count met", lifecycle.Rule{ID: "nn", Enabled: true, NewerNoncurrentVersions: 1}, lifecycle.NewerNoncurrent,
			filer.Object{Key: "k", Versions: []filer.Version{v("c", old, 1, nil), v("b", old, 1, nil), v("a", old, 1, nil)}}, 2, true},
		{"newer noncurrent count short", lifecycle.Rule{ID: "nn", Enabled: true, NewerNoncurrentVersions: 1}, lifecycle.NewerNoncurrent,
			filer.Object{Key: "k", Versions: []filer.Version{v("c", old, 1, nil), v("a", old, 1, nil)}}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			act := &engine.CompiledAction{Key: engine.ActionKey{Kind: tc.kind}, Rule: &tc.rule}
			if got := p.applies("b", act, tc.kind)(&tc.obj, tc.idx); got != tc.want {
				t.Errorf("applies = %v, want %v", got, tc.want)
			}
		})
	}
}

// A version the deciding rule no longer selects (its NewerNoncurrentVersions
// rank fell) is still deleted when another rule of the bucket selects it
// for the same effect; a rule of another effect does not count.
func TestAppliesAcceptsAnotherRuleOfTheSameEffect(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	old := now.Add(-10 * day).UnixNano()
	newer := lifecycle.Rule{ID: "newer", Enabled: true, NoncurrentDays: 3, NewerNoncurrentVersions: 1}
	obj := filer.Object{Key: "k", Versions: []filer.Version{{VersionID: "b", MtimeNs: old}, {VersionID: "a", MtimeNs: old - 1}}}
	for _, tc := range []struct {
		name  string
		other lifecycle.Rule
		want  bool
	}{
		{"NoncurrentDays due", lifecycle.Rule{ID: "nc7", Enabled: true, NoncurrentDays: 7}, true},
		{"NoncurrentDays not due", lifecycle.Rule{ID: "nc30", Enabled: true, NoncurrentDays: 30}, false},
		{"Expiration only", lifecycle.Rule{ID: "exp1", Enabled: true, ExpirationDays: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapshotOf("b", filer.VersioningEnabled, newer, tc.other)
			p := newPass(Config{Snapshot: snap, RunNow: now})
			var act *engine.CompiledAction
			for _, a := range snap.BucketActions("b") {
				if a.Key.Kind == lifecycle.NewerNoncurrent {
					act = a
				}
			}
			if got := p.applies("b", act, lifecycle.NewerNoncurrent)(&obj, 1); got != tc.want {
				t.Errorf("applies = %v, want %v", got, tc.want)
			}
		})
	}
}

// What a pass writes itself (a delete marker, stamped at the pass clock
// by the embedded filer) is never under the cursor it saves: the next pass
// replays it. The subscription ends strictly before the pass clock.
func TestOwnWritesAtThePassClockAreReplayedNextPass(t *testing.T) {
	st := newFakeStore()
	st.addBucket("b", filer.VersioningOff)
	now := ts("2026-11-30T12:00:00Z")
	snap := snapshotOf("b", filer.VersioningOff, expireDays("r1", 1))
	res := runPass(t, context.Background(), st, snap, now, nil)
	st.put("b", "marker-like", "null", now, 1) // written at exactly the pass clock
	for _, s := range res.Shards {
		if s.Cursor.TsNs >= now.UnixNano() {
			t.Fatalf("shard %d cursor %v is not before the pass clock", s.Shard, time.Unix(0, s.Cursor.TsNs).UTC())
		}
	}
	res = runPass(t, context.Background(), st, snap, now.Add(3*day), nil)
	if got := st.remaining(); len(got) != 0 {
		t.Errorf("remaining %v: an event stamped at the previous pass clock was never replayed", got)
	}
	if shardOf(res, lifecycle.ShardID("b", "marker-like")).EventsScanned != 1 {
		t.Errorf("events scanned %d, want 1", shardOf(res, lifecycle.ShardID("b", "marker-like")).EventsScanned)
	}
}
