package recovery

import (
	"strconv"
	"strings"

	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// legalSuccessor reports whether a source generation in state next may
// follow one in state prev by exactly one edge of the source protocol's own
// state machine (the codecs' CanTransitionTo). Anything else (a
// multi-edge jump, a schema change, a protocol without a successor
// relation here) is a conflict that keeps the control's counters
// (docs/design/recovery.md#source-generations).
func legalSuccessor(p Protocol, prevSchema, prev, nextSchema, next string) bool {
	if prevSchema != nextSchema || prev == next {
		return false
	}
	switch p {
	case ProtoJournal:
		return tierdelete.State(prev).CanTransitionTo(tierdelete.State(next))
	case ProtoManifest:
		ps, pr, pok := splitRev(prev)
		ns, nr, nok := splitRev(next)
		if pok != nok {
			return false
		}
		if !pok { // single manifest: state only
			return tierdelete.ManifestState(prev).CanTransitionTo(tierdelete.ManifestState(next))
		}
		return nr == pr+1 && (ps == ns || tierdelete.ParentState(ps).CanTransitionTo(tierdelete.ParentState(ns)))
	case ProtoTransition:
		ps, pr, pok := splitRev(prev)
		ns, nr, nok := splitRev(next)
		return pok && nok && nr == pr+1 && transition.State(ps).CanTransitionTo(transition.State(ns))
	case ProtoManual:
		return manualjob.JobState(prev).CanTransitionTo(manualjob.JobState(next))
	}
	return false
}

// splitRev splits "state@revision" as `ilmctl journal` spells versioned
// states.
func splitRev(s string) (string, uint64, bool) {
	st, rev, ok := strings.Cut(s, "@")
	if !ok {
		return s, 0, false
	}
	n, err := strconv.ParseUint(rev, 10, 64)
	return st, n, err == nil
}
