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
)

func TestResumePoint(t *testing.T) {
	buckets := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name  string
		saved map[string]BucketPos
		want  *WalkPoint
	}{
		{"nothing saved: the first bucket from its start", nil, &WalkPoint{Bucket: "a"}},
		{"inside the first bucket", map[string]BucketPos{"a": {ObjectsAfter: "k07"}}, &WalkPoint{Bucket: "a", After: "k07"}},
		{"first bucket done", map[string]BucketPos{"a": {ObjectsDone: true, UploadsDone: true}, "b": {ObjectsAfter: "x"}}, &WalkPoint{Bucket: "b", After: "x"}},
		{"objects done, uploads not", map[string]BucketPos{"a": {ObjectsDone: true}}, &WalkPoint{Bucket: "a", Uploads: true}},
		{"a later bucket's position does not count before an earlier unfinished one",
			map[string]BucketPos{"a": {ObjectsDone: true, UploadsDone: true}, "c": {ObjectsAfter: "z"}}, &WalkPoint{Bucket: "b"}},
		{"every bucket done", map[string]BucketPos{"a": {ObjectsDone: true, UploadsDone: true}, "b": {ObjectsDone: true, UploadsDone: true},
			"c": {ObjectsDone: true, UploadsDone: true}}, nil},
	} {
		if got := resumePoint(buckets, tc.saved); !cmp.Equal(got, tc.want) {
			t.Errorf("%s: resumePoint = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// shardKeys counts, per shard, the keys of resumeFixture's buckets and
// uploads: what a whole walk of the shard lists.
func shardKeys(st *loggedStore) map[int]int64 {
	n := map[int]int64{}
	for bucket, objs := range st.objects {
		for key := range objs {
			n[lifecycle.ShardID(bucket, key)]++
		}
	}
	for bucket, ups := range st.uploads {
		for _, up := range ups {
			n[lifecycle.ShardID(bucket, up.Key)]++
		}
	}
	return n
}

// An uncut walk reports, per shard, every key of the shard listed and
// every bucket of its view done: the recovery walk of a cold start and a
// steady-state walk alike. A shard that did not walk reports nothing.
func TestWalkProgressOfAWholeWalk(t *testing.T) {
	now := ts("2026-11-30T12:00:00Z")
	st, snap := resumeFixture()
	want := shardKeys(st)
	cold, _ := cutPass(t, st, snap, now, cut{}, nil)
	// A walked rule (ExpirationDate, not due) beside a replayed one: the
	// day after the cold pass its steady-state walk is due (no interval),
	// an hour later with a day's interval it is not.
	wst := newLoggedStore()
	wst.addBucket("w", filer.VersioningOff)
	for i := 0; i < 50; i++ {
		wst.put("w", fmt.Sprintf("k%02d", i), "v1", now.Add(-time.Hour), 1)
	}
	date := lifecycle.Rule{ID: "date", Enabled: true, ExpirationDate: ts("2027-06-01T00:00:00Z")}
	wsnap := snapshotOf("w", filer.VersioningOff, date, expireDays("days", 30))
	cutPass(t, wst, wsnap, now, cut{}, nil)
	steady, _ := cutPass(t, wst, wsnap, now.Add(day), cut{}, nil)
	none, _ := cutPass(t, wst, wsnap, now.Add(day+time.Hour), cut{}, func(c *Config) { c.WalkerInterval = day })
	for _, tc := range []struct {
		name     string
		res      *Result
		walk     WalkKind
		keys     map[int]int64
		buckets  int
		heartbit string
	}{
		{"cold start", cold, WalkRecovery, want, 2, "walk_keys=87 walk_shards_done=16/16"},
		{"steady state", steady, WalkSteadyState, shardKeys(wst), 1, "walk_keys=50 walk_shards_done=16/16"},
		{"no walk", none, "", map[int]int64{}, 0, "walk_keys=0 walk_shards_done=0/0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.res.Status() != StatusOK {
				t.Fatalf("pass %s", tc.res.Status())
			}
			for _, s := range tc.res.Shards {
				if s.Walk != tc.walk || s.WalkKeys != tc.keys[s.Shard] || s.WalkBucketsDone != tc.buckets || s.WalkBuckets != tc.buckets {
					t.Errorf("shard %d: walk %q keys %d buckets %d/%d; want %q, %d, %d/%d", s.Shard, s.Walk, s.WalkKeys,
						s.WalkBucketsDone, s.WalkBuckets, tc.walk, tc.keys[s.Shard], tc.buckets, tc.buckets)
				}
				if s.WalkResumed || s.WalkResumedFrom != nil {
					t.Errorf("shard %d: resumed %v from %+v in an uncut walk", s.Shard, s.WalkResumed, s.WalkResumedFrom)
				}
			}
			if hb := tc.res.Heartbeat(); tc.heartbit != "" && !strings.Contains(hb, tc.heartbit) {
				t.Errorf("heartbeat %q lacks %q", hb, tc.heartbit)
			}
		})
	}
}

// A recovery walk cut into several passes reports, pass after pass, where
// it picked up (the first bucket its saved position had not finished, and
// the key in it), buckets done that never go down and reach every bucket
// with the pass that completes it, and a saved position on every pass
// but that one.
func TestWalkProgressAcrossCutPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  string // a key of bucket a whose shard walks alone
		cut  cut
	}{
		{"cut every delete", "k00", cut{afterDone: 1}},
		{"cut every 3 deletes", "k05", cut{afterDone: 3}},
		{"cut after 9 listed keys", "k03", cut{afterListed: 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, snap := resumeFixture()
			shard := lifecycle.ShardID("a", tc.key)
			total := shardKeys(st)[shard]
			only := func(c *Config) { c.Shards = []int{shard}; c.InFlight = 1 }
			now := ts("2026-11-30T12:00:00Z")
			order := engine.RecoveryView(snap).BucketNames()
			var keys int64
			prevDone, passes := 0, 0
			for ; passes < 100; passes++ {
				saved, found, err := LoadWalkState(context.Background(), st, shard)
				if err != nil {
					t.Fatal(err)
				}
				res, _ := cutPass(t, st, snap, now.Add(time.Duration(passes)*time.Minute), tc.cut, only)
				s := shardOf(res, shard)
				keys += s.WalkKeys
				if s.WalkBuckets != 2 || s.WalkBucketsDone < prevDone || s.WalkBucketsDone > 2 {
					t.Fatalf("pass %d: buckets %d/%d after %d done", passes, s.WalkBucketsDone, s.WalkBuckets, prevDone)
				}
				prevDone = s.WalkBucketsDone
				// The one shard's walk is done on the pass that
				// completes it, not before.
				hbDone := "walk_shards_done=0/1"
				if s.WalkBucketsDone == 2 {
					hbDone = "walk_shards_done=1/1"
				}
				if hb := res.Heartbeat(); !strings.HasSuffix(hb, hbDone) {
					t.Fatalf("pass %d: heartbeat %q, want %s", passes, hb, hbDone)
				}
				wantFrom := (*WalkPoint)(nil)
				if found && !saved.Complete {
					wantFrom = resumePoint(order, saved.Buckets)
				}
				if s.WalkResumed != (found && !saved.Complete) || !cmp.Equal(s.WalkResumedFrom, wantFrom) {
					t.Fatalf("pass %d: resumed %v from %+v; saved %+v", passes, s.WalkResumed, s.WalkResumedFrom, saved)
				}
				if s.CursorSaved { // the walk completed; replay may have been cut
					if s.WalkSaved || s.WalkBucketsDone != 2 {
						t.Fatalf("completing pass: walk saved %v, buckets %d/2", s.WalkSaved, s.WalkBucketsDone)
					}
					break
				}
				if s.Status != StatusCancelled || !s.WalkSaved {
					t.Fatalf("pass %d: %s walk saved %v (%v)", passes, s.Status, s.WalkSaved, s.Err)
				}
			}
			if passes < 2 {
				t.Fatalf("%d cut passes: the cut did not cut", passes)
			}
			// A key listed again after a cut (its delete had not
			// completed) counts again; none is skipped.
			if keys < total {
				t.Errorf("the passes listed %d keys of the shard, want at least its %d", keys, total)
			}
		})
	}
}

// The tally counts a bucket done only when both its phases are, and
// starts from the saved position's finished buckets of the view.
func TestWalkTally(t *testing.T) {
	s := &shardRun{}
	s.startTally([]string{"a", "b", "c"}, map[string]BucketPos{
		"a": {ObjectsDone: true, UploadsDone: true}, "b": {ObjectsAfter: "k", ObjectsDone: true}, "gone": {ObjectsDone: true, UploadsDone: true}})
	steps := []struct {
		bucket string
		phase  walkPhase
		want   int
	}{
		{"", 0, 1},
		{"b", phaseUploads, 2},
		{"c", phaseUploads, 2},
		{"c", phaseObjects, 3},
		{"c", phaseObjects, 3},
	}
	for i, st := range steps {
		if st.bucket != "" {
			s.tally.finished(st.bucket, st.phase)
		}
		if got := s.tally.bucketsDone(); got != st.want || s.tally.total != 3 {
			t.Errorf("step %d: %d of %d done, want %d of 3", i, got, s.tally.total, st.want)
		}
	}
	var none *walkTally
	none.walked(3)
	none.finished("a", phaseObjects)
	if none.bucketsDone() != 0 {
		t.Error("a nil tally counts")
	}
}
