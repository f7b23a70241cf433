// Package leasetest is the shard-lease contract every filer.ShardLeaser
// passes (client/embedded, client/s3, client/seaweedfs), written once as a
// table of scenarios (docs/design/daily-run.md#shard-leases).
package leasetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Harness is one store under the contract. New returns two leasers that
// share the store as two hosts would (they may be one value); Expire, when
// set, makes every lease taken so far outlive its ttl (advancing a fake
// clock), else the expiry scenario is skipped.
type Harness struct {
	New    func(t *testing.T) (hostA, hostB filer.ShardLeaser)
	Expire func(t *testing.T)
	// TTL is the ttl the scenarios ask for; 0 means a minute.
	TTL time.Duration
}

// Run runs every scenario, each on its own shard of a fresh store.
func Run(t *testing.T, h Harness) {
	ttl := h.TTL
	if ttl == 0 {
		ttl = time.Minute
	}
	ctx := context.Background()
	acquire := func(t *testing.T, l filer.ShardLeaser, shard int, owner string) filer.Lease {
		t.Helper()
		lease, err := l.AcquireShardLease(ctx, shard, owner, ttl)
		if err != nil {
			t.Fatalf("%s: acquire shard %d: %v", owner, shard, err)
		}
		// A live store is shared with the tests after this one, whose
		// passes must find every shard free: no lease outlives its case.
		t.Cleanup(func() { _ = lease.Release(ctx) })
		return lease
	}
	held := func(t *testing.T, l filer.ShardLeaser, shard int, owner, holder string) {
		t.Helper()
		_, err := l.AcquireShardLease(ctx, shard, owner, ttl)
		he := filer.AsLeaseHeld(err)
		if he == nil || !errors.Is(err, filer.ErrLeaseHeld) {
			t.Fatalf("%s: acquire shard %d held by %s: err = %v, want a *LeaseHeldError", owner, shard, holder, err)
		}
		if he.Holder != holder || he.Shard != shard {
			t.Errorf("held error names %q on shard %d, want %q on %d", he.Holder, he.Shard, holder, shard)
		}
	}
	for _, sc := range []struct {
		name string
		run  func(t *testing.T, a, b filer.ShardLeaser)
	}{
		{"a free shard is taken, a held one names its holder", func(t *testing.T, a, b filer.ShardLeaser) {
			acquire(t, a, 1, "host-a")
			held(t, b, 1, "host-b", "host-a")
			acquire(t, b, 2, "host-b") // other shards stay free
		}},
		{"the holder renews; the other still sees it", func(t *testing.T, a, b filer.ShardLeaser) {
			l := acquire(t, a, 3, "host-a")
			if err := l.Renew(ctx); err != nil {
				t.Fatalf("renew: %v", err)
			}
			held(t, b, 3, "host-b", "host-a")
		}},
		{"a released shard is free, and its old lease cannot come back", func(t *testing.T, a, b filer.ShardLeaser) {
			l := acquire(t, a, 4, "host-a")
			if err := l.Release(ctx); err != nil {
				t.Fatalf("release: %v", err)
			}
			acquire(t, b, 4, "host-b")
			if err := l.Renew(ctx); err == nil {
				t.Fatal("a released lease renewed over its new holder")
			}
			held(t, a, 4, "host-a", "host-b")
		}},
		{"releasing a lease another owner holds leaves it", func(t *testing.T, a, b filer.ShardLeaser) {
			l := acquire(t, a, 5, "host-a")
			_ = l.Release(ctx)
			acquire(t, b, 5, "host-b")
			_ = l.Release(ctx)
			held(t, a, 5, "host-a", "host-b")
		}},
		{"an expired lease is taken over, and its holder's renewal fails", func(t *testing.T, a, b filer.ShardLeaser) {
			if h.Expire == nil {
				t.Skip("the store's clock cannot be advanced here")
			}
			l := acquire(t, a, 6, "host-a")
			h.Expire(t)
			acquire(t, b, 6, "host-b")
			if err := l.Renew(ctx); err == nil {
				t.Fatal("an expired lease renewed over its new holder")
			}
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			a, b := h.New(t)
			sc.run(t, a, b)
		})
	}
}
