package recovery

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// SourceView is what the recovery scan knows about one source record: its
// identity, the class `ilmctl journal` gave it and its exact generation.
type SourceView struct {
	Protocol       Protocol
	Path           string
	StableIdentity string
	RecordClass    string
	Journal        journal.Classification
	Generation     Generation
}

// want is what a journal classification asks of a control.
type want int

const (
	wantNothing want = iota // the owner can act: no control needed
	wantFixed               // a non-automatic class (never scheduled)
	wantRetry               // a retryable failure (evidence not collected)
)

func desired(j journal.Classification) (want, Classification, ErrorCode) {
	switch j {
	case journal.Corrupt:
		return wantFixed, Corrupt, ErrCodeNone
	case journal.RetainedAmbiguous:
		return wantFixed, RetainedAmbiguous, ErrCodeNone
	case journal.OperatorRequired:
		return wantFixed, OperatorRequired, ErrCodeNone
	case journal.NeedsSourceProof:
		return wantRetry, Retrying, ErrCodeSourceProof
	case journal.Terminal:
		return wantNothing, Terminal, ErrCodeNone
	}
	return wantNothing, Retrying, ErrCodeNone // active, recoverable: the protocol's owner acts
}

// ScanOutcome is what the scan did with one source record.
type ScanOutcome string

// Scan outcomes.
const (
	OutcomeCreated    ScanOutcome = "created"
	OutcomeUpdated    ScanOutcome = "updated"
	OutcomeUnchanged  ScanOutcome = "unchanged"
	OutcomeDeferred   ScanOutcome = "deferred"   // retrying, not due yet
	OutcomeConflict   ScanOutcome = "conflict"   // generation conflict recorded, or a write lost a race
	OutcomeIncomplete ScanOutcome = "incomplete" // no actionable generation: a pool was unreadable
)

// AttemptResult labels one counted attempt (metrics).
type AttemptResult string

// Attempt results.
const (
	AttemptSuccess  AttemptResult = "success"
	AttemptFailure  AttemptResult = "failure"
	AttemptEscalate AttemptResult = "operator_required"
	AttemptClassify AttemptResult = "classified"
)

// Decision is Decide's verdict: Next is the control to write (nil: write
// nothing); Attempt is set when an attempt was counted.
type Decision struct {
	Next    *Control
	Outcome ScanOutcome
	Attempt AttemptResult
}

// Decide is the recovery scan's pure decision for one source record and
// its existing control (nil when none), at now. complete is false when a
// pool could not be read: such a pass records a metadata failure on a due
// control and creates nothing. Final controls are never touched; a
// non-automatic class is left alone while its generation is unchanged, so
// no record is hot-looped (docs/design/recovery.md#recovery-scan).
func Decide(cur *Control, v SourceView, now time.Time, complete bool) Decision {
	w, class, code := desired(v.Journal)
	if cur == nil {
		if !complete {
			return Decision{Outcome: OutcomeIncomplete}
		}
		if w == wantNothing {
			return Decision{}
		}
		c := &Control{
			ID: ControlID(v.Protocol, v.Path, v.StableIdentity), Protocol: v.Protocol, SourcePath: v.Path,
			StableIdentity: v.StableIdentity, RecordClass: v.RecordClass, FirstSeenAtUnixNanos: now.UnixNano(),
			Observed: v.Generation, Revision: 1, Classification: class, LastErrorCode: ErrCodeNone,
		}
		d := Decision{Next: c, Outcome: OutcomeCreated}
		if w == wantRetry {
			c.StartAttempt()
			c.RecordFailure(now, code)
			d.Attempt = AttemptFailure
		}
		return d
	}
	if cur.Classification.Final() {
		return Decision{Outcome: OutcomeUnchanged}
	}
	next := *cur
	next.Revision++
	if !complete {
		if !cur.Due(now) {
			return Decision{Outcome: OutcomeDeferred}
		}
		next.StartAttempt()
		next.RecordFailure(now, ErrCodeMetadataUnavailable)
		return Decision{Next: &next, Outcome: OutcomeIncomplete, Attempt: failureResult(&next)}
	}
	if !cur.Observed.Equal(v.Generation) {
		legal := legalSuccessor(v.Protocol, cur.Observed.SourceSchema, cur.Observed.SourceState, v.Generation.SourceSchema, v.Generation.SourceState)
		if !legal && cur.leased(now) {
			// An operator asked for this attempt (recovery retry): the new
			// generation is adopted without resetting any counter, and
			// decided like any other attempt.
			next.Observed = v.Generation
			next.StartAttempt()
			next.clearLease()
			if w == wantRetry {
				next.RecordFailure(now, code)
				return Decision{Next: &next, Outcome: OutcomeUpdated, Attempt: failureResult(&next)}
			}
			next.NextAttemptAtUnixNanos = 0
			next.Classification = class
			if w == wantNothing {
				applyWant(&next, w, class, code, now)
			}
			return Decision{Next: &next, Outcome: OutcomeUpdated, Attempt: AttemptClassify}
		}
		if !legal {
			if cur.Classification == OperatorRequired && cur.LastErrorCode == ErrCodeGenerationConflict {
				return Decision{Outcome: OutcomeConflict}
			}
			next.Classification = OperatorRequired
			next.LastErrorCode = ErrCodeGenerationConflict
			next.NextAttemptAtUnixNanos = 0
			next.clearLease()
			return Decision{Next: &next, Outcome: OutcomeConflict}
		}
		// A proven one-edge source advance: the new generation is
		// observed and the consecutive count resets; the lifetime count
		// and first-seen time are kept.
		next.Observed = v.Generation
		next.RecordSuccess()
		if w == wantRetry {
			// The new generation still lacks its evidence: that is this
			// attempt's failure, counted from a fresh window.
			next.StartAttempt()
			next.RecordFailure(now, code)
			return Decision{Next: &next, Outcome: OutcomeUpdated, Attempt: failureResult(&next)}
		}
		applyWant(&next, w, class, code, now)
		return Decision{Next: &next, Outcome: OutcomeUpdated, Attempt: AttemptSuccess}
	}
	if !cur.Classification.Automatic() {
		return Decision{Outcome: OutcomeUnchanged}
	}
	if !cur.Due(now) {
		return Decision{Outcome: OutcomeDeferred}
	}
	next.StartAttempt()
	switch w {
	case wantRetry:
		next.RecordFailure(now, code)
		return Decision{Next: &next, Outcome: OutcomeUpdated, Attempt: failureResult(&next)}
	case wantFixed:
		next.clearLease()
		next.NextAttemptAtUnixNanos = 0
		next.Classification = class
		return Decision{Next: &next, Outcome: OutcomeUpdated, Attempt: AttemptClassify}
	}
	next.RecordSuccess()
	applyWant(&next, w, class, code, now)
	return Decision{Next: &next, Outcome: OutcomeUpdated, Attempt: AttemptSuccess}
}

func failureResult(c *Control) AttemptResult {
	if c.Classification == OperatorRequired {
		return AttemptEscalate
	}
	return AttemptFailure
}

// applyWant sets the class a (reset) control takes for w. A record its
// owner can act on is not ilmctl's failure: it is rechecked after the
// capped delay, never sooner.
func applyWant(c *Control, w want, class Classification, code ErrorCode, now time.Time) {
	switch w {
	case wantRetry:
		c.RecordFailure(now, code)
	case wantFixed:
		c.Classification = class
	default:
		c.Classification = class
		if class == Retrying {
			c.NextAttemptAtUnixNanos = now.Add(Backoff(c.Observed.Digest(), c.AttemptCount, MaxConsecutiveFailures)).UnixNano()
		}
	}
}

// ScanOptions configure Scan.
type ScanOptions struct {
	Clock    func() time.Time     // required
	Sources  journal.SourceProver // optional, as for `ilmctl journal`
	PageSize int                  // list page size; 0 means 1000
}

// ScanItem is one source record the scan considered.
type ScanItem struct {
	ControlID      string         `json:"control_id"`
	Protocol       Protocol       `json:"protocol"`
	SourcePath     string         `json:"source_path"`
	Classification Classification `json:"classification"`
	Outcome        ScanOutcome    `json:"outcome"`
	Attempt        AttemptResult  `json:"attempt,omitempty"`
	ErrorCode      ErrorCode      `json:"last_error_code,omitempty"`
	Error          string         `json:"error,omitempty"`
}

// ScanReport is one recovery pass.
type ScanReport struct {
	Items          []ScanItem          `json:"items"`
	Incomplete     bool                `json:"incomplete"`
	PoolErrors     []journal.PoolError `json:"pool_errors,omitempty"`
	CorruptRecords int                 `json:"corrupt_records"`
	CorruptControl int                 `json:"corrupt_controls"`
	// CorruptDispositions are disposition receipts that fail strict
	// decoding: kept, never resumed (abandon refuses them).
	CorruptDispositions []string `json:"corrupt_dispositions,omitempty"`
	OrphanControls      int      `json:"orphan_controls"`
	// Controls is every control after the pass, for metrics.
	Controls []*Control `json:"-"`
}

// sourceProtocol maps a journal protocol to a recovery one; records of
// the recovery namespaces themselves and unregistered keys have none.
func sourceProtocol(r *journal.Record) (Protocol, bool) {
	switch r.Kind {
	case ilmpath.KindRecoveryControl, ilmpath.KindRecoveryExport, ilmpath.KindRecoveryDisposition:
		return "", false
	}
	p, err := ParseProtocol(string(r.Protocol))
	return p, err == nil
}

// stableIdentity is the record's semantic identity from its canonical
// path, or the corrupt domain when its bytes cannot be trusted.
func stableIdentity(r *journal.Record) string {
	if r.Classification == journal.Corrupt {
		return corruptDomain
	}
	loc, err := ilmpath.Parse(r.Path)
	if err != nil {
		return corruptDomain
	}
	switch {
	case loc.ID != "" && loc.Digest != "":
		return loc.ID + "/" + loc.Digest
	case loc.ID != "":
		return loc.ID
	case loc.Operation != "":
		return loc.Operation + "/" + loc.Digest
	}
	return loc.Digest
}

// viewOf builds the SourceView from the journal scan's record and a fresh
// strong read of its path. A read that disagrees with the scan's copies
// (the record changed in between) yields ok=false: the record is left for
// the next pass rather than bound to a generation it was not classified at.
func viewOf(p Protocol, r *journal.Record, obs *Observation) (SourceView, bool) {
	if !obs.Complete() || len(obs.Copies) != len(r.Copies) {
		return SourceView{}, false
	}
	seen := map[string]string{}
	for _, c := range r.Copies {
		seen[PoolID(c.Pool)] = c.ETag + "/" + c.SHA256
	}
	for _, c := range obs.Copies {
		if seen[c.Pool] != c.ETag+"/"+c.SHA256 {
			return SourceView{}, false
		}
	}
	schema := r.Schema
	if schema == "" || schema == "-" {
		schema = "unknown"
	}
	return SourceView{
		Protocol: p, Path: r.Path, StableIdentity: stableIdentity(r), RecordClass: string(r.Kind), Journal: r.Classification,
		Generation: NewGeneration(schema, r.State, envelope.SHA256Hex(obs.Data[0]), obs.Copies),
	}, true
}

// LoadControls lists and decodes every control in the control pool. A
// control that fails strict decoding is returned in bad (its key) and
// never overwritten.
func LoadControls(ctx context.Context, s metastore.Store, pageSize int) (good map[string]*Control, etags map[string]string, bad []string, err error) {
	good, etags = map[string]*Control{}, map[string]string{}
	err = eachStored(ctx, s, ControlPrefix, pageSize, func(key string, b []byte, etag string) error {
		c, err := DecodeControl(key, b)
		if err != nil {
			bad = append(bad, key)
			return nil
		}
		good[c.ID], etags[c.ID] = c, etag
		return nil
	})
	return good, etags, bad, err
}

// Scan is the recovery pass: it classifies every record of every pool
// (core/journal), and creates or advances one control per stuck source
// generation in the control pool (pools[0]) by create-only and ETag CAS.
func Scan(ctx context.Context, pools []metastore.Store, opt ScanOptions) (*ScanReport, error) {
	if opt.Clock == nil {
		return nil, errors.New("recovery.Scan: a clock is required")
	}
	if len(pools) == 0 {
		return nil, errors.New("recovery.Scan: no metadata pool")
	}
	if opt.PageSize == 0 {
		opt.PageSize = 1000
	}
	now := opt.Clock()
	jrep, err := journal.Scan(ctx, pools, journal.Options{Clock: opt.Clock, Sources: opt.Sources, PageSize: opt.PageSize, Artifacts: DescribeArtifact})
	if err != nil {
		return nil, err
	}
	ctl := pools[0]
	controls, etags, bad, err := LoadControls(ctx, ctl, opt.PageSize)
	if err != nil {
		return nil, fmt.Errorf("list recovery controls: %w", err)
	}
	inflight, badDispositions, err := inFlightDispositions(ctx, ctl, opt.PageSize)
	if err != nil {
		return nil, fmt.Errorf("list recovery dispositions: %w", err)
	}
	rep := &ScanReport{Incomplete: jrep.Incomplete, PoolErrors: jrep.PoolErrors, CorruptControl: len(bad), CorruptDispositions: badDispositions}
	badIDs := map[string]bool{}
	for _, k := range bad {
		if _, id, err := ParseArtifactKey(ControlPrefix, k); err == nil {
			badIDs[id] = true
		}
	}
	seen := map[string]bool{}
	for i := range jrep.Records {
		r := &jrep.Records[i]
		p, ok := sourceProtocol(r)
		if !ok {
			continue
		}
		if r.Classification == journal.Corrupt {
			rep.CorruptRecords++
		}
		id := ControlID(p, r.Path, stableIdentity(r))
		seen[id] = true
		cur := controls[id]
		item := ScanItem{ControlID: id, Protocol: p, SourcePath: r.Path}
		if badIDs[id] {
			item.Outcome, item.Error = OutcomeConflict, "the control record is corrupt; it is kept and this source is not scheduled"
			rep.Items = append(rep.Items, item)
			continue
		}
		if inflight[id] {
			// An operator disposition names this control's ETag: the
			// scan must not move it under the operator's feet.
			item.Outcome, item.Error = OutcomeDeferred, "an operator disposition is in flight"
			if cur != nil {
				item.Classification = cur.Classification
			}
			rep.Items = append(rep.Items, item)
			continue
		}
		if cur == nil {
			if w, _, _ := desired(r.Classification); w == wantNothing {
				continue
			}
		}
		obs := Observe(ctx, pools, r.Path)
		v, fresh := viewOf(p, r, obs)
		complete := !jrep.Incomplete && fresh
		if !obs.Complete() && cur == nil {
			item.Outcome = OutcomeIncomplete
			rep.Items = append(rep.Items, item)
			continue
		}
		if !fresh && obs.Complete() && !jrep.Incomplete {
			item.Outcome, item.Error = OutcomeDeferred, "the record changed during the scan; the next pass decides it"
			if cur != nil {
				item.Classification = cur.Classification
			}
			rep.Items = append(rep.Items, item)
			continue
		}
		d := Decide(cur, v, now, complete)
		item.Outcome, item.Attempt = d.Outcome, d.Attempt
		if cur != nil {
			item.Classification, item.ErrorCode = cur.Classification, cur.LastErrorCode
		}
		if d.Next != nil {
			var etag string
			var err error
			if cur == nil {
				etag, _, err = createExact(ctx, ctl, d.Next.Key(), d.Next.Encode())
			} else {
				etag, err = casExact(ctx, ctl, d.Next.Key(), d.Next.Encode(), etags[id])
			}
			if err != nil {
				// A lost race keeps the stored control; this pass's attempt
				// is not recorded (the next pass reloads).
				item.Outcome, item.Attempt, item.Error = OutcomeConflict, "", err.Error()
			} else {
				controls[id], etags[id] = d.Next, etag
				item.Classification, item.ErrorCode = d.Next.Classification, d.Next.LastErrorCode
			}
		}
		if item.Outcome != "" {
			rep.Items = append(rep.Items, item)
		}
	}
	for id, c := range controls {
		if !seen[id] && !c.Classification.Final() && !rep.Incomplete {
			rep.OrphanControls++
		}
		rep.Controls = append(rep.Controls, c)
	}
	sort.Slice(rep.Controls, func(i, j int) bool { return rep.Controls[i].ID < rep.Controls[j].ID })
	return rep, nil
}

// inFlightDisposition is the disposition not yet Completed that names
// ctl, nil when none. A disposition that fails strict decoding names no
// control anyone can prove and is skipped here (scan reports it).
func inFlightDisposition(ctx context.Context, s metastore.Store, ctl *Control) (*Disposition, error) {
	var found *Disposition
	err := eachStored(ctx, s, DispositionPrefix+string(ctl.Protocol)+"/", 1000, func(key string, b []byte, _ string) error {
		if d, err := DecodeDisposition(key, b); err == nil && d.ControlID == ctl.ID && d.State != Completed {
			found = d
		}
		return nil
	})
	return found, err
}

// inFlightDispositions returns the controls that a disposition not yet
// Completed names, and the keys of dispositions that fail strict decoding.
// Those are kept and reported; they name no control anyone can prove, and
// abandon refuses to resume them, so they hold no control's ETag.
func inFlightDispositions(ctx context.Context, s metastore.Store, pageSize int) (map[string]bool, []string, error) {
	out := map[string]bool{}
	var bad []string
	err := eachStored(ctx, s, DispositionPrefix, pageSize, func(key string, b []byte, _ string) error {
		d, err := DecodeDisposition(key, b)
		if err != nil {
			bad = append(bad, key)
			return nil
		}
		if d.State != Completed {
			out[d.ControlID] = true
		}
		return nil
	})
	return out, bad, err
}
