package engine

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"time"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// ReplayContentHash hashes the content (bucket, rule ID, action kind,
// predicate, TTL, due rounding, expired-marker policy) of every enabled
// replay-eligible action, in
// key order. It is the cursor's RuleSetHash: a mismatch means the rules that
// processed the events before the cursor have changed
// (docs/design/daily-run.md#cursor-hashes). The zero value means the snapshot has no replay-eligible action.
func ReplayContentHash(s *Snapshot) [32]byte {
	return hashActions(s, func(a *CompiledAction) bool {
		return a.Mode != ModeDisabled && a.Key.Kind.ReplayEligible()
	})
}

// PromotedHash hashes the replay-eligible actions that retentionWindow
// promotes to the walker (their effective TTL exceeds it). A mismatch with
// the cursor is a partition flip. Zero when nothing is promoted.
func PromotedHash(s *Snapshot, retentionWindow time.Duration) [32]byte {
	return hashActions(s, func(a *CompiledAction) bool {
		return a.Mode != ModeDisabled && a.Key.Kind.ReplayEligible() && s.promoted(a, retentionWindow)
	})
}

func hashActions(s *Snapshot, include func(*CompiledAction) bool) [32]byte {
	var out [32]byte
	h := sha256.New()
	n := 0
	for _, a := range s.actions {
		if !include(a) {
			continue
		}
		n++
		writeAction(h, a, s)
	}
	if n == 0 {
		return out
	}
	copy(out[:], h.Sum(nil))
	return out
}

// writeAction writes one action's content, length-prefixing strings so no
// two different rule sets share an encoding.
func writeAction(h hash.Hash, a *CompiledAction, s *Snapshot) {
	f := &a.Rule.Filter
	str := func(v string) { fmt.Fprintf(h, "%d:%s;", len(v), v) }
	str(a.Key.Bucket)
	str(a.Key.RuleID)
	str(string(a.Key.Kind))
	str(s.Rounding.String())
	fmt.Fprintf(h, "ttl=%d;", int64(a.TTL))
	str(f.Prefix)
	fmt.Fprintf(h, "tags=%d;", len(f.Tags))
	for _, t := range f.Tags {
		str(t.Key)
		str(t.Value)
	}
	for _, p := range []*int64{f.SizeGreaterThan, f.SizeLessThan} {
		if p == nil {
			fmt.Fprint(h, "size=-;")
		} else {
			fmt.Fprintf(h, "size=%d;", *p)
		}
	}
	// An ExpirationDays action that also removes expired object delete
	// markers matches events (marker puts, removals) the one that keeps them
	// let the cursor pass: switching to it, from --expired-marker-days keep
	// or from an ilmctl that kept them, must walk to find those markers.
	if a.Key.Kind == lifecycle.ExpirationDays && s.ExpiredMarkers == lifecycle.ExpiredMarkersAWS {
		fmt.Fprint(h, "markers=aws;")
	}
	// NewerNoncurrentVersions is not replay content: a rule that sets it
	// compiles to walker-bound NewerNoncurrent instead of NoncurrentDays, so
	// hashing it would turn a walker-only edit into a recovery walk.
	fmt.Fprint(h, "|")
}
