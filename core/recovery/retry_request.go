package recovery

import (
	"context"
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// RecoveryLease is how long an operator-requested attempt owns a control.
const RecoveryLease = 15 * time.Minute

// RetryRequest is one `recovery retry`.
type RetryRequest struct {
	ControlID  string
	Actor      string
	OwnerEpoch string // a fresh UUID for this claim
	Clock      func() time.Time
	Execute    bool // false: dry run
}

// RetryResult is the control before and after.
type RetryResult struct {
	Before, After *Control
	ETag          string
}

// RequestRetry grants one more bounded attempt after the operator changed
// a capability or the configuration (docs/design/recovery.md#operator-retry):
// a new owner lease (this actor, a fresh epoch, 15 minutes), the control
// made retrying and due now. The lifetime attempt count, the consecutive
// failure count and the first-failure time are kept, so a failing attempt
// returns the control to operator_required at once instead of starting a
// new 32-failure budget.
func RequestRetry(ctx context.Context, pool metastore.Store, req RetryRequest) (*RetryResult, error) {
	if req.Clock == nil || req.Actor == "" || !envelope.IsCanonicalUUID(req.OwnerEpoch) {
		return nil, fmt.Errorf("recovery.RequestRetry: clock, actor and a UUID owner epoch are required")
	}
	ctl, etag, err := FindControl(ctx, pool, req.ControlID)
	if err != nil {
		return nil, err
	}
	if ctl.Classification.Final() {
		return nil, refused("control %s is %s: there is nothing left to retry", ctl.ID, ctl.Classification)
	}
	inflight, _, err := inFlightDispositions(ctx, pool, 1000)
	if err != nil {
		return nil, err
	}
	if inflight[ctl.ID] {
		return nil, refused("an operator disposition of control %s is in flight: finish it with 'recovery abandon'", ctl.ID)
	}
	now := req.Clock()
	if ctl.LeaseExpiresAtUnixNanos >= now.UnixNano() { // held through its instant, like RustFS's leases
		return nil, refused("control %s is leased by %s until %s", ctl.ID, ctl.OwnerID, time.Unix(0, ctl.LeaseExpiresAtUnixNanos).UTC().Format(time.RFC3339))
	}
	next := *ctl
	next.Revision++
	next.Classification = Retrying
	next.OwnerID, next.OwnerEpoch = req.Actor, req.OwnerEpoch
	next.LeaseAcquiredAtUnixNanos, next.LeaseExpiresAtUnixNanos = now.UnixNano(), now.Add(RecoveryLease).UnixNano()
	next.NextAttemptAtUnixNanos = now.UnixNano()
	res := &RetryResult{Before: ctl, After: &next, ETag: etag}
	if !req.Execute {
		return res, nil
	}
	if res.ETag, err = casExact(ctx, pool, next.Key(), next.Encode(), etag); err != nil {
		return nil, err
	}
	return res, nil
}
