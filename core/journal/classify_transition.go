package journal

import "github.com/ilmctl/ilmctl/core/transition"

// transaction classifies a transition transaction by its state's row
// (docs/design/ilm-records.md#transition-transaction).
func (c *classifier) transaction(e *entry, t *transition.Transaction) {
	// RustFS's operator reconcile refuses while now < not_after, so the
	// owner window is over at its exact instant (unlike manual-job leases).
	expired := c.now.UnixNano() >= t.NotAfterUnixNanos
	switch t.State {
	case transition.UploadStarted:
		setOut(e, Active, Retain, "the upload may still publish")
	case transition.UploadOutcomeUnknown:
		if !expired {
			setOut(e, Active, Retain, "owner window has not expired")
		} else {
			setOut(e, OperatorRequired, ProbeRemoteCandidate, "expired; an identity-bound provider probe decides")
		}
	case transition.Uploaded:
		if !expired {
			setOut(e, Active, Retain, "owner window has not expired")
		} else {
			setOut(e, Recoverable, CleanupPendingThenDelete, "expired uploaded record")
		}
	case transition.LocalCommitStarted, transition.CleanupPending:
		ev, why := c.source(e, transactionSubject(t), nil)
		switch ev {
		case EvidenceNone:
			setOut(e, NeedsSourceProof, Retain, "needs the logical source lookup and its transition tuple (--filer)")
		case EvidenceSame:
			setOut(e, Terminal, DeleteRecord, "xl.meta holds the same transition tuple")
		case EvidencePresent:
			// Same tuple → delete only the record; differing tuple →
			// delete the candidate. Only xl.meta can tell them apart.
			setOut(e, NeedsSourceProof, Retain, "exact source present, but its transition tuple is in xl.meta, which a filer does not show")
		case EvidenceAbsent, EvidenceSourceAbsent, EvidenceDiffers:
			if t.State == transition.LocalCommitStarted {
				setOut(e, RetainedAmbiguous, Retain, "logical source missing or its tuple differs; no remote delete without a separate cleanup proof")
			} else {
				setOut(e, Recoverable, DeleteCandidateThenRecord, "logical source absent or its tuple differs")
			}
		default:
			setOut(e, RetainedAmbiguous, Retain, uncertain(ev, why))
		}
	case transition.Committed, transition.AbortedNoRemote:
		setOut(e, Terminal, DeleteRecord, "terminal transaction")
	}
}
