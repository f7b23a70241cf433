package decom

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// ErrNotSuccessor is a checkpoint that is neither equal to its predecessor
// nor one legal step after it (docs/design/decommission.md#successors).
var ErrNotSuccessor = errors.New("checkpoint is not a monotonic successor")

// ErrInvalidCheckpoint is a checkpoint whose members contradict each other
// (a journal state beside the wrong committed bit, an invalid progress proof).
var ErrInvalidCheckpoint = errors.New("checkpoint is invalid")

// ErrIdentityNotDerivable is a comparison that needs a record's identity
// digest ilmctl cannot recompute (chunk parents) and whose contents differ.
var ErrIdentityNotDerivable = errors.New("identity digest of this record kind is not derivable by ilmctl")

// Equal reports whether two checkpoints describe the same generation. A
// checkpoint derived from a record without an identity digest equals a
// receipt checkpoint with the same content digest: the stored bytes
// determine every other member.
func Equal(a, b *Checkpoint) bool {
	if a.Kind != b.Kind || a.ContentSHA256 != b.ContentSHA256 {
		return false
	}
	if a.IdentitySHA256 == "" || b.IdentitySHA256 == "" {
		return true
	}
	return bytes.Equal(a.Encode(), b.Encode())
}

// Successor reports nil when next equals prev or is one legal step after
// it, following validate_successor in RustFS's durable_namespace.rs:
// journal states Prepared → Dispatched → Committed; manifest edges
// Preparing → DispatchAuthorized | Aborting, Aborting → Aborted,
// DispatchAuthorized → Completed; chunk-parent revision up with sequence
// and completed-journal count moving together; transition revision up by
// exactly the state distance; probe one revision per edge; manual-job
// updated_at up with monotonic state, flags and progress; scope updated_at
// up. Identity digests never change. Task and result records are
// immutable: only equality passes.
func Successor(prev, next *Checkpoint) error {
	for _, c := range []*Checkpoint{prev, next} {
		if c.Kind == CkJournal && ((c.JournalState != nil) != (c.DispatchIdentitySHA256 != nil) ||
			c.JournalState != nil && c.Committed != (*c.JournalState == "Committed")) {
			return fmt.Errorf("%w: journal state, dispatch binding and committed bit disagree", ErrInvalidCheckpoint)
		}
	}
	if prev.Kind != next.Kind {
		return fmt.Errorf("%w: kind %s became %s", ErrNotSuccessor, prev.Kind, next.Kind)
	}
	if Equal(prev, next) {
		if prev.Kind == CkManualJob && prev.Progress != nil && !prev.Progress.valid() {
			return fmt.Errorf("%w: manual job progress proof", ErrInvalidCheckpoint)
		}
		return nil
	}
	if prev.IdentitySHA256 == "" || next.IdentitySHA256 == "" {
		return fmt.Errorf("%w (%s): contents differ", ErrIdentityNotDerivable, prev.Kind)
	}
	if prev.IdentitySHA256 != next.IdentitySHA256 {
		return fmt.Errorf("%w: identity digest changed", ErrNotSuccessor)
	}
	var ok bool
	var why string
	switch prev.Kind {
	case CkJournal:
		ok, why = journalStep(prev, next)
	case CkManifest:
		ok = tierdelete.ManifestState(prev.ManifestState).CanTransitionTo(tierdelete.ManifestState(next.ManifestState))
		why = fmt.Sprintf("manifest %s → %s is not a legal edge", prev.ManifestState, next.ManifestState)
	case CkParent:
		ok, why = parentStep(prev, next)
	case CkTransition:
		// Each edge is one revision; the states can be joined by paths of
		// different lengths (upload_started reaches cleanup_pending in 2, 3
		// or 4), so the revision gap must be the length of one of them.
		ok = next.Revision > prev.Revision && transition.Steps(transition.State(prev.State), transition.State(next.State), next.Revision-prev.Revision) &&
			(!prev.RemoteVersionKnown || prev.RemoteVersionSHA256 == next.RemoteVersionSHA256)
		why = fmt.Sprintf("transition %s@%d → %s@%d", prev.State, prev.Revision, next.State, next.Revision)
	case CkProbe:
		ok = prev.OwnerFenceSHA256 == next.OwnerFenceSHA256 && next.Revision == prev.Revision+1 &&
			probeReaches(prev.State, next.State, 1) && (!prev.RemoteVersionKnown || prev.RemoteVersionSHA256 == next.RemoteVersionSHA256)
		why = fmt.Sprintf("probe %s@%d → %s@%d", prev.State, prev.Revision, next.State, next.Revision)
	case CkManualJob:
		ok, why = manualJobStep(prev, next)
	case CkManualScope:
		ok = next.UpdatedAtUnixNanos > prev.UpdatedAtUnixNanos
		why = "scope updated_at did not advance"
	default:
		why = "immutable record changed"
	}
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotSuccessor, why)
	}
	return nil
}

func journalStep(prev, next *Checkpoint) (bool, string) {
	var dispatchOK bool
	switch {
	case prev.DispatchIdentitySHA256 != nil && next.DispatchIdentitySHA256 != nil:
		dispatchOK = *prev.DispatchIdentitySHA256 == *next.DispatchIdentitySHA256
	case prev.DispatchIdentitySHA256 == nil && next.DispatchIdentitySHA256 == nil:
		dispatchOK = true
	case prev.DispatchIdentitySHA256 == nil:
		// An older receipt without the v6 binding adopts it only for
		// byte-identical content.
		dispatchOK = prev.ContentSHA256 == next.ContentSHA256
	}
	if !dispatchOK {
		return false, "v6 dispatch binding changed"
	}
	var stateOK bool
	switch {
	case prev.JournalState != nil && next.JournalState != nil:
		p, n := *prev.JournalState, *next.JournalState
		stateOK = p == n || tierdelete.State(p).CanTransitionTo(tierdelete.State(n))
	case prev.JournalState == nil && next.JournalState == nil:
		stateOK = prev.Committed == next.Committed || !prev.Committed && next.Committed
	case prev.JournalState == nil:
		stateOK = prev.ContentSHA256 == next.ContentSHA256
	}
	if !stateOK {
		return false, fmt.Sprintf("journal state %s → %s", journalStateName(prev), journalStateName(next))
	}
	return true, ""
}

func journalStateName(c *Checkpoint) string {
	if c.JournalState != nil {
		return *c.JournalState
	}
	if c.Committed {
		return "committed"
	}
	return "uncommitted"
}

func parentStep(prev, next *Checkpoint) (bool, string) {
	if next.NextChunkSequence < prev.NextChunkSequence || next.CompletedJournalCount < prev.CompletedJournalCount {
		return false, "chunk sequence or completed journal count went backwards"
	}
	seq := next.NextChunkSequence - prev.NextChunkSequence
	done := next.CompletedJournalCount - prev.CompletedJournalCount
	if seq > done {
		return false, "chunk sequence advanced past the completed journal count"
	}
	pa, na := prev.ActiveChunkIdentitySHA256, next.ActiveChunkIdentitySHA256
	samePosition := seq == 0 && done == 0 && !prev.Completed && (pa == nil && na != nil && !next.Completed ||
		pa != nil && na == nil && !next.Completed || pa == nil && na == nil && next.Completed)
	progress := seq > 0 && done > 0 && !(pa != nil && na != nil && *pa == *na)
	switch {
	case prev.Completed:
		return false, "a completed parent has no successor"
	case next.Revision <= prev.Revision:
		return false, fmt.Sprintf("parent revision %d → %d does not advance", prev.Revision, next.Revision)
	case next.Completed && na != nil:
		return false, "a completed parent binds no child"
	case !samePosition && !progress:
		return false, "parent binding/sequence/count change is not one step"
	}
	return true, ""
}

func probeReaches(from, to string, distance uint64) bool {
	switch from + ">" + to {
	case "upload_outcome_unknown>uploaded", "upload_outcome_unknown>cleanup_pending", "upload_outcome_unknown>aborted_no_remote",
		"uploaded>cleanup_pending", "cleanup_pending>completed":
		return distance == 1
	case "upload_outcome_unknown>completed":
		return distance == 2 || distance == 3
	case "uploaded>completed":
		return distance == 2
	}
	return false
}

func manualJobStep(prev, next *Checkpoint) (bool, string) {
	switch {
	case next.UpdatedAtUnixNanos <= prev.UpdatedAtUnixNanos:
		return false, "manual job updated_at did not advance"
	case prev.State != next.State && !manualjob.JobState(prev.State).CanTransitionTo(manualjob.JobState(next.State)):
		return false, fmt.Sprintf("manual job state %s → %s", prev.State, next.State)
	case prev.ScanCompleted && !next.ScanCompleted:
		return false, "manual job scan_completed was cleared"
	case prev.CancelRequested && !next.CancelRequested:
		return false, "manual job cancel_requested was cleared"
	}
	if prev.Progress == nil {
		if next.Progress == nil || !next.Progress.valid() {
			return false, "manual job progress missing or invalid"
		}
		return true, ""
	}
	if next.Progress == nil {
		return false, "manual job progress disappeared"
	}
	if why := progressReaches(prev.Progress, next.Progress, next.ScanCompleted); why != "" {
		return false, why
	}
	return true, ""
}

// progressReaches is manual_job_progress_reaches on two compact proofs;
// "" when next is a monotonic successor of prev.
func progressReaches(p, n *ProgressProof, nextScanCompleted bool) string {
	if !p.valid() || !n.valid() {
		return "manual job progress proof is invalid"
	}
	if p.ScopeSHA256 != n.ScopeSHA256 {
		return "manual job progress scope changed"
	}
	for _, k := range progressCounters {
		if n.Counters[k] < p.Counters[k] {
			return "manual job progress counter " + k + " went backwards"
		}
	}
	for r, c := range p.TierFailureByReason {
		if nc, ok := n.TierFailureByReason[r]; !ok || nc < c {
			return "manual job tier failure count for " + r + " went backwards"
		}
	}
	for _, k := range progressFlags {
		if p.Flags[k] && !n.Flags[k] {
			return "manual job progress flag " + k + " was cleared"
		}
	}
	if !cursorReaches(p, n, nextScanCompleted) {
		return "manual job cursor did not advance monotonically"
	}
	return ""
}

func eqStr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
func eqU64(a, b *uint64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func cursorReaches(p, n *ProgressProof, nextScanCompleted bool) bool {
	if eqStr(p.ContinuationTokenSHA, n.ContinuationTokenSHA) {
		return eqStr(p.CursorMarker, n.CursorMarker) && eqU64(p.CursorRevision, n.CursorRevision)
	}
	scannedUp := n.Counters["scanned"] > p.Counters["scanned"]
	if p.CursorMarker != nil && n.CursorMarker != nil && *p.CursorMarker != *n.CursorMarker {
		return scannedUp && *n.CursorMarker > *p.CursorMarker
	}
	switch {
	case p.ContinuationTokenSHA == nil:
		return scannedUp && (revisionAdvances(p.CursorRevision, n.CursorRevision) || p.CursorRevision == nil && n.CursorRevision == nil)
	case n.ContinuationTokenSHA == nil:
		return nextScanCompleted
	case scannedUp:
		return revisionAdvances(p.CursorRevision, n.CursorRevision)
	}
	return false
}

func revisionAdvances(p, n *uint64) bool {
	switch {
	case p != nil && n != nil:
		return *n > *p
	case p == nil && n != nil:
		return *n > 0
	}
	return false
}

// valid is ManualTransitionJobProgressProof::is_valid.
func (p *ProgressProof) valid() bool {
	var reasons uint64
	for _, c := range p.TierFailureByReason {
		if reasons+c < reasons {
			return false
		}
		reasons += c
	}
	c := p.Counters
	done := c["transition_completed"] + c["transition_failed"]
	switch {
	case !envelope.IsSHA256Hex(p.ScopeSHA256):
		return false
	case p.ContinuationTokenSHA != nil && !envelope.IsSHA256Hex(*p.ContinuationTokenSHA):
		return false
	case p.ContinuationTokenSHA == nil && p.CursorMarker != nil:
		return false
	case p.CursorMarker != nil && (*p.CursorMarker == "" || len(*p.CursorMarker) > maxCursorMarker):
		return false
	case p.ContinuationTokenSHA != nil && p.CursorRevision != nil && *p.CursorRevision == 0:
		return false
	case done < c["transition_completed"] || done > c["enqueued"]:
		return false
	case c["transition_failed"] > c["tier_failure"] || reasons > c["tier_failure"]:
		return false
	}
	return p.Queue.valid()
}

func (q QueueSnapshot) valid() bool {
	return (q.QueueCapacity > 0 || q.Queued == 0) && (q.QueueCapacity == 0 || q.Queued <= q.QueueCapacity) &&
		(q.Workers > 0 || q.Active == 0) && (q.Workers == 0 || q.Active <= q.Workers)
}
