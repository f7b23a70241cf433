package journal

import (
	"fmt"
	"strings"

	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/tierdelete"
)

// journal classifies a tier-delete journal by its version's rows
// (docs/design/ilm-records.md#tier-delete-journal).
func (c *classifier) journal(e *entry, j *tierdelete.Journal) {
	st := j.EffectiveState()
	switch j.Version {
	case 1, 2:
		setOut(e, RetainedAmbiguous, QuarantineRetain, "no remote-version authority; never a remote DELETE")
	case 3, 4:
		if j.EffectiveVersionState() == tierdelete.VersionUnknown {
			setOut(e, RetainedAmbiguous, Retain, "unknown version state")
			return
		}
		setOut(e, Recoverable, DeleteRemoteIdempotent, "legacy committed journal with known deletion semantics")
	case 5:
		present := row{Active, Retain, "exact source present: xl.meta remains the remote owner"}
		if st == tierdelete.Prepared {
			present = row{Recoverable, AbortRecord, "exact source present: abort the prepared record"}
		}
		absent := row{Recoverable, CommitThenDeleteRemote, "source and free-version absent in every pool"}
		if st == tierdelete.Committed {
			absent.d = DeleteRemoteIdempotent
		}
		c.bySource(e, j, present, absent)
	default:
		c.journalV6(e, j, st)
	}
}

// row is one decision-table outcome.
type row struct {
	c   Classification
	d   Decision
	why string
}

// bySource finishes a v5/v6 journal's classification from its all-pool
// source lookup: present and absent are the rows its state gives for an
// exact source present and for source and free-version absent in every
// pool. No lookup, an unproven free-version or an uncertain lookup never
// reach either row.
func (c *classifier) bySource(e *entry, j *tierdelete.Journal, present, absent row) {
	sub, subErr := journalSubject(j)
	ev, why := c.source(e, sub, subErr)
	switch ev {
	case EvidenceNone:
		setOut(e, NeedsSourceProof, Retain, fmt.Sprintf("v%d needs an all-pool source/free-version lookup (--filer)", j.Version))
	case EvidencePresent:
		setOut(e, present.c, present.d, present.why)
	case EvidenceAbsent:
		setOut(e, absent.c, absent.d, absent.why)
	case EvidenceSourceAbsent:
		setOut(e, NeedsSourceProof, Retain, freeVersionUnproven)
	default:
		setOut(e, RetainedAmbiguous, Retain, uncertain(ev, why))
	}
}

// freeVersionUnproven is the reason a journal whose source a filer proved
// absent still needs proof: the absence rows need "exact source and
// free-version absent", and free-versions live only in xl.meta.
const freeVersionUnproven = "source version absent, but an xl.meta free-version cannot be ruled out through a filer"

// journalV6 classifies a v6 journal against the manifest that binds it.
func (c *classifier) journalV6(e *entry, j *tierdelete.Journal, st tierdelete.State) {
	if st == tierdelete.Prepared {
		setOut(e, Active, RetainForManifest, "the manifest coordinator owns the prepared set")
		return
	}
	me := c.byKey[j.Dispatch.ManifestObject]
	m := as[tierdelete.Manifest](me)
	if m == nil {
		switch {
		case as[tierdelete.Parent](me) != nil:
			setOut(e, OperatorRequired, Retain, "manifest_object names a chunk parent, not a manifest")
		case me != nil:
			setOut(e, OperatorRequired, Retain, "bound manifest is corrupt")
		case !c.complete:
			setOut(e, RetainedAmbiguous, Retain, "manifest not found and the scan is incomplete")
		default:
			setOut(e, OperatorRequired, Retain, "bound manifest is missing")
		}
		return
	}
	if !m.Contains(e.key) || ilmpath.Simple(m.OperationID) != e.loc.Operation || m.JournalSetSHA256 != j.Dispatch.JournalSetSHA256 || !strings.EqualFold(m.TopologyGeneration, j.Dispatch.TopologyGeneration) {
		setOut(e, OperatorRequired, Retain, "journal does not match its manifest's membership, set digest or topology")
		return
	}
	if m.State != tierdelete.DispatchAuthorized && m.State != tierdelete.ManifestCompleted {
		setOut(e, Active, RetainForManifest, "manifest is "+string(m.State))
		return
	}
	if st == tierdelete.Committed && m.State == tierdelete.DispatchAuthorized {
		setOut(e, Active, WaitForManifest, "committed; waiting for the manifest coordinator to mark Completed")
		return
	}
	present := row{RetainedAmbiguous, Retain, "exact source present next to a v6 journal: multiple possible owners"}
	absent := row{Recoverable, DeleteRemoteIdempotent, "manifest Completed; source and free-version absent"}
	if st == tierdelete.Dispatched {
		absent = row{Recoverable, CommitThenWaitForManifest, "source and free-version absent; commit and wait for the coordinator"}
	}
	c.bySource(e, j, present, absent)
}

// members returns (present, committed, missing-or-bad) counts of a
// manifest's member journals across the scan.
func (c *classifier) members(m *tierdelete.Manifest) (present, committed, bad int) {
	for _, n := range m.JournalNames {
		je := c.byKey[n]
		if je == nil {
			continue
		}
		present++
		mj := as[tierdelete.Journal](je)
		if mj == nil {
			bad++
			continue
		}
		if mj.EffectiveState() == tierdelete.Committed {
			committed++
		}
	}
	return
}

func (c *classifier) manifest(e *entry, m *tierdelete.Manifest) {
	if e.loc.Kind == ilmpath.KindDispatchChunk {
		p := as[tierdelete.Parent](c.byKey[m.RootKey()])
		if p == nil || p.ActiveChunk == nil || p.ActiveChunk.ManifestObject != e.key || p.ActiveChunk.JournalSetSHA256 != m.JournalSetSHA256 {
			if m.State == tierdelete.Preparing || m.State == tierdelete.Aborting || m.State == tierdelete.Aborted {
				// Rollback of an unbound child is still the child
				// coordinator's; it never authorizes anything.
			} else {
				setOut(e, OperatorRequired, Retain, "chunk child is not bound by an active parent")
				return
			}
		}
	}
	present, committed, bad := c.members(m)
	if bad > 0 {
		setOut(e, OperatorRequired, Retain, fmt.Sprintf("%d member journals are corrupt", bad))
		return
	}
	switch m.State {
	case tierdelete.Preparing:
		setOut(e, Recoverable, SealAborting, "not yet authorized; whole-set rollback")
	case tierdelete.Aborting:
		setOut(e, Recoverable, ContinueRollback, "whole-set rollback in progress")
	case tierdelete.Aborted:
		if present == 0 && c.complete {
			setOut(e, Terminal, DeleteRecord, "no staged journal remains")
		} else {
			setOut(e, Terminal, DeleteRecordAfterMembersAbsent, fmt.Sprintf("%d staged journals remain", present))
		}
	case tierdelete.DispatchAuthorized:
		switch {
		case !c.complete:
			setOut(e, RetainedAmbiguous, Retain, "scan incomplete; member set cannot be proven")
		case present < len(m.JournalNames):
			setOut(e, OperatorRequired, Retain, fmt.Sprintf("%d of %d member journals missing", len(m.JournalNames)-present, len(m.JournalNames)))
		case committed == len(m.JournalNames):
			setOut(e, Recoverable, MarkCompleted, "every member is Committed")
		default:
			setOut(e, Active, WaitForMembersCommitted, fmt.Sprintf("%d of %d members Committed", committed, len(m.JournalNames)))
		}
	case tierdelete.ManifestCompleted:
		if present == 0 && c.complete {
			setOut(e, Terminal, DeleteRecord, "every member journal is gone")
		} else {
			setOut(e, Terminal, WaitForMembersAbsent, fmt.Sprintf("%d member journals remain for their workers", present))
		}
	}
}

func (c *classifier) parent(e *entry, p *tierdelete.Parent) {
	if p.State == tierdelete.ParentCompleted {
		setOut(e, Terminal, DeleteRecord, "completed parent with no active child")
		return
	}
	if p.ActiveChunk == nil {
		setOut(e, Active, RetainAndRescan, "no bound child; a later prefix-delete retry rescans")
		return
	}
	ce := c.byKey[p.ActiveChunk.ManifestObject]
	if ce == nil {
		if !c.complete {
			setOut(e, OperatorRequired, Retain, "bound child missing and the scan is incomplete")
			return
		}
		ns := "ilm/tier-delete-journal-v6/" + ilmpath.Simple(p.ActiveChunk.OperationID) + "/"
		for k := range c.byKey {
			if strings.HasPrefix(k, ns) {
				setOut(e, OperatorRequired, Retain, "bound child missing but its journal namespace is non-empty")
				return
			}
		}
		setOut(e, Recoverable, ClearStaleBinding, "bound child missing and its journal namespace is empty")
		return
	}
	m := as[tierdelete.Manifest](ce)
	if m == nil || m.OperationID != p.ActiveChunk.OperationID || m.JournalSetSHA256 != p.ActiveChunk.JournalSetSHA256 || m.JournalCount != p.ActiveChunk.JournalCount || !strings.EqualFold(m.TopologyGeneration, p.TopologyGeneration) || m.Bucket != p.Bucket || m.BucketIncarnation != p.BucketIncarnation || m.Prefix != p.Prefix {
		setOut(e, OperatorRequired, Retain, "child binding does not match the child manifest")
		return
	}
	switch m.State {
	case tierdelete.Preparing, tierdelete.Aborting, tierdelete.Aborted:
		setOut(e, Active, RetainForChildRollback, "child is "+string(m.State))
	case tierdelete.DispatchAuthorized:
		setOut(e, Active, WaitForChildCompletion, "child is DispatchAuthorized")
	case tierdelete.ManifestCompleted:
		setOut(e, Recoverable, AdvanceParent, "child Completed; advance sequence and clear binding")
	}
}
