package dailyrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// cutStore is a loggedStore (deletes as S3 does them) that cuts the pass
// short as -runtime or Ctrl-C
// would: once afterDone deletes completed DONE, or at the first DONE
// delete after afterListed keys were listed, it cancels the pass's
// context; from then on it answers every call with the context's error,
// as a live store does. It also records every ListObjects call.
type cutStore struct {
	*loggedStore
	cancel context.CancelFunc
	cut

	mu     sync.Mutex
	done   int
	listed int
	calls  []listCall
}

// cut is where cutStore cuts a pass.
type cut struct {
	afterDone   int // 0: never
	afterListed int // 0: never
}

type listCall struct{ bucket, after string }

func (c *cutStore) ListObjects(ctx context.Context, bucket, after string, limit int) ([]filer.Object, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	objs, next, err := c.fakeStore.ListObjects(ctx, bucket, after, limit)
	c.mu.Lock()
	c.calls = append(c.calls, listCall{bucket, after})
	c.listed += len(objs)
	c.mu.Unlock()
	return objs, next, err
}

func (c *cutStore) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	out, err := c.loggedStore.LifecycleDelete(ctx, req)
	if err != nil || out != filer.OutcomeDone {
		return out, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	if (c.afterDone > 0 && c.done >= c.afterDone) || (c.afterListed > 0 && c.listed >= c.afterListed) {
		c.cancel()
	}
	return out, err
}

// resumeFixture is two buckets of due work on every shard: a plain bucket
// whose objects expire and whose uploads are aborted, and a versioned one
// where each key has two due matches (its latest version expires, its
// noncurrent one too), plus one key not due yet.
func resumeFixture() (*loggedStore, *engine.Snapshot) {
	st := newLoggedStore()
	st.addBucket("a", filer.VersioningOff)
	st.addBucket("b", filer.VersioningEnabled)
	old := ts("2026-10-01T00:00:00Z")
	for i := 0; i < 40; i++ {
		st.put("a", fmt.Sprintf("k%02d", i), "v1", old, 1)
		st.put("b", fmt.Sprintf("k%02d", i), "v1", old, 1)
		st.put("b", fmt.Sprintf("k%02d", i), "v2", old.Add(time.Hour), 1)
	}
	for i := 0; i < 6; i++ {
		st.uploads["a"] = append(st.uploads["a"], filer.Upload{Key: fmt.Sprintf("u%d", i), UploadID: "up" + fmt.Sprint(i), Initiated: old})
	}
	st.put("a", "new", "v1", ts("2026-11-29T12:00:00Z"), 1)
	snap := engine.Compile([]engine.Bucket{
		{Name: "a", Versioning: filer.VersioningOff, Rules: []lifecycle.Rule{expireDays("a1", 1), {ID: "mpu", Enabled: true, AbortMPUDays: 2}}},
		{Name: "b", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{expireDays("b30", 30), {ID: "nc", Enabled: true, NoncurrentDays: 1}}},
	}, lifecycle.RoundAWS).Snapshot()
	return st, snap
}

// doneTargets lists the DONE actions of res as bucket/key@version#upload.
func doneTargets(res *Result) []string {
	var out []string
	for _, a := range res.Actions {
		if a.Outcome == filer.OutcomeDone {
			out = append(out, a.Bucket+"/"+a.Key+"@"+a.VersionID+"#"+a.UploadID)
		}
	}
	return out
}

// cutPass runs one pass on st that cutStore cuts as cut says.
func cutPass(t *testing.T, st *loggedStore, snap *engine.Snapshot, now time.Time, c cut, mod func(*Config)) (*Result, *cutStore) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st.clockNs = now.UnixNano()
	cs := &cutStore{loggedStore: st, cancel: cancel, cut: c}
	return runWith(t, ctx, cs, snap, now, mod), cs
}

// A cold pass cut into several passes ends where one uncut cold pass ends:
// the same versions remain, the same targets are deleted, none twice, and
// a later pass does not list again what an earlier one walked: a bucket a
// shard finished is not listed, and another is listed from the saved
// position on.
func TestCutColdPassEndsLikeAnUncutOne(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards []int
		cut    cut
	}{
		{"all shards, cut every 3 deletes", nil, cut{afterDone: 3}},
		{"all shards, cut every 25 deletes", nil, cut{afterDone: 25}},
		{"all shards, cut after 30 listed keys", nil, cut{afterListed: 30}},
		{"one shard, cut every 2 deletes", []int{lifecycle.ShardID("a", "k00")}, cut{afterDone: 2}},
		{"one shard, cut after 7 listed keys", []int{lifecycle.ShardID("b", "k03")}, cut{afterListed: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := ts("2026-11-30T12:00:00Z")
			shards := func(c *Config) { c.Shards = tc.shards }

			ref, snap := resumeFixture()
			uncut, _ := cutPass(t, ref, snap, now, cut{}, shards)
			if uncut.Status() != StatusOK {
				t.Fatalf("uncut pass: %s", uncut.Status())
			}
			wantDone := sortStrings(doneTargets(uncut))

			st, snap := resumeFixture()
			var done []string
			passes := 0
			for ; passes < 200; passes++ {
				var before map[int]WalkState
				if len(tc.shards) == 1 {
					before = map[int]WalkState{}
					if w, ok, err := LoadWalkState(context.Background(), st, tc.shards[0]); err != nil {
						t.Fatal(err)
					} else if ok {
						before[tc.shards[0]] = w
					}
				}
				res, cs := cutPass(t, st, snap, now.Add(time.Duration(passes)*time.Minute), tc.cut, shards)
				done = append(done, doneTargets(res)...)
				for _, s := range res.Shards {
					if s.Status == StatusHalted || s.Status == StatusError {
						t.Fatalf("pass %d shard %d: %s (%v)", passes, s.Shard, s.Status, s.Err)
					}
					if s.Status == StatusCancelled && !s.CursorSaved && !s.WalkSaved {
						t.Fatalf("pass %d shard %d cut short saved neither a cursor nor a walk position", passes, s.Shard)
					}
				}
				for _, w := range before {
					if !w.Complete {
						checkListedFrom(t, w, cs.calls)
					}
				}
				if res.Status() == StatusOK {
					break
				}
			}
			if passes < 2 {
				t.Fatalf("the pass was cut %d times; the cut did not cut", passes)
			}
			if got, want := st.remaining(), ref.remaining(); !cmp.Equal(got, want) {
				t.Fatalf("after %d cut passes remaining %v, want %v", passes+1, got, want)
			}
			if got := sortStrings(done); !cmp.Equal(got, wantDone) {
				t.Fatalf("DONE targets differ (a duplicate means one deleted twice):\n%s", cmp.Diff(wantDone, got))
			}
			for _, id := range tc.shards {
				if w, ok, _ := LoadWalkState(context.Background(), st, id); ok && !w.Complete {
					t.Errorf("shard %d: walk position left unfinished after the walk completed: %+v", id, w)
				}
			}
		})
	}
}

// checkListedFrom checks that a pass continuing w listed no bucket whose
// objects w finished and listed every other from w's position on.
func checkListedFrom(t *testing.T, w WalkState, calls []listCall) {
	t.Helper()
	first := map[string]string{}
	for _, c := range calls {
		if _, ok := first[c.bucket]; !ok {
			first[c.bucket] = c.after
		}
	}
	for bucket, after := range first {
		pos := w.Buckets[bucket]
		if pos.ObjectsDone {
			t.Errorf("bucket %s listed again (from %q) after the walk finished it", bucket, after)
		} else if after != pos.ObjectsAfter {
			t.Errorf("bucket %s listed from %q, want from the saved position %q", bucket, after, pos.ObjectsAfter)
		}
	}
}

// A rule edit between two attempts of a recovery walk starts it over from
// the first key, and the walk's file then carries the new hashes; the
// same rules continue it.
func TestRuleEditRestartsAnUnfinishedWalk(t *testing.T) {
	_, snap := resumeFixture()
	edited := engine.Compile([]engine.Bucket{
		{Name: "a", Versioning: filer.VersioningOff, Rules: []lifecycle.Rule{expireDays("a1", 2), {ID: "mpu", Enabled: true, AbortMPUDays: 2}}},
		{Name: "b", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{expireDays("b30", 30), {ID: "nc", Enabled: true, NoncurrentDays: 1}}},
	}, lifecycle.RoundAWS).Snapshot()
	for _, tc := range []struct {
		name        string
		second      *engine.Snapshot
		wantResumed bool
	}{
		{"same rules continue", snap, true},
		{"edited rules start over", edited, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, snap := resumeFixture()
			shard := lifecycle.ShardID("a", "k05")
			now := ts("2026-11-30T12:00:00Z")
			only := func(c *Config) { c.Shards = []int{shard}; c.InFlight = 1 }
			res, _ := cutPass(t, st, snap, now, cut{afterDone: 2}, only)
			if s := shardOf(res, shard); s.Status != StatusCancelled || !s.WalkSaved {
				t.Fatalf("first attempt: %s walk saved %v", s.Status, s.WalkSaved)
			}
			first, _, err := LoadWalkState(context.Background(), st, shard)
			if err != nil || first.Buckets["a"].ObjectsAfter == "" {
				t.Fatalf("first attempt saved %+v, %v; want a position in bucket a", first, err)
			}
			res, cs := cutPass(t, st, tc.second, now.Add(time.Hour), cut{}, only)
			s := shardOf(res, shard)
			if s.Status != StatusOK || s.WalkResumed != tc.wantResumed || s.Recovery != RecoveryColdStart {
				t.Fatalf("second attempt: %s resumed %v recovery %s, want ok resumed %v cold_start", s.Status, s.WalkResumed, s.Recovery, tc.wantResumed)
			}
			fromStart := cs.calls[0] == listCall{"a", ""}
			if fromStart == tc.wantResumed {
				t.Errorf("second attempt listed bucket a first from %q (saved position %q)", cs.calls[0].after, first.Buckets["a"].ObjectsAfter)
			}
			last, _, err := LoadWalkState(context.Background(), st, shard)
			if err != nil || !last.Complete || last.Hashes != stampHashes(newPass(Config{Store: st, Snapshot: tc.second, RunNow: now}).stamp) {
				t.Errorf("walk file after the completed walk: %+v, %v; want complete under the second pass's hashes", last, err)
			}
			if want := now.UnixNano() - int64(engine.MaxEffectiveTTL(tc.second)); !tc.wantResumed && last.FloorNs == want {
				t.Errorf("a restarted walk kept the old floor")
			}
		})
	}
}

// A recovery walk's position never passes a key whose delete did not
// complete: the shard halts with its position before the key, and the
// walk resumed by the next pass dispatches the key again.
func TestWalkPositionStopsBeforeAnIncompleteDelete(t *testing.T) {
	for _, out := range []filer.Outcome{filer.OutcomeRetryLater, filer.OutcomeStuck, filer.OutcomeBlocked} {
		t.Run(string(out), func(t *testing.T) {
			st, snap := resumeFixture()
			shard := lifecycle.ShardID("a", "k07")
			var keys []string
			for i := 0; i < 40; i++ {
				if k := fmt.Sprintf("k%02d", i); lifecycle.ShardID("a", k) == shard {
					keys = append(keys, k)
				}
			}
			if len(keys) < 2 {
				t.Fatalf("shard %d holds %d keys of bucket a", shard, len(keys))
			}
			bad := keys[1]
			st.script = func(r filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
				return out, nil, r.Bucket == "a" && r.Key == bad
			}
			now := ts("2026-11-30T12:00:00Z")
			only := func(c *Config) { c.Shards = []int{shard} }
			res, _ := cutPass(t, st, snap, now, cut{}, only)
			if s := shardOf(res, shard); s.Status != StatusHalted || s.CursorSaved || !s.WalkSaved {
				t.Fatalf("halting attempt: %s cursor saved %v walk saved %v", s.Status, s.CursorSaved, s.WalkSaved)
			}
			w, _, err := LoadWalkState(context.Background(), st, shard)
			if err != nil || w.Buckets["a"].ObjectsDone || w.Buckets["a"].ObjectsAfter >= bad {
				t.Fatalf("saved %+v, %v; want bucket a's position before %s", w.Buckets["a"], err, bad)
			}
			st.script = nil
			res, _ = cutPass(t, st, snap, now.Add(time.Hour), cut{}, only)
			s := shardOf(res, shard)
			if s.Status != StatusOK || !s.WalkResumed || !s.CursorSaved {
				t.Fatalf("resumed attempt: %s resumed %v cursor saved %v", s.Status, s.WalkResumed, s.CursorSaved)
			}
			if !contains(doneTargets(res), "a/"+bad+"@v1#") {
				t.Fatalf("the resumed walk did not dispatch %s again: %v", bad, doneTargets(res))
			}
			if contains(doneTargets(res), "a/"+keys[0]+"@v1#") {
				t.Errorf("the resumed walk dispatched %s, before its saved position, again", keys[0])
			}
		})
	}
}

// A resumed recovery walk keeps its first attempt's floor: an object put
// after the first attempt, on a key the walk had already passed, and
// before the second attempt's own floor (runNow - maxTTL), is found only
// by replaying from the first attempt's floor. A cold start replays from
// it, looking up every key (the cold-start optimisation would settle the
// key as walked); a rule edit rewinds the cursor to it.
func TestResumedWalkKeepsTheFirstFloor(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit bool
	}{
		{"cold start", false},
		{"rule edit", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newLoggedStore()
			st.addBucket("logs", filer.VersioningOff)
			shard := lifecycle.ShardID("logs", "k-0")
			var walked []string
			late := ""
			for i := 0; len(walked) < 6 || late == ""; i++ {
				if k := fmt.Sprintf("k-%d", i); lifecycle.ShardID("logs", k) == shard && len(walked) < 6 {
					walked = append(walked, k)
				}
				if k := fmt.Sprintf("a-%d", i); lifecycle.ShardID("logs", k) == shard && late == "" {
					late = k // sorts before every walked key
				}
			}
			t1 := ts("2026-11-10T12:00:00Z")
			for _, k := range walked {
				st.put("logs", k, "v1", t1.Add(-5*day), 1)
			}
			rule := expireDays("r", 1) // maxTTL 2 days
			snap := snapshotOf("logs", filer.VersioningOff, rule)
			only := func(c *Config) { c.Shards = []int{shard}; c.InFlight = 1 }
			if tc.edit {
				cutPass(t, st, snapshotOf("logs", filer.VersioningOff, expireDays("r", 90)), t1.Add(-time.Hour), cut{}, only)
			}
			floor1 := t1.UnixNano() - int64(engine.MaxEffectiveTTL(snap))
			res, _ := cutPass(t, st, snap, t1, cut{afterDone: 2}, only)
			if s := shardOf(res, shard); s.Status != StatusCancelled || !s.WalkSaved {
				t.Fatalf("first attempt: %s walk saved %v", s.Status, s.WalkSaved)
			}
			if w, _, _ := LoadWalkState(context.Background(), st, shard); w.FloorNs != floor1 || w.Buckets["logs"].ObjectsAfter <= late {
				t.Fatalf("first attempt saved floor %v position %q", time.Unix(0, w.FloorNs).UTC(), w.Buckets["logs"].ObjectsAfter)
			}
			// Put after the first attempt, due 2026-11-12: before the
			// second attempt's floor 2026-11-11T12:00.
			st.put("logs", late, "v1", t1.Add(time.Hour), 1)
			t2 := ts("2026-11-13T12:00:00Z")
			if t2.UnixNano()-int64(engine.MaxEffectiveTTL(snap)) <= t1.Add(time.Hour).UnixNano() {
				t.Fatal("the late put is inside the second attempt's own window: the case proves nothing")
			}
			res, _ = cutPass(t, st, snap, t2, cut{}, only)
			s := shardOf(res, shard)
			if s.Status != StatusOK || !s.WalkResumed {
				t.Fatalf("second attempt: %s resumed %v (%v)", s.Status, s.WalkResumed, s.Err)
			}
			if tc.edit {
				if s.Cursor.TsNs != floor1 || s.Recovery != RecoveryRuleEdit {
					t.Fatalf("rule edit rewound to %v, want the first attempt's floor %v", time.Unix(0, s.Cursor.TsNs).UTC(), time.Unix(0, floor1).UTC())
				}
				cutPass(t, st, snap, t2.Add(time.Hour), cut{}, only)
			} else if got := st.subscribed[len(st.subscribed)-1][0]; got != floor1 {
				t.Fatalf("cold start replayed from %v, want the first attempt's floor %v", time.Unix(0, got).UTC(), time.Unix(0, floor1).UTC())
			}
			if left := st.remaining(); len(left) != 0 {
				t.Fatalf("remaining %v: the late put was missed", left)
			}
		})
	}
}

func TestWalkStateRoundTrip(t *testing.T) {
	w := WalkState{Recovery: RecoveryRuleEdit, FloorNs: 10, StartedNs: 20, Complete: false,
		Buckets: map[string]BucketPos{"a": {ObjectsAfter: "k\x00x", ObjectsDone: false, UploadsDone: true}, "b": {ObjectsDone: true}}}
	w.Hashes.RuleSet[0], w.Hashes.Promoted[31] = 1, 2
	w.Hashes.Shared, w.Hashes.WorkerRuleSet[3] = true, 4
	got, err := DecodeWalkState(EncodeWalkState(w, 9), 9)
	if err != nil || !cmp.Equal(got, w, cmp.AllowUnexported(walkHashes{})) {
		t.Fatalf("round trip = %+v, %v; want %+v", got, err, w)
	}
}

// The walk-position file decodes strictly; a corrupt one halts only its
// shard with status error and is left as it is.
func TestDecodeWalkStateStrict(t *testing.T) {
	zero := `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`
	file := func(fields string) string {
		return `{"version":1,"shard_id":3,"walk":"recovery","recovery":"cold_start","floor_ns":1,"started_ns":2,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"buckets":{}` + fields + `}`
	}
	if _, err := DecodeWalkState([]byte(file("")), 3); err != nil {
		t.Fatalf("valid file: %v", err)
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "empty"},
		{"not json", "{", "unexpected EOF"},
		{"unknown field", file(`,"x":1`), "unknown field"},
		{"unknown bucket field", strings.Replace(file(""), `"buckets":{}`, `"buckets":{"a":{"after":"k"}}`, 1), "unknown field"},
		{"wrong version", strings.Replace(file(""), `"version":1`, `"version":2`, 1), "version 2"},
		{"wrong shard", strings.Replace(file(""), `"shard_id":3`, `"shard_id":4`, 1), "shard 4"},
		{"steady walk", strings.Replace(file(""), `"walk":"recovery"`, `"walk":"steady_state"`, 1), "only recovery walks"},
		{"unknown reason", strings.Replace(file(""), `"cold_start"`, `"tuesday"`, 1), "not a recovery reason"},
		{"floor after start", strings.Replace(file(""), `"floor_ns":1`, `"floor_ns":3`, 1), "floor_ns 3"},
		{"short hash", strings.Replace(file(""), `"rule_set_hash":`+zero, `"rule_set_hash":"AAAA"`, 1), "3 and 32 bytes"},
		{"one worker hash", file(`,"worker_rule_set_hash":` + zero), "come together"},
		{"no buckets", strings.Replace(file(""), `,"buckets":{}`, ``, 1), "buckets is missing"},
		{"trailing data", file("") + " {}", "trailing"},
	} {
		_, err := DecodeWalkState([]byte(tc.data), 3)
		if !errors.Is(err, ErrCorruptWalkState) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrCorruptWalkState mentioning %q", tc.name, err, tc.want)
		}
	}

	st, snap := resumeFixture()
	bad := lifecycle.ShardID("a", "k00")
	corrupt := []byte(strings.Replace(file(""), `"shard_id":3`, fmt.Sprintf(`"shard_id":%d`, bad+1), 1))
	st.files[WalkPath(bad)] = corrupt
	res, _ := cutPass(t, st, snap, ts("2026-11-30T12:00:00Z"), cut{}, nil)
	if s := shardOf(res, bad); s.Status != StatusError || !errors.Is(s.Err, ErrCorruptWalkState) || s.CursorSaved {
		t.Fatalf("shard with a corrupt walk file: %s %v cursor saved %v", s.Status, s.Err, s.CursorSaved)
	}
	if res.ShardErrors() != 1 || !contains(st.remaining(), "a/k00@v1") {
		t.Fatalf("errors %d; the corrupt shard's keys must stay: remaining %v", res.ShardErrors(), st.remaining())
	}
	if string(st.files[WalkPath(bad)]) != string(corrupt) {
		t.Fatal("the corrupt walk file was rewritten")
	}
}

// A dry run cut short writes no walk position, and one that finds an
// unfinished walk continues it without writing.
func TestDryRunWritesNoWalkPosition(t *testing.T) {
	st, snap := resumeFixture()
	now := ts("2026-11-30T12:00:00Z")
	cutPass(t, st, snap, now, cut{afterListed: 10}, func(c *Config) { c.DryRun = true })
	if len(st.files) != 0 {
		t.Fatalf("dry run wrote %d files", len(st.files))
	}
	shard := lifecycle.ShardID("a", "k05")
	cutPass(t, st, snap, now, cut{afterDone: 2}, func(c *Config) { c.Shards = []int{shard} })
	saved, savedKeys := string(st.files[WalkPath(shard)]), string(st.files[WalkKeysPath(shard)])
	res, _ := cutPass(t, st, snap, now.Add(time.Hour), cut{}, func(c *Config) { c.Shards = []int{shard}; c.DryRun = true })
	if s := shardOf(res, shard); !s.WalkResumed || s.WalkSaved || string(st.files[WalkPath(shard)]) != saved || string(st.files[WalkKeysPath(shard)]) != savedKeys {
		t.Fatalf("dry run over an unfinished walk: resumed %v saved %v, files changed %v", s.WalkResumed, s.WalkSaved,
			string(st.files[WalkPath(shard)]) != saved || string(st.files[WalkKeysPath(shard)]) != savedKeys)
	}
	var names []string
	for p := range st.files {
		names = append(names, p)
	}
	sort.Strings(names)
	// The cut pass saved its position and the keys it left for replay.
	if !cmp.Equal(names, []string{WalkPath(shard), WalkKeysPath(shard)}) {
		t.Fatalf("files %v", names)
	}
}

// The pass that completes a cold walk begun in earlier passes skips the
// lookups those passes settled, as an uncut pass skips the ones its own
// walk settled: of the quiet keys a/aqN, whose matches are not due, only
// those decided before the first of them froze the shard's cursor are
// looked up (at most replayWindow+1: lookups start that far ahead); the
// others are marked pending unread. It still looks up and decides a key whose
// match came due since its pass walked it (a/ajdue), and one written since
// (a/ak@v9). Without the keys file, or with its entries out of order,
// every key is looked up, and the pass ends the same. One shard, so the cut passes and the order of its events
// are the same in both runs.
func TestResumedColdWalkSkipsWhatEarlierPassesSettled(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	later := now.Add(24 * time.Hour) // a/ajdue (due 12-01) is due, the a/aqN (due 12-02) are not
	shard := lifecycle.ShardID("a", "ajdue")
	inShard := func(prefix string, n int) []string {
		var keys []string
		for i := 0; len(keys) < n; i++ {
			if k := fmt.Sprintf("%s%03d", prefix, i); lifecycle.ShardID("a", k) == shard {
				keys = append(keys, k)
			}
		}
		return keys
	}
	quiet, written := inShard("aq", 3*replayWindow), inShard("ak", 1)[0]
	last := slices.Max(append([]string{written, "ajdue"}, quiet...))
	type outcome struct {
		lookedUp  []string
		remaining []string
		replayed  []string
	}
	// file: "keep" the keys file, "drop" it, or "scramble" its entries
	// (two swapped: out of hash order, so not used).
	run := func(t *testing.T, file string) outcome {
		st, snap := resumeFixture()
		for _, k := range quiet {
			st.put("a", k, "v1", now.Add(-time.Hour), 1)
		}
		// ajdue's match is due at later, and its event comes after the
		// quiet keys', one of which has frozen the shard's cursor.
		st.put("a", "ajdue", "v1", ts("2026-11-29T12:00:00Z"), 1)
		st.events[len(st.events)-1].TsNs = now.Add(-30 * time.Minute).UnixNano()
		st.put("a", written, "v1", ts("2026-10-01T00:00:00Z"), 1)
		mod := func(c *Config) { c.Shards = []int{shard} }
		for i := 0; ; i++ {
			res, _ := cutPass(t, st, snap, now, cut{afterDone: 1}, mod)
			if w, ok, _ := LoadWalkState(context.Background(), st, shard); ok && w.Buckets["a"].ObjectsAfter >= last {
				break
			}
			if res.Status() == StatusOK || i == 100 {
				t.Fatalf("pass %d: %s before the a/a* keys were walked by a cut pass", i, res.Status())
			}
		}
		// v9 is due (its mtime is a month old) but written after the cut
		// passes walked the key.
		st.put("a", written, "v9", ts("2026-10-01T00:00:00Z"), 1)
		st.events[len(st.events)-1].TsNs = now.Add(time.Minute).UnixNano()
		if _, ok := st.files[WalkKeysPath(shard)]; !ok {
			t.Fatal("the cut passes saved no keys file")
		}
		switch data := st.files[WalkKeysPath(shard)]; file {
		case "drop":
			delete(st.files, WalkKeysPath(shard))
		case "scramble":
			body := bytes.IndexByte(data, '\n') + 1
			if len(data)-body < 2*entrySize {
				t.Fatalf("keys file holds %d bytes of entries", len(data)-body)
			}
			first := slices.Clone(data[body : body+entrySize])
			copy(data[body:], data[body+entrySize:body+2*entrySize])
			copy(data[body+entrySize:], first)
		}
		st.lookedUp = nil
		res, _ := cutPass(t, st, snap, later, cut{}, mod)
		if res.Status() != StatusOK {
			t.Fatalf("completing pass: %s", res.Status())
		}
		var replayed []string
		for _, a := range res.Actions {
			if a.Source == SourceReplay && a.Outcome == filer.OutcomeDone {
				replayed = append(replayed, a.Bucket+"/"+a.Key+"@"+a.VersionID)
			}
		}
		var quietLooked []string
		for _, k := range st.lookedUp {
			if strings.HasPrefix(k, "a/aq") {
				quietLooked = append(quietLooked, k)
			}
		}
		return outcome{quietLooked, sortStrings(st.remaining()), sortStrings(replayed)}
	}
	kept, dropped, scrambled := run(t, "keep"), run(t, "drop"), run(t, "scramble")
	for _, o := range []outcome{kept, dropped, scrambled} {
		for _, want := range []string{"a/ajdue@v1", "a/" + written + "@v9"} {
			if !contains(o.replayed, want) {
				t.Errorf("replay did not delete %s: it deleted %v", want, o.replayed)
			}
		}
	}
	if !cmp.Equal(kept.remaining, dropped.remaining) || !cmp.Equal(kept.replayed, dropped.replayed) {
		t.Errorf("the keys file changed the pass: remaining\n%s\nreplayed\n%s",
			cmp.Diff(dropped.remaining, kept.remaining), cmp.Diff(dropped.replayed, kept.replayed))
	}
	if len(kept.lookedUp) > replayWindow+1 || len(dropped.lookedUp) != len(quiet) || len(scrambled.lookedUp) != len(quiet) {
		t.Errorf("quiet keys looked up: %d with the keys file (want at most %d), %d without, %d with it scrambled (want all %d)",
			len(kept.lookedUp), replayWindow+1, len(dropped.lookedUp), len(scrambled.lookedUp), len(quiet))
	}
	if !cmp.Equal(scrambled.remaining, dropped.remaining) || !cmp.Equal(scrambled.replayed, dropped.replayed) {
		t.Errorf("a scrambled keys file changed the pass")
	}
}

// A keys file is used only for the walk it was saved for, and only whole:
// anything else is ignored (the keys are looked up), never an error.
func TestDecodeWalkKeysIgnoresWhatIsNotItsWalk(t *testing.T) {
	w := WalkState{StartedNs: 100, FloorNs: 50}
	w.Hashes.RuleSet[0], w.Hashes.Promoted[0] = 1, 2
	header := func(edit func(*walkKeysHeader)) []byte {
		h := walkKeysHeader{Version: walkKeysVersion, ShardID: 3, StartedNs: 100, FloorNs: 50,
			RuleSetHash: w.Hashes.RuleSet[:], PromotedHash: w.Hashes.Promoted[:],
			Attempts: []walkAttempt{{RunNowNs: 100, Buckets: map[string]attemptRange{"a": {Through: "k"}}}}, Entries: 1}
		if edit != nil {
			edit(&h)
		}
		data, _ := json.Marshal(h)
		return append(data, '\n')
	}
	entry := make([]byte, entrySize)
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"its walk", append(header(nil), entry...), true},
		{"another shard", append(header(func(h *walkKeysHeader) { h.ShardID = 4 }), entry...), false},
		{"another walk", append(header(func(h *walkKeysHeader) { h.StartedNs = 99 }), entry...), false},
		{"another floor", append(header(func(h *walkKeysHeader) { h.FloorNs = 49 }), entry...), false},
		{"other rules", append(header(func(h *walkKeysHeader) { h.RuleSetHash = make([]byte, 32) }), entry...), false},
		{"another version", append(header(func(h *walkKeysHeader) { h.Version = 2 }), entry...), false},
		{"entries cut short", append(header(nil), entry[:entrySize-1]...), false},
		{"more entries than said", append(header(nil), append(entry, entry...)...), false},
		{"an attempt without a clock", append(header(func(h *walkKeysHeader) { h.Attempts[0].RunNowNs = 0 }), entry...), false},
		{"unknown field", append([]byte(strings.Replace(string(header(nil)), `"version"`, `"x":1,"version"`, 1)), entry...), false},
		{"no header line", entry, false},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attempts, entries, ok := decodeWalkKeys(tc.data, 3, w)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if ok && (len(attempts) != 1 || len(entries) != entrySize) {
				t.Fatalf("%d attempts, %d bytes of entries", len(attempts), len(entries))
			}
		})
	}
}
