package embedded

import (
	"context"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Shard leases on the embedded filer (docs/design/daily-run.md#shard-leases)
// are kept in this process only, and that is the whole of the guarantee
// the store needs: a writing Filer holds bbolt's exclusive lock on
// filer.db for as long as it is open, so a second process cannot open the
// same filer to run a pass beside this one (it fails after lockTimeout).
// Within one process two passes over one Filer exclude each other here.

var _ filer.ShardLeaser = (*Filer)(nil)

// leaseTable is one Filer's shard leases, by shard; the zero value is
// empty.
type leaseTable struct {
	mu      sync.Mutex
	byShard map[int]*shardLease
}

type shardLease struct {
	owner   string
	expires time.Time
}

// AcquireShardLease takes shard's lease for owner unless another owner
// holds it unexpired (by the Filer's clock).
func (f *Filer) AcquireShardLease(ctx context.Context, shard int, owner string, ttl time.Duration) (filer.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := &f.leases
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byShard == nil {
		t.byShard = map[int]*shardLease{}
	}
	now := f.clock()
	if cur := t.byShard[shard]; cur != nil && now.Before(cur.expires) {
		return nil, &filer.LeaseHeldError{Shard: shard, Holder: cur.owner, Expires: cur.expires}
	}
	l := &shardLease{owner: owner, expires: now.Add(ttl)}
	t.byShard[shard] = l
	return &lease{f: f, t: t, shard: shard, l: l, ttl: ttl}, nil
}

// lease is one held lease; l is its entry, which another owner replaces
// only once it expired.
type lease struct {
	f     *Filer
	t     *leaseTable
	shard int
	l     *shardLease
	ttl   time.Duration
}

func (l *lease) Renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if cur := l.t.byShard[l.shard]; cur != l.l {
		if cur == nil {
			return filer.ErrLeaseLost
		}
		return &filer.LeaseHeldError{Shard: l.shard, Holder: cur.owner, Expires: cur.expires}
	}
	l.l.expires = l.f.clock().Add(l.ttl)
	return nil
}

func (l *lease) Release(context.Context) error {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if l.t.byShard[l.shard] == l.l {
		delete(l.t.byShard, l.shard)
	}
	return nil
}
