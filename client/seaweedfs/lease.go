package seaweedfs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Shard leases on SeaweedFS are the filer's own distributed locks
// (DistributedLock / DistributedUnlock in filer.proto, the service
// weed/cluster/lock_client.go uses), taken over this Store's filer
// connection: the filer forwards a lock to the member of its lock ring
// that owns the name, so one filer address is enough
// (docs/design/daily-run.md#shard-leases).

var _ filer.ShardLeaser = (*Store)(nil)

// LeaseName is the distributed-lock name of shard's lease.
func LeaseName(shard int) string { return fmt.Sprintf("ilmctl/lifecycle/shard-%02d", shard) }

// AcquireShardLease takes shard's lock for owner for ttl (whole seconds,
// at least one). The filer reports a holder's name but not its expiry.
//
// Right after a filer starts, its lock service answers "no lock server
// found" until the filer has joined its lock ring; that answer is waited
// out for up to lockRingWait (as a restart's unlocated meta-log volumes
// are, see metalog_volumes.go), not reported as a failure to take the lease.
func (s *Store) AcquireShardLease(ctx context.Context, shard int, owner string, ttl time.Duration) (filer.Lease, error) {
	l := &lease{s: s, shard: shard, owner: owner, seconds: lockSeconds(ttl)}
	deadline := time.Now().Add(lockRingWait)
	for {
		err := l.lock(ctx)
		if err == nil {
			return l, nil
		}
		if !strings.Contains(err.Error(), noLockServer) || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// noLockServer is the lock service's answer before the filer has joined
// its lock ring; lockRingWait is how long a lease waits that out.
const (
	noLockServer = "no lock server found"
	lockRingWait = time.Minute
)

func lockSeconds(ttl time.Duration) int64 {
	return max(1, int64((ttl+time.Second-1)/time.Second))
}

// lease is one held lock; token is the renew token the filer handed out
// last, which it rotates at every renewal.
type lease struct {
	s       *Store
	shard   int
	owner   string
	seconds int64

	mu    sync.Mutex
	token string
}

// lock takes the lock (token "") or renews it (the last token).
func (l *lease) lock(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	name := LeaseName(l.shard)
	resp, err := l.s.fc.DistributedLock(ctx, &filer_pb.LockRequest{Name: name, SecondsToLock: l.seconds, RenewToken: l.token, Owner: l.owner})
	if err != nil {
		return fmt.Errorf("seaweedfs lock %s: %w", name, err)
	}
	if resp.Error == "" && resp.RenewToken != "" {
		l.token = resp.RenewToken
		return nil
	}
	if owner := resp.LockOwner; owner != "" && owner != l.owner {
		return &filer.LeaseHeldError{Shard: l.shard, Holder: owner}
	}
	if l.token != "" {
		// Our token no longer matches: the lock expired (and may be free
		// or taken since), so it cannot be shown held.
		return fmt.Errorf("seaweedfs lock %s: %w: %s", name, filer.ErrLeaseLost, resp.Error)
	}
	return fmt.Errorf("seaweedfs lock %s not granted: %s", name, resp.Error)
}

func (l *lease) Renew(ctx context.Context) error { return l.lock(ctx) }

// Release unlocks with the last token; the filer ignores a token that is
// no longer the lock's, so another holder's lock is left to it.
func (l *lease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	name := LeaseName(l.shard)
	resp, err := l.s.fc.DistributedUnlock(ctx, &filer_pb.UnlockRequest{Name: name, RenewToken: l.token})
	if err != nil {
		return fmt.Errorf("seaweedfs unlock %s: %w", name, err)
	}
	if resp.Error != "" {
		return fmt.Errorf("seaweedfs unlock %s: %s", name, resp.Error)
	}
	return nil
}
