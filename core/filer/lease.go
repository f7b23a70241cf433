package filer

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ShardLeaser is a store that lends each daily-run shard to one owner at a
// time, through the store's own lock service, so two hosts whose --shards
// overlap never run one shard side by side
// (docs/design/daily-run.md#shard-leases). A store without it runs every
// shard it is asked to, as before.
type ShardLeaser interface {
	// AcquireShardLease takes shard's lease for owner, held for ttl unless
	// renewed. It fails with a *LeaseHeldError (errors.Is ErrLeaseHeld)
	// when another owner holds it; any other error means the store could
	// not say, and the shard must not run.
	AcquireShardLease(ctx context.Context, shard int, owner string, ttl time.Duration) (Lease, error)
}

// Lease is one held shard lease. A pass renews and releases it from
// different goroutines, never at once (dailyrun serialises its calls).
type Lease interface {
	// Renew holds the lease for its ttl again, counted from now. An error
	// means the lease can no longer be shown to be held: another owner took
	// it (a *LeaseHeldError), it expired, or the store did not answer.
	Renew(ctx context.Context) error
	// Release gives the lease up before its ttl ends; a lease already
	// taken by another owner is left to it.
	Release(ctx context.Context) error
}

// ErrLeaseHeld is the cause of a *LeaseHeldError: another owner holds the
// shard's lease.
var ErrLeaseHeld = errors.New("shard lease held by another owner")

// ErrLeaseLost says a pass could no longer show it held a shard's lease it
// had taken: a renewal failed or another owner holds it now.
var ErrLeaseLost = errors.New("shard lease lost")

// LeaseHeldError says who holds a shard's lease, and until when.
type LeaseHeldError struct {
	Shard  int
	Holder string // the owner string the holder gave; "" when the store does not say
	// Expires is when the holder's lease ends unless it renews; zero when
	// the store does not report it (SeaweedFS's lock service).
	Expires time.Time
}

func (e *LeaseHeldError) Error() string {
	holder := e.Holder
	if holder == "" {
		holder = "an unnamed owner"
	}
	until := "expiry not reported by the store"
	if !e.Expires.IsZero() {
		until = "until " + e.Expires.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("shard %02d lease held by %s (%s)", e.Shard, holder, until)
}

func (e *LeaseHeldError) Unwrap() error { return ErrLeaseHeld }

// AsLeaseHeld returns err's *LeaseHeldError, or nil.
func AsLeaseHeld(err error) *LeaseHeldError {
	var e *LeaseHeldError
	if errors.As(err, &e) {
		return e
	}
	return nil
}
