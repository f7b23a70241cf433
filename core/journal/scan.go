package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// Protocol is the --protocol grouping of record kinds.
type Protocol string

// Protocols.
const (
	ProtoJournal    Protocol = "tier_delete_journal"
	ProtoManifest   Protocol = "tier_delete_manifest"
	ProtoTransition Protocol = "transition_transaction"
	ProtoManual     Protocol = "manual_transition"
	ProtoOther      Protocol = "other" // registered but unsupported, or unregistered
)

// Protocols lists the selectable protocols.
var Protocols = []Protocol{ProtoJournal, ProtoManifest, ProtoTransition, ProtoManual, ProtoOther}

// Options configure a scan.
type Options struct {
	Clock    func() time.Time // required
	Sources  SourceProver     // optional
	PageSize int              // list page size; 0 means 1000
}

// Copy is one pool's copy of a record.
type Copy struct {
	Pool         string    `json:"pool"`
	ETag         string    `json:"etag"`
	SHA256       string    `json:"sha256"`
	LastModified time.Time `json:"last_modified"`
}

// Record is one classified durable record (all pool copies of one key).
type Record struct {
	Path           string         `json:"path"`
	Protocol       Protocol       `json:"protocol"`
	Kind           ilmpath.Kind   `json:"kind"`
	Schema         string         `json:"schema"` // schema or "v<N>"
	State          string         `json:"state"`
	Owner          string         `json:"owner"`
	AgeSeconds     *int64         `json:"age_seconds,omitempty"`
	Classification Classification `json:"classification"`
	Decision       Decision       `json:"decision"`
	Reason         string         `json:"reason,omitempty"`
	// SourceEvidence is the source lookup's outcome for records that need
	// one; empty when no lookup was made.
	SourceEvidence Evidence `json:"source_evidence,omitempty"`
	Copies         []Copy   `json:"copies"`
	// Decoded is the decoded payload (typed struct) or nil when corrupt.
	Decoded any `json:"-"`
	// Raw is the first copy's bytes.
	Raw []byte `json:"-"`
}

// PoolError is a pool that could not be read completely.
type PoolError struct {
	Pool  string `json:"pool"`
	Error string `json:"error"`
}

// Report is a scan result.
type Report struct {
	Records    []Record    `json:"records"`
	Incomplete bool        `json:"incomplete"`
	PoolErrors []PoolError `json:"pool_errors,omitempty"`
}

type entry struct {
	key    string
	copies []Copy
	data   [][]byte
	rec    Record
	loc    ilmpath.Location
	locErr error
	j      *tierdelete.Journal
	m      *tierdelete.Manifest
	p      *tierdelete.Parent
	t      *transition.Transaction
	job    *manualjob.Job
	scope  *manualjob.Scope
	task   *manualjob.Task
	res    *manualjob.Result
	err    error
}

// Scan reads every record under ilm/ in every pool and classifies it. A
// pool whose listing fails (including a truncated page without a token)
// marks the report incomplete; records of that pool's failed page are not
// read.
func Scan(ctx context.Context, pools []metastore.Store, opt Options) (*Report, error) {
	if opt.Clock == nil {
		return nil, errors.New("journal.Scan: a clock is required")
	}
	if opt.PageSize == 0 {
		opt.PageSize = 1000
	}
	rep := &Report{}
	byKey := map[string]*entry{}
	for _, s := range pools {
		err := metastore.ListAll(ctx, s, ilmpath.Root, opt.PageSize, func(objs []metastore.Object) error {
			for _, o := range objs {
				data, etag, err := s.Get(ctx, o.Key)
				if errors.Is(err, metastore.ErrNotFound) {
					continue // deleted between list and read
				}
				if err != nil {
					return err
				}
				e := byKey[o.Key]
				if e == nil {
					e = &entry{key: o.Key}
					byKey[o.Key] = e
				}
				e.copies = append(e.copies, Copy{Pool: s.Name(), ETag: etag, SHA256: envelope.SHA256Hex(data), LastModified: o.LastModified})
				e.data = append(e.data, data)
			}
			return nil
		})
		if err != nil {
			rep.Incomplete = true
			rep.PoolErrors = append(rep.PoolErrors, PoolError{Pool: s.Name(), Error: err.Error()})
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		decode(byKey[k])
	}
	c := &classifier{ctx: ctx, opt: opt, byKey: byKey, complete: !rep.Incomplete}
	for _, k := range keys {
		e := byKey[k]
		c.classify(e)
		rep.Records = append(rep.Records, e.rec)
	}
	return rep, nil
}

// Show classifies the one record at key in the context of a full scan
// (membership and binding checks need the other records).
func Show(ctx context.Context, pools []metastore.Store, key string, opt Options) (*Record, *Report, error) {
	rep, err := Scan(ctx, pools, opt)
	if err != nil {
		return nil, nil, err
	}
	for i := range rep.Records {
		if rep.Records[i].Path == key {
			return &rep.Records[i], rep, nil
		}
	}
	return nil, rep, fmt.Errorf("no record at %q in any pool: %w", key, metastore.ErrNotFound)
}

func protocolOf(k ilmpath.Kind) Protocol {
	switch k {
	case ilmpath.KindTierDeleteJournal, ilmpath.KindTierDeleteJournalV6:
		return ProtoJournal
	case ilmpath.KindDispatchRoot, ilmpath.KindDispatchChunk:
		return ProtoManifest
	case ilmpath.KindTransition:
		return ProtoTransition
	case ilmpath.KindManualJob, ilmpath.KindManualScope, ilmpath.KindManualTask, ilmpath.KindManualResult:
		return ProtoManual
	}
	return ProtoOther
}

func decode(e *entry) {
	e.rec = Record{Path: e.key, Copies: e.copies, Raw: e.data[0]}
	e.loc, e.locErr = ilmpath.Parse(e.key)
	e.rec.Kind = e.loc.Kind
	e.rec.Protocol = protocolOf(e.loc.Kind)
	if e.locErr != nil {
		e.err = e.locErr
		return
	}
	data := e.data[0]
	if len(data) > e.loc.Namespace.MaxSize {
		e.err = envelope.Errf(string(e.loc.Kind), "", envelope.ErrTooLarge, "%d bytes > %d", len(data), e.loc.Namespace.MaxSize)
		return
	}
	var err error
	switch e.loc.Kind {
	case ilmpath.KindTierDeleteJournal, ilmpath.KindTierDeleteJournalV6:
		if e.j, err = tierdelete.DecodeJournal(data); err == nil {
			err = e.j.CheckPath(e.key)
			if err == nil && (e.j.Version == 6) != (e.loc.Kind == ilmpath.KindTierDeleteJournalV6) {
				err = envelope.Errf("tier_delete_journal", "version", envelope.ErrPath, "journal v%d in the wrong namespace", e.j.Version)
			}
			e.rec.Decoded = e.j
		}
	case ilmpath.KindDispatchRoot:
		if tierdelete.IsChunkParent(data) {
			e.p, err = tierdelete.DecodeParent(e.key, data)
			e.rec.Decoded = e.p
		} else {
			e.m, err = tierdelete.DecodeManifest(e.key, data)
			if err == nil && e.m.RootKey() != e.key {
				err = envelope.Errf("tier_delete_manifest", "", envelope.ErrPath, "child manifest stored at the root key")
			}
			e.rec.Decoded = e.m
		}
	case ilmpath.KindDispatchChunk:
		e.m, err = tierdelete.DecodeManifest(e.key, data)
		if err == nil && e.m.ChunkKey() != e.key {
			err = envelope.Errf("tier_delete_manifest", "", envelope.ErrPath, "manifest does not belong at this chunk key")
		}
		e.rec.Decoded = e.m
	case ilmpath.KindTransition:
		e.t, err = transition.Decode(e.key, data)
		e.rec.Decoded = e.t
	case ilmpath.KindManualJob:
		e.job, err = manualjob.DecodeJob(e.key, data)
		e.rec.Decoded = e.job
	case ilmpath.KindManualScope:
		e.scope, err = manualjob.DecodeScope(e.key, data)
		e.rec.Decoded = e.scope
	case ilmpath.KindManualTask:
		e.task, err = manualjob.DecodeTask(e.key, data)
		e.rec.Decoded = e.task
	case ilmpath.KindManualResult:
		e.res, err = manualjob.DecodeResult(e.key, data)
		e.rec.Decoded = e.res
	default:
		err = fmt.Errorf("namespace %s is registered but ilmctl does not decode it yet", e.loc.Namespace.Name)
	}
	if err != nil {
		e.err = err
		e.rec.Decoded = nil
	}
}

func setOut(e *entry, c Classification, d Decision, reason string) {
	e.rec.Classification, e.rec.Decision, e.rec.Reason = c, d, reason
}

// copiesAgree reports whether every pool holds identical bytes.
func copiesAgree(e *entry) bool {
	for _, d := range e.data[1:] {
		if !bytes.Equal(d, e.data[0]) {
			return false
		}
	}
	return true
}

type classifier struct {
	ctx      context.Context
	opt      Options
	byKey    map[string]*entry
	complete bool
}

func (c *classifier) classify(e *entry) {
	now := c.opt.Clock()
	oldest := e.copies[0].LastModified
	for _, cp := range e.copies {
		if cp.LastModified.Before(oldest) {
			oldest = cp.LastModified
		}
	}
	if !oldest.IsZero() {
		age := int64(now.Sub(oldest) / time.Second)
		e.rec.AgeSeconds = &age
	}
	if e.err != nil {
		if errors.Is(e.err, ilmpath.ErrUnregistered) {
			e.rec.Schema = "unregistered"
		}
		setOut(e, Corrupt, Retain, e.err.Error())
		return
	}
	if !copiesAgree(e) {
		setOut(e, OperatorRequired, Retain, fmt.Sprintf("%d pools hold divergent copies of this record", len(e.copies)))
		c.describe(e)
		return
	}
	c.describe(e)
	switch {
	case e.j != nil:
		c.journal(e)
	case e.m != nil:
		c.manifest(e)
	case e.p != nil:
		c.parent(e)
	case e.t != nil:
		c.transaction(e)
	case e.job != nil:
		c.job(e, now)
	case e.scope != nil:
		if time.Unix(0, e.scope.LeaseExpiresAtUnixNanos).After(now) {
			setOut(e, Active, LeaveToOwner, "scope lease is live")
		} else {
			setOut(e, Recoverable, TakeOver, "scope lease expired; a claimant may CAS-replace it")
		}
	case e.task != nil:
		switch re := c.byKey[ilmpath.ManualResultKey(e.task.JobID, e.task.TaskKey)]; {
		case re != nil && re.res == nil:
			setOut(e, OperatorRequired, Retain, "the task's worker result is corrupt: neither a result nor proof of none")
		case re != nil:
			setOut(e, Terminal, RetainHistory, "task has a worker result")
		default:
			setOut(e, Active, ReplayIfNoResult, "no worker result yet; the job owner replays it")
		}
	case e.res != nil:
		setOut(e, Terminal, RetainHistory, "worker result history; no GC owner")
	}
}

func (c *classifier) describe(e *entry) {
	switch {
	case e.j != nil:
		e.rec.Schema = fmt.Sprintf("v%d", e.j.Version)
		e.rec.State = string(e.j.EffectiveState())
		switch {
		case e.j.Version <= 2:
			e.rec.Owner = "quarantine"
		case e.j.Version == 6:
			e.rec.Owner = "manifest operation " + e.j.Dispatch.OperationID
		default:
			e.rec.Owner = "journal recovery"
		}
	case e.m != nil:
		e.rec.Schema = "v1"
		e.rec.State = string(e.m.State)
		e.rec.Owner = "manifest operation " + e.m.OperationID
	case e.p != nil:
		e.rec.Schema = "v1 chunked_parent"
		e.rec.State = fmt.Sprintf("%s@%d", e.p.State, e.p.Revision)
		e.rec.Owner = "parent operation " + e.p.OperationID
	case e.t != nil:
		e.rec.Schema = transition.Schema
		e.rec.State = fmt.Sprintf("%s@%d", e.t.State, e.t.Revision)
		e.rec.Owner = "owner_epoch " + e.t.OwnerEpoch
	case e.job != nil:
		e.rec.Schema = manualjob.JobSchema
		e.rec.State = string(e.job.State)
		e.rec.Owner = e.job.OwnerID + " lease " + e.job.LeaseID
	case e.scope != nil:
		e.rec.Schema = manualjob.JobSchema
		e.rec.State = "admitted"
		e.rec.Owner = e.scope.OwnerID + " job " + e.scope.JobID
	case e.task != nil:
		e.rec.Schema = manualjob.TaskSchema
		e.rec.State = "queued"
		e.rec.Owner = "job " + e.task.JobID
	case e.res != nil:
		e.rec.Schema = manualjob.ResultSchema
		e.rec.State = string(e.res.Result)
		e.rec.Owner = "job " + e.res.JobID
	}
}

// source runs the lookup for one record and stores the evidence on it.
// Without a prover it returns EvidenceNone. An error, or a subject the
// record cannot state exactly, is EvidenceUncertain with the reason: it is
// never absence.
func (c *classifier) source(e *entry, sub SourceSubject, subErr error) (Evidence, string) {
	if c.opt.Sources == nil {
		return EvidenceNone, ""
	}
	ev, why := EvidenceUncertain, ""
	if subErr != nil {
		why = subErr.Error()
	} else {
		got, err := c.opt.Sources.SourceEvidence(c.ctx, sub)
		if err != nil {
			why = err.Error()
		} else {
			ev = got
		}
	}
	e.rec.SourceEvidence = ev
	return ev, why
}

func (c *classifier) journal(e *entry) {
	j := e.j
	st := j.EffectiveState()
	switch j.Version {
	case 1, 2:
		setOut(e, RetainedAmbiguous, QuarantineRetain, "no remote-version authority; never a remote DELETE")
		return
	case 3, 4:
		if j.EffectiveVersionState() == tierdelete.VersionUnknown {
			setOut(e, RetainedAmbiguous, Retain, "unknown version state")
			return
		}
		setOut(e, Recoverable, DeleteRemoteIdempotent, "legacy committed journal with known deletion semantics")
		return
	case 5:
		sub, subErr := journalSubject(j)
		ev, why := c.source(e, sub, subErr)
		switch ev {
		case EvidenceNone:
			setOut(e, NeedsSourceProof, Retain, "v5 needs an all-pool source/free-version lookup (--filer)")
		case EvidencePresent:
			if st == tierdelete.Prepared {
				setOut(e, Recoverable, AbortRecord, "exact source present: abort the prepared record")
			} else {
				setOut(e, Active, Retain, "exact source present: xl.meta remains the remote owner")
			}
		case EvidenceAbsent:
			if st == tierdelete.Committed {
				setOut(e, Recoverable, DeleteRemoteIdempotent, "source and free-version absent in every pool")
			} else {
				setOut(e, Recoverable, CommitThenDeleteRemote, "source and free-version absent in every pool")
			}
		case EvidenceSourceAbsent:
			setOut(e, NeedsSourceProof, Retain, freeVersionUnproven)
		default:
			setOut(e, RetainedAmbiguous, Retain, uncertain(ev, why))
		}
		return
	}
	// v6
	if st == tierdelete.Prepared {
		setOut(e, Active, RetainForManifest, "the manifest coordinator owns the prepared set")
		return
	}
	me := c.byKey[j.Dispatch.ManifestObject]
	if me == nil || me.m == nil {
		if me != nil && me.p != nil {
			setOut(e, OperatorRequired, Retain, "manifest_object names a chunk parent, not a manifest")
		} else if !c.complete {
			setOut(e, RetainedAmbiguous, Retain, "manifest not found and the scan is incomplete")
		} else {
			setOut(e, OperatorRequired, Retain, "bound manifest is missing")
		}
		return
	}
	m := me.m
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
	sub, subErr := journalSubject(j)
	ev, why := c.source(e, sub, subErr)
	switch ev {
	case EvidenceNone:
		setOut(e, NeedsSourceProof, Retain, "v6 needs an all-pool source/free-version lookup (--filer)")
	case EvidencePresent:
		setOut(e, RetainedAmbiguous, Retain, "exact source present next to a v6 journal: multiple possible owners")
	case EvidenceAbsent:
		if st == tierdelete.Dispatched {
			setOut(e, Recoverable, CommitThenWaitForManifest, "source and free-version absent; commit and wait for the coordinator")
		} else {
			setOut(e, Recoverable, DeleteRemoteIdempotent, "manifest Completed; source and free-version absent")
		}
	case EvidenceSourceAbsent:
		setOut(e, NeedsSourceProof, Retain, freeVersionUnproven)
	default:
		setOut(e, RetainedAmbiguous, Retain, uncertain(ev, why))
	}
}

// freeVersionUnproven is the reason a journal whose source a filer proved
// absent still needs proof: the design's absence rows need "exact
// source/free-version absent", and free-versions live only in xl.meta.
const freeVersionUnproven = "source version absent, but an xl.meta free-version cannot be ruled out through a filer"

// uncertain is the reason for evidence that decides nothing.
func uncertain(ev Evidence, why string) string {
	if ev != EvidenceUncertain {
		return fmt.Sprintf("source lookup returned %q, which does not apply to this record", ev)
	}
	return "source lookup uncertain: " + why
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
		if je.j == nil {
			bad++
			continue
		}
		if je.j.EffectiveState() == tierdelete.Committed {
			committed++
		}
	}
	return
}

func (c *classifier) manifest(e *entry) {
	m := e.m
	if e.loc.Kind == ilmpath.KindDispatchChunk {
		pe := c.byKey[m.RootKey()]
		if pe == nil || pe.p == nil || pe.p.ActiveChunk == nil || pe.p.ActiveChunk.ManifestObject != e.key || pe.p.ActiveChunk.JournalSetSHA256 != m.JournalSetSHA256 {
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

func (c *classifier) parent(e *entry) {
	p := e.p
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
	m := ce.m
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

func (c *classifier) transaction(e *entry) {
	t := e.t
	now := c.opt.Clock()
	expired := now.UnixNano() >= t.NotAfterUnixNanos
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

func (c *classifier) job(e *entry, now time.Time) {
	j := e.job
	if j.State.Terminal() {
		setOut(e, Terminal, SkipTerminal, "terminal job history")
		return
	}
	if time.Unix(0, j.LeaseExpiresAtUnixNanos).After(now) {
		if c.byKey[ilmpath.ManualScopeKey(j.ScopeKey)] == nil {
			setOut(e, Active, LeaveToOwner, "lease live but no scope admission; skipped until expiry")
		} else {
			setOut(e, Active, LeaveToOwner, "lease is live")
		}
		return
	}
	switch {
	case j.ScanCompleted:
		setOut(e, Recoverable, ReconcileResults, "expired; scan completed")
	case j.CancelRequested:
		setOut(e, Recoverable, CancelJob, "expired with cancel requested")
	default:
		setOut(e, Recoverable, TakeOver, "expired lease")
	}
}
