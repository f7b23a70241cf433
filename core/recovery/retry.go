package recovery

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// Retry policy constants (docs/design/recovery.md#retry-policy).
const (
	// BaseDelay is the delay after the first consecutive failure.
	BaseDelay = 60 * time.Second
	// MaxDelay caps the base delay; the multiplier only shortens it.
	MaxDelay = time.Hour
	// MaxConsecutiveFailures moves a control to operator_required.
	MaxConsecutiveFailures = 32
	// MaxFailureAge since the first failure moves it there too.
	MaxFailureAge = 7 * 24 * time.Hour
)

// BaseBackoff is min(60 s × 2^min(n−1, 6), 1 h) for n consecutive
// failures (n ≥ 1; 0 is treated as 1).
func BaseBackoff(consecutive uint64) time.Duration {
	exp := uint64(0)
	if consecutive > 1 {
		exp = min(consecutive-1, 6)
	}
	return min(BaseDelay<<exp, MaxDelay)
}

// MultiplierPermille is the deterministic 800..1000 ‰ multiplier derived
// from the source-generation digest and the attempt count: the same
// inputs give the same deadline after a restart, different records spread
// out instead of retrying in step.
func MultiplierPermille(generationDigest string, attempt uint64) uint64 {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], attempt)
	h := sha256.New()
	h.Write([]byte(generationDigest))
	h.Write([]byte{0})
	h.Write(n[:])
	sum := h.Sum(nil)
	return 800 + binary.BigEndian.Uint64(sum[:8])%201
}

// Backoff is the scheduled delay: the capped base times the multiplier,
// so never more than MaxDelay.
func Backoff(generationDigest string, attempt, consecutive uint64) time.Duration {
	base := BaseBackoff(consecutive)
	return time.Duration(int64(base) / 1000 * int64(MultiplierPermille(generationDigest, attempt)))
}

// RecordFailure applies one retryable failure observed at now: counters
// advance, the next attempt is scheduled, and after MaxConsecutiveFailures
// or MaxFailureAge since the first failure the control becomes
// operator_required with automatic attempts stopped. The attempt itself
// must already be counted (StartAttempt).
func (c *Control) RecordFailure(now time.Time, code ErrorCode) {
	ns := now.UnixNano()
	c.ConsecutiveFailureCount++
	if c.FirstFailureAtUnixNanos == 0 {
		c.FirstFailureAtUnixNanos = ns
	}
	c.LastFailureAtUnixNanos = ns
	c.LastErrorCode = code
	c.clearLease()
	if c.ConsecutiveFailureCount >= MaxConsecutiveFailures ||
		now.Sub(time.Unix(0, c.FirstFailureAtUnixNanos)) >= MaxFailureAge {
		c.Classification = OperatorRequired
		c.LastErrorCode = ErrCodeRetriesExhausted
		c.NextAttemptAtUnixNanos = 0
		return
	}
	c.Classification = Retrying
	c.NextAttemptAtUnixNanos = now.Add(Backoff(c.Observed.Digest(), c.AttemptCount, c.ConsecutiveFailureCount)).UnixNano()
}

// RecordSuccess applies a success or a proven source-state advance: the
// consecutive count resets, the lifetime attempt count never decreases.
func (c *Control) RecordSuccess() {
	c.ConsecutiveFailureCount = 0
	c.FirstFailureAtUnixNanos = 0
	c.NextAttemptAtUnixNanos = 0
	c.LastErrorCode = ErrCodeNone
	c.clearLease()
}

// StartAttempt counts one coordinator attempt (once per attempt, never per
// replica or CAS retry).
func (c *Control) StartAttempt() { c.AttemptCount++ }

// Due reports whether an automatic attempt may start at now: only a
// retrying control whose not-before hint has passed. Every other class is
// left alone until an operator acts, so nothing is hot-looped.
func (c *Control) Due(now time.Time) bool {
	return c.Classification.Automatic() && now.UnixNano() >= c.NextAttemptAtUnixNanos
}

func (c *Control) clearLease() {
	c.OwnerID, c.OwnerEpoch = "", ""
	c.LeaseAcquiredAtUnixNanos, c.LeaseExpiresAtUnixNanos = 0, 0
}

// leased reports whether an operator-requested attempt owns c at now. As
// with RustFS's own leases, a lease is held through its expiry instant and
// expired only when now is later.
func (c *Control) leased(now time.Time) bool {
	return c.OwnerID != "" && now.UnixNano() <= c.LeaseExpiresAtUnixNanos
}
