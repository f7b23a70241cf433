package dailyrun

import (
	"context"
	"errors"
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
		rewalks   []string
	}
	for _, tc := range []struct {
		name    string
		writers []filer.MetaLogWriter // from the second pass on
		passes  []pass
	}{
		{
			name:    "a new writer after another",
			writers: []filer.MetaLogWriter{a, b},
			passes: []pass{
				{at: "2026-11-11T12:00:00Z", recovery: RecoveryFilerRestart,
					remaining: []string{"logs/kept@v", "logs/young@v"}, rewalks: []string{"2026-11-12T11:30:00Z"}},
				{at: "2026-11-12T12:00:00Z", recovery: RecoveryFilerRestart},
				{at: "2026-11-13T12:00:00Z"},
			},
		},
		{
			name:    "no new writer: the lost events stay undecided",
			writers: []filer.MetaLogWriter{a},
			passes: []pass{
				{at: "2026-11-11T12:00:00Z", remaining: []string{"logs/kept@v", "logs/lost@v", "logs/young@v"}},
				{at: "2026-11-12T12:00:00Z", remaining: []string{"logs/lost@v", "logs/young@v"}},
			},
		},
		{
			name:    "a new writer that followed nobody lost nothing",
			writers: []filer.MetaLogWriter{{ID: "b", BeganByNs: b.BeganByNs}},
			passes: []pass{
				{at: "2026-11-11T12:00:00Z", remaining: []string{"logs/kept@v", "logs/lost@v", "logs/young@v"}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("logs", filer.VersioningOff)
			snap := engine.Compile([]engine.Bucket{{Name: "logs", Versioning: filer.VersioningOff,
				Rules: []lifecycle.Rule{expireDays("all", 1)}}}, lifecycle.RoundExact).Snapshot()
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
					var rewalks []string
					for _, r := range c.Rewalks {
						rewalks = append(rewalks, time.Unix(0, r).UTC().Format(time.RFC3339))
					}
					if !slices.Equal(rewalks, ps.rewalks) {
						t.Errorf("%s: shard %d rewalks %v, want %v", ps.at, id, rewalks, ps.rewalks)
					}
					var ids []string
					for _, w := range tc.writers {
						ids = append(ids, w.ID)
					}
					if !slices.Equal(c.Writers, ids) {
						t.Errorf("%s: shard %d writers %v, want %v", ps.at, id, c.Writers, ids)
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
		if err != nil || !reflect.DeepEqual(c.Writers, []string{"b"}) || c.Rewalks != nil {
			t.Errorf("cursor writers %v rewalks %v (%v), want [b] and none", c.Writers, c.Rewalks, err)
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

// mergeRewalks keeps times sorted and unique, and past its bound merges
// the closest two into the later one.
func TestMergeRewalks(t *testing.T) {
	if got := mergeRewalks([]int64{5, 1, 5, 3}); !slices.Equal(got, []int64{1, 3, 5}) {
		t.Errorf("mergeRewalks = %v, want [1 3 5]", got)
	}
	if got := mergeRewalks(nil); got != nil {
		t.Errorf("mergeRewalks(nil) = %v", got)
	}
	var many []int64
	for i := range maxRewalks {
		many = append(many, int64(100*(i+1)))
	}
	many = append(many, 150) // closest to 100 and 200
	got := mergeRewalks(many)
	if len(got) != maxRewalks || slices.Contains(got, 100) || !slices.Contains(got, 150) || got[len(got)-1] != int64(100*maxRewalks) {
		t.Errorf("mergeRewalks over the bound = %v, want 100 merged into 150 and the last kept", got)
	}
}
