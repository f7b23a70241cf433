package dailyrun

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Lease timing (docs/design/daily-run.md#shard-leases): a lease lasts three
// renewal intervals, so one slow renewal does not lose it, and a killed
// host's shards are free again a minute after its last renewal.
const (
	DefaultLeaseTTL   = 60 * time.Second
	DefaultLeaseRenew = 20 * time.Second
)

// leaseCallTimeout bounds one Renew or Release. It uses a fresh context:
// the pass's may be cancelled (-runtime, a signal) while a shard still
// saves its cursor, and the lease must stay held until then.
const leaseCallTimeout = 10 * time.Second

// shardLease is one shard's lease for the pass: renewed on a ticker while
// the shard runs, checked before each of its saves, released when the pass
// ends. Losing it cancels the shard's context, so its dispatches stop.
type shardLease struct {
	id     int
	lease  filer.Lease
	cancel context.CancelCauseFunc
	stop   chan struct{} // closed to end the renewal loop
	done   chan struct{} // closed when the renewal loop has ended

	mu   sync.Mutex // serialises Renew and Release, guards lost
	lost error      // why the lease is lost (errors.Is filer.ErrLeaseLost); nil while held
}

// leaser is the store's lease service, nil when the pass takes no leases:
// the store has none, or a dry run, which writes nothing and so cannot
// race another host.
func (p *pass) leaser() filer.ShardLeaser {
	l, ok := p.cfg.Store.(filer.ShardLeaser)
	if !ok || p.cfg.DryRun {
		return nil
	}
	return l
}

// takeLease takes shard id's lease and starts its renewal loop, or returns
// why it could not: a *filer.LeaseHeldError when another owner holds it.
// ctx is the shard's context; cancel ends it when the lease is lost.
func (p *pass) takeLease(ctx context.Context, ls filer.ShardLeaser, id int, cancel context.CancelCauseFunc) (*shardLease, error) {
	lease, err := ls.AcquireShardLease(ctx, id, p.leaseOwner(), p.leaseTTL())
	if err != nil {
		if filer.AsLeaseHeld(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("take shard %02d lease: %w", id, err)
	}
	l := &shardLease{id: id, lease: lease, cancel: cancel, stop: make(chan struct{}), done: make(chan struct{})}
	tick, stopTicker := p.ticker(p.leaseRenew())
	go l.renewLoop(tick, stopTicker)
	return l, nil
}

func (p *pass) leaseOwner() string {
	if p.cfg.LeaseOwner == "" {
		return "ilmctl"
	}
	return p.cfg.LeaseOwner
}

func (p *pass) leaseTTL() time.Duration {
	if p.cfg.LeaseTTL > 0 {
		return p.cfg.LeaseTTL
	}
	return DefaultLeaseTTL
}

func (p *pass) leaseRenew() time.Duration {
	if p.cfg.LeaseRenew > 0 {
		return p.cfg.LeaseRenew
	}
	return DefaultLeaseRenew
}

func (p *pass) ticker(d time.Duration) (<-chan time.Time, func()) {
	if p.cfg.Ticker != nil {
		return p.cfg.Ticker(d)
	}
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// renewLoop renews the lease on every tick until it is stopped or lost.
func (l *shardLease) renewLoop(tick <-chan time.Time, stopTicker func()) {
	defer close(l.done)
	defer stopTicker()
	for {
		select {
		case <-l.stop:
			return
		case <-tick:
			if l.renew() != nil {
				return
			}
		}
	}
}

// renew renews the lease once; a failure loses it for good and cancels
// the shard's context with the reason.
func (l *shardLease) renew() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return l.lost
	}
	ctx, cancel := context.WithTimeout(context.Background(), leaseCallTimeout)
	defer cancel()
	if err := l.lease.Renew(ctx); err != nil {
		l.lost = fmt.Errorf("shard %02d: %w: renewal failed, stopped dispatching and saved no cursor: %w", l.id, filer.ErrLeaseLost, err)
		l.cancel(l.lost)
		return l.lost
	}
	return nil
}

// lostErr is why the lease was lost, nil while it is held (or when the
// shard runs without one).
func (l *shardLease) lostErr() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// release ends the renewal loop and gives the lease up. A lease that
// cannot be released expires at its ttl, so a failure is not the shard's.
func (l *shardLease) release() {
	if l == nil {
		return
	}
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cancel(nil)
	if l.lost != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), leaseCallTimeout)
	defer cancel()
	_ = l.lease.Release(ctx)
}

// leasedShard is the result of a shard whose lease another owner holds:
// it does not run, and its cursor is read for the report only.
func (p *pass) leasedShard(ctx context.Context, id int, held error) ShardResult {
	res := ShardResult{Shard: id, Status: StatusLeased, Err: held, Outcomes: map[filer.Outcome]int64{}, OutcomeBytes: map[filer.Outcome]int64{}}
	if c, found, err := LoadCursor(ctx, p.cfg.Store, id); err == nil && found {
		res.Cursor = c
	}
	return res
}
