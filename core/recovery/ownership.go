package recovery

import (
	"fmt"
	"time"
)

// ClockSkew is the persisted clock-skew allowance: a step may start only
// while now is at least ClockSkew before its lease's expiry, and another
// claim may take over only when now is later than expiry plus ClockSkew
// (docs/design/recovery.md#disposition-ownership).
const ClockSkew = 5 * time.Minute

// DispositionLease is how long one claim owns a disposition application
// after acquiring or renewing it; it is renewed before every deletion.
const DispositionLease = RecoveryLease

// LeaseHeldError is an action refused because another claim owns the
// control's attempt or its disposition application, and its lease has not
// expired (plus ClockSkew). It is ErrRefused.
type LeaseHeldError struct {
	What       string // "disposition <id>" or "control <id>"
	Owner      string // actor
	Epoch      string // the owning process claim
	Until      time.Time
	TakeoverAt time.Time // the earliest instant another claim may take over
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("%s is owned by %s (epoch %.8s) until %s; if that run is gone, re-run after %s",
		e.What, e.Owner, e.Epoch, e.Until.UTC().Format(time.RFC3339), e.TakeoverAt.UTC().Format(time.RFC3339))
}

// Unwrap makes a held lease a refusal.
func (e *LeaseHeldError) Unwrap() error { return ErrRefused }

// Claim is what a claim may do with a disposition's ownership at now.
type Claim int

// Claims.
const (
	ClaimOwn      Claim = iota // this epoch owns it: renew and continue
	ClaimTakeover              // released or expired past ClockSkew: take over, as a new audited owner
	ClaimHeld                  // another live claim owns it
)

// claimOf is the one ownership decision for a disposition application,
// shared by abandon and inspect. epoch is "" for a caller that holds no
// claim (inspect, a dry run): it can only be told whether a new claim
// could take over.
func (d *Disposition) claimOf(epoch string, now time.Time) (Claim, error) {
	switch {
	case d.State == Completed:
		return ClaimOwn, nil // nothing is left to apply
	case epoch != "" && d.OwnerEpoch == epoch:
		return ClaimOwn, nil
	case d.LeaseExpiresAtUnixNanos == 0:
		return ClaimTakeover, nil
	}
	until := time.Unix(0, d.LeaseExpiresAtUnixNanos)
	if now.After(until.Add(ClockSkew)) {
		return ClaimTakeover, nil
	}
	return ClaimHeld, &LeaseHeldError{What: "disposition " + d.DispositionID, Owner: d.OwnerID, Epoch: d.OwnerEpoch,
		Until: until, TakeoverAt: until.Add(ClockSkew + time.Nanosecond)}
}

// controlHeld reports a live operator-requested attempt lease on the
// control (recovery retry) as a LeaseHeldError; nil when none.
func controlHeld(c *Control, now time.Time) error {
	if !c.leased(now) {
		return nil
	}
	until := time.Unix(0, c.LeaseExpiresAtUnixNanos)
	return &LeaseHeldError{What: "control " + c.ID + " (a retry attempt)", Owner: c.OwnerID, Epoch: c.OwnerEpoch,
		Until: until, TakeoverAt: until.Add(time.Nanosecond)}
}

// AbandonRefusal is the one decision whether an abandon of ctl could start
// at now, given the disposition in flight for it (nil when none): abandon
// enforces it and inspect reports it, so they never disagree.
func AbandonRefusal(ctl *Control, cur *Disposition, now time.Time) error {
	if cur != nil {
		if cur.State == Completed {
			return nil
		}
		_, err := cur.claimOf("", now)
		return err
	}
	if err := controlHeld(ctl, now); err != nil {
		return err
	}
	if !ctl.Classification.CanTransitionTo(Abandoned) {
		return refused("control %s is %s: only retained_ambiguous or operator_required records can be abandoned", ctl.ID, ctl.Classification)
	}
	return nil
}
