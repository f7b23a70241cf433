package dailyrun

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// overlapStore watches LifecycleDelete calls as they overlap: how many are
// in flight at once, overall and per key. The first delete of gateKey and
// the first delete of any other key each wait until the other has
// started, which only several deletes in flight per shard allow.
type overlapStore struct {
	*fakeStore
	gateKey string

	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	perKey      map[string]int
	keyOverlap  []string // keys with two deletes in flight at once
	order       map[string][]string
	gateIn      chan struct{} // closed when gateKey's first delete starts
	otherIn     chan struct{} // closed when another key's first delete starts
	otherSeen   bool
}

func (o *overlapStore) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	o.mu.Lock()
	o.inFlight++
	o.maxInFlight = max(o.maxInFlight, o.inFlight)
	o.perKey[req.Key]++
	if o.perKey[req.Key] > 1 {
		o.keyOverlap = append(o.keyOverlap, req.Key)
	}
	o.order[req.Key] = append(o.order[req.Key], req.Expected.VersionID)
	var mine, theirs chan struct{}
	switch {
	case req.Key == o.gateKey && len(o.order[req.Key]) == 1:
		mine, theirs = o.gateIn, o.otherIn
	case req.Key != o.gateKey && !o.otherSeen:
		o.otherSeen = true
		mine, theirs = o.otherIn, o.gateIn
	}
	o.mu.Unlock()
	var out filer.Outcome
	var err error
	if mine != nil {
		close(mine)
		select {
		case <-theirs:
		case <-time.After(time.Minute): // only a store that never overlaps gets here
			err = fmt.Errorf("%s: no delete of the other kind started beside it", req.Key)
		}
	}
	if err == nil {
		out, err = o.fakeStore.LifecycleDelete(ctx, req)
	}
	o.mu.Lock()
	o.inFlight--
	o.perKey[req.Key]--
	o.mu.Unlock()
	return out, err
}

// TestInFlightKeepsPerKeyOrder: a shard keeps several deletes in flight,
// but a key's deletes go one after the other, in the order a shard
// dispatching one at a time sends them.
func TestInFlightKeepsPerKeyOrder(t *testing.T) {
	const gateKey = "a"
	shard := lifecycle.ShardID("data", gateKey)
	st := newFakeStore()
	st.addBucket("data", filer.VersioningEnabled)
	old := ts("2026-01-01T00:00:00Z")
	for i, vid := range []string{"v1", "v2", "v3"} {
		st.put("data", gateKey, vid, old.Add(time.Duration(i)*time.Hour), 1)
	}
	others := 0
	for i := 0; others < 6; i++ {
		k := fmt.Sprintf("x%d", i)
		if lifecycle.ShardID("data", k) == shard {
			st.put("data", k, "v1", old, 1)
			others++
		}
	}
	os := &overlapStore{fakeStore: st, gateKey: gateKey, perKey: map[string]int{}, order: map[string][]string{},
		gateIn: make(chan struct{}), otherIn: make(chan struct{})}
	snap := snapshotOf("data", filer.VersioningEnabled, lifecycle.Rule{ID: "r", Enabled: true, ExpirationDays: 30, NoncurrentDays: 7})
	now := ts("2026-11-30T00:00:00Z")
	res, err := Run(context.Background(), Config{Store: os, Snapshot: snap, RunNow: now, Clock: func() time.Time { return now },
		Shards: []int{shard}, InFlight: 4, Retry: RetryPolicy{Sleep: (&noSleep{}).sleep}})
	if err != nil || res.Status() != StatusOK {
		t.Fatalf("Run: %v %s %+v", err, res.Status(), res.Shards)
	}
	if os.maxInFlight < 2 {
		t.Errorf("at most %d delete in flight, want several", os.maxInFlight)
	}
	if len(os.keyOverlap) > 0 {
		t.Errorf("keys with two deletes in flight at once: %v", os.keyOverlap)
	}
	// Newest first, as the walk lists a key: the latest's expiration, then
	// each noncurrent version.
	if got := fmt.Sprint(os.order[gateKey]); got != "[v3 v2 v1]" {
		t.Errorf("deletes of %s in order %s, want [v3 v2 v1]", gateKey, got)
	}
	if n := res.Shards[0].Outcomes[filer.OutcomeDone] + res.Shards[0].Outcomes[filer.OutcomeNoopResolved]; n != 3+int64(others) {
		t.Errorf("outcomes %v, want %d in all", res.Shards[0].Outcomes, 3+others)
	}
}

// TestFlightWorkers: dispatches run on reused workers, never more than
// limit at once and never more than 2×limit workers, each key in the
// order started; wait leaves no worker behind and start works after it.
func TestFlightWorkers(t *testing.T) {
	for _, limit := range []int{1, 2, 8} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			f := newFlight(limit)
			var mu sync.Mutex
			running, maxRunning := 0, 0
			order := map[string][]int{}
			for round := 0; round < 2; round++ {
				for i := 0; i < 500; i++ {
					key := fmt.Sprint("k", i%7)
					f.start(context.Background(), key, func() error {
						mu.Lock()
						running++
						maxRunning = max(maxRunning, running)
						order[key] = append(order[key], round*500+i)
						mu.Unlock()
						mu.Lock()
						running--
						mu.Unlock()
						return nil
					})
				}
				f.wait()
				if n := int(f.started.Swap(0)); n > 2*limit {
					t.Errorf("round %d: %d workers started, want at most %d", round, n, 2*limit)
				}
			}
			if maxRunning > limit {
				t.Errorf("%d dispatches at once, want at most %d", maxRunning, limit)
			}
			for key, seq := range order {
				for j := 1; j < len(seq); j++ {
					if seq[j] < seq[j-1] {
						t.Fatalf("key %s dispatched out of order: %v", key, seq)
					}
				}
			}
			if f.anyFailed() {
				t.Error("anyFailed with no error returned")
			}
		})
	}
}

// groupStore is a fakeStore that asks for n deletes in flight.
type groupStore struct {
	*fakeStore
	n int
}

func (g groupStore) DeletesInFlight() int { return g.n }

// TestInFlightDefault: the operator's --deletes-in-flight wins; without
// one a group-committing store chooses; otherwise 8.
func TestInFlightDefault(t *testing.T) {
	plain := newFakeStore()
	for _, c := range []struct {
		name  string
		store filer.Store
		cfg   int
		want  int
	}{
		{"plain store, default", plain, 0, defaultInFlight},
		{"plain store, chosen", plain, 3, 3},
		{"group commit, default", groupStore{plain, 64}, 0, 64},
		{"group commit, chosen", groupStore{plain, 64}, 1, 1},
		{"group commit says 0", groupStore{plain, 0}, 0, defaultInFlight},
	} {
		if got := inFlight(Config{Store: c.store, InFlight: c.cfg}); got != c.want {
			t.Errorf("%s: %d in flight, want %d", c.name, got, c.want)
		}
	}
}
