package dailyrun

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// leasingStore is a fakeStore with a lease service: shards another owner
// holds, renewals and releases recorded, and a ticker per lease the test
// drives by hand (no sleeps).
type leasingStore struct {
	*fakeStore
	lmu      sync.Mutex
	holder   map[int]string // shard -> owner
	renews   map[int]int
	released map[int]bool
	renewed  [lifecycle.ShardCount]chan struct{} // each Renew of a shard's lease, successful or not
	ticks    map[int]chan time.Time              // the renewal ticker of each lease taken
	last     int                                 // the shard whose lease was taken last (its ticker comes next)
	// onDelete runs at every LifecycleDelete with the dispatch's context.
	onDelete func(ctx context.Context, req filer.DeleteRequest)
}

func newLeasingStore(st *fakeStore) *leasingStore {
	l := &leasingStore{fakeStore: st, holder: map[int]string{}, renews: map[int]int{}, released: map[int]bool{},
		ticks: map[int]chan time.Time{}}
	for i := range l.renewed {
		l.renewed[i] = make(chan struct{}, 8)
	}
	return l
}

var expiresAt = ts("2026-11-30T12:01:00Z")

func (l *leasingStore) AcquireShardLease(_ context.Context, shard int, owner string, _ time.Duration) (filer.Lease, error) {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	if h := l.holder[shard]; h != "" && h != owner {
		return nil, &filer.LeaseHeldError{Shard: shard, Holder: h, Expires: expiresAt}
	}
	l.holder[shard], l.last = owner, shard
	return &fakeLease{l: l, shard: shard, owner: owner}, nil
}

func (l *leasingStore) ticker(time.Duration) (<-chan time.Time, func()) {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	c := make(chan time.Time)
	l.ticks[l.last] = c
	return c, func() {}
}

func (l *leasingStore) tick(shard int) {
	l.lmu.Lock()
	c := l.ticks[shard]
	l.lmu.Unlock()
	c <- time.Time{}
}

func (l *leasingStore) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	if l.onDelete != nil {
		l.onDelete(ctx, req)
	}
	return l.fakeStore.LifecycleDelete(ctx, req)
}

type fakeLease struct {
	l     *leasingStore
	shard int
	owner string
}

func (f *fakeLease) Renew(context.Context) error {
	f.l.lmu.Lock()
	defer f.l.lmu.Unlock()
	defer func() { f.l.renewed[f.shard] <- struct{}{} }()
	if h := f.l.holder[f.shard]; h != f.owner {
		return &filer.LeaseHeldError{Shard: f.shard, Holder: h, Expires: expiresAt}
	}
	f.l.renews[f.shard]++
	return nil
}

func (f *fakeLease) Release(context.Context) error {
	f.l.lmu.Lock()
	defer f.l.lmu.Unlock()
	if f.l.holder[f.shard] == f.owner {
		delete(f.l.holder, f.shard)
		f.l.released[f.shard] = true
	}
	return nil
}

func leaseConfig(l *leasingStore) func(*Config) {
	return func(c *Config) {
		c.Store, c.LeaseOwner, c.Ticker, c.InFlight = l, "host-a", l.ticker, 1
	}
}

// A shard whose lease another host holds is not run: it ends leased with
// the holder and expiry in its reason, nothing of it is deleted and its
// cursor is not touched; the other shards run. Leased is not an error.
func TestLeasedShardIsLeftToItsHolder(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1))
	runPass(t, context.Background(), st, snap, ts("2026-11-20T00:00:00Z"), nil) // cursors for every shard
	held, other := keysInShard("logs", "k", 2, 3), keysInShard("logs", "k", 2, 4)
	for _, k := range append(append([]string{}, held...), other...) {
		st.put("logs", k, "v1", ts("2026-11-21T10:00:00Z"), 10)
	}
	before := append([]byte(nil), st.files[CursorPath(3)]...)
	l := newLeasingStore(st)
	l.holder[3] = "host-b"

	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T12:00:00Z"), leaseConfig(l))

	s := shardOf(res, 3)
	if s.Status != StatusLeased || s.CursorSaved || s.EventsScanned != 0 || !errors.Is(s.Err, filer.ErrLeaseHeld) {
		t.Fatalf("held shard = %s saved=%v events=%d err=%v", s.Status, s.CursorSaved, s.EventsScanned, s.Err)
	}
	if msg := s.Err.Error(); !strings.Contains(msg, "host-b") || !strings.Contains(msg, "2026-11-30T12:01:00Z") {
		t.Errorf("reason %q does not name the holder and expiry", msg)
	}
	if !bytes.Equal(st.files[CursorPath(3)], before) {
		t.Error("held shard's cursor was rewritten")
	}
	rem := strings.Join(st.remaining(), " ")
	for _, k := range held {
		if !strings.Contains(rem, k) {
			t.Errorf("%s of the held shard was deleted", k)
		}
	}
	for _, k := range other {
		if strings.Contains(rem, k) {
			t.Errorf("%s of a free shard was not deleted", k)
		}
	}
	if got := shardOf(res, 4); got.Status != StatusOK || !got.CursorSaved {
		t.Errorf("free shard = %s saved=%v (%v)", got.Status, got.CursorSaved, got.Err)
	}
	if res.Status() != StatusLeased || res.Errors() != 0 || res.Unfinished() || len(res.Shards) != 16 {
		t.Errorf("pass status %s errors %d unfinished %v shards %d", res.Status(), res.Errors(), res.Unfinished(), len(res.Shards))
	}
	if l.holder[3] != "host-b" || l.released[3] {
		t.Error("the holder's lease was released by the pass that did not hold it")
	}
}

// A lease lost mid-shard (another holder appears at a renewal) stops the
// shard's dispatches at once; it ends halted naming the lease and saves
// neither cursor nor walk position. The other shards are not affected.
// Every lease taken is renewed on its ticker, and released at the end.
func TestLostLeaseStopsTheShard(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	keys := keysInShard("logs", "k", 4, 5)
	for _, k := range keys {
		st.put("logs", k, "v1", ts("2026-11-01T10:00:00Z"), 10)
	}
	other := keysInShard("logs", "k", 1, 6)[0]
	st.put("logs", other, "v1", ts("2026-11-01T10:00:00Z"), 10)
	l := newLeasingStore(st)
	var once, renewOnce sync.Once
	l.onDelete = func(ctx context.Context, req filer.DeleteRequest) {
		switch lifecycle.ShardID(req.Bucket, req.Key) {
		case 5:
			once.Do(func() {
				l.lmu.Lock()
				l.holder[5] = "host-b" // another host took it over
				l.lmu.Unlock()
				l.tick(5)
				<-l.renewed[5]
				<-ctx.Done() // the shard's context ends with the lease
				if cause := context.Cause(ctx); !errors.Is(cause, filer.ErrLeaseLost) {
					t.Errorf("shard context ended by %v, want the lost lease", cause)
				}
			})
		case 6:
			renewOnce.Do(func() {
				l.tick(6)
				<-l.renewed[6]
			})
		}
	}
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1))
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T12:00:00Z"), leaseConfig(l))

	s := shardOf(res, 5)
	if s.Status != StatusHalted || !errors.Is(s.Err, filer.ErrLeaseLost) || !strings.Contains(s.Err.Error(), "host-b") {
		t.Fatalf("shard 5 = %s (%v), want halted by the lost lease", s.Status, s.Err)
	}
	if s.CursorSaved || st.files[CursorPath(5)] != nil || st.files[WalkPath(5)] != nil {
		t.Errorf("shard 5 saved a cursor or walk position after losing its lease")
	}
	n := 0
	for _, d := range st.deletes {
		if lifecycle.ShardID(d.Bucket, d.Key) == 5 {
			n++
		}
	}
	if n != 1 {
		t.Errorf("shard 5 sent %d deletes, want only the one in flight when the lease was lost", n)
	}
	if got := shardOf(res, 6); got.Status != StatusOK || !got.CursorSaved {
		t.Errorf("shard 6 = %s saved=%v (%v)", got.Status, got.CursorSaved, got.Err)
	}
	if !res.Unfinished() {
		t.Error("a pass with a lost lease is not unfinished")
	}
	// Shard 6 renewed on its tick and again before saving its cursor.
	if l.renews[6] != 2 {
		t.Errorf("shard 6 renewed %d times, want 2 (its tick, its cursor save)", l.renews[6])
	}
	for id := 0; id < lifecycle.ShardCount; id++ {
		if id == 5 {
			if l.released[5] || l.holder[5] != "host-b" {
				t.Error("the lost lease was released or taken back")
			}
			continue
		}
		if !l.released[id] || l.holder[id] != "" {
			t.Errorf("shard %d lease not released at the end", id)
		}
	}
}

// A dry run writes nothing, so it takes no lease: it neither waits for a
// holder nor keeps a real pass out.
func TestDryRunTakesNoLease(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	l := newLeasingStore(st)
	l.holder[2] = "host-b"
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1)), ts("2026-11-30T12:00:00Z"),
		func(c *Config) { leaseConfig(l)(c); c.DryRun = true })
	if res.Status() != StatusOK || len(l.ticks) != 0 {
		t.Fatalf("dry run status %s, %d leases taken", res.Status(), len(l.ticks))
	}
}

// A lease service that cannot answer keeps its shard from running: error.
func TestLeaseServiceFailureIsShardError(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1)), ts("2026-11-30T12:00:00Z"),
		func(c *Config) { c.Store = brokenLeaser{st} })
	for _, s := range res.Shards {
		if s.Status != StatusError || s.CursorSaved || !errors.Is(s.Err, errTransport) {
			t.Fatalf("shard %d = %s saved=%v (%v)", s.Shard, s.Status, s.CursorSaved, s.Err)
		}
	}
}

type brokenLeaser struct{ *fakeStore }

func (brokenLeaser) AcquireShardLease(context.Context, int, string, time.Duration) (filer.Lease, error) {
	return nil, errTransport
}
