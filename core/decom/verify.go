package decom

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// Verdict is a row's outcome. Its string is the JSON spelling.
type Verdict string

// Verdicts.
const (
	VerdictCovered  Verdict = "covered"          // checked and consistent; does not block
	VerdictTerminal Verdict = "covered_terminal" // a terminal receipt, checked against every target copy
	VerdictBlocked  Verdict = "blocked"          // blocks removal of the source pool
)

// Reason is a row's reason code (snake_case, stable for scripts); the
// table of codes is docs/design/decommission.md#reasons.
type Reason string

// Reasons that do not block.
const (
	ReasonManifestMatches      Reason = "manifest_matches"
	ReasonTargetMatches        Reason = "target_matches"
	ReasonTargetAbsentTerminal Reason = "target_absent_after_terminal"
)

// Reasons that block.
const (
	ReasonManifestMissing       Reason = "manifest_missing"
	ReasonManifestCorrupt       Reason = "manifest_corrupt"
	ReasonManifestUnknownSchema Reason = "manifest_unknown_schema"
	ReasonManifestRunToken      Reason = "manifest_run_token_mismatch"
	ReasonManifestCount         Reason = "manifest_count_mismatch"
	ReasonManifestDigest        Reason = "manifest_digest_mismatch"

	ReasonReceiptMissing        Reason = "receipt_missing"
	ReasonReceiptUnexpected     Reason = "receipt_unexpected"
	ReasonReceiptCorrupt        Reason = "receipt_corrupt"
	ReasonReceiptUnknownSchema  Reason = "receipt_unknown_schema"
	ReasonReceiptPathInvalid    Reason = "receipt_path_invalid"
	ReasonReceiptPathMismatch   Reason = "receipt_path_mismatch"
	ReasonExpectedInvalid       Reason = "expected_receipt_invalid"
	ReasonReceiptIdentity       Reason = "receipt_identity_mismatch"
	ReasonReceiptNotSuccessor   Reason = "receipt_not_successor"
	ReasonTerminalMissing       Reason = "terminal_missing"
	ReasonTerminalNotSuccessor  Reason = "terminal_not_successor"
	ReasonTargetMissing         Reason = "target_missing"
	ReasonTargetDivergent       Reason = "target_copies_divergent"
	ReasonTargetCorrupt         Reason = "target_corrupt"
	ReasonTargetIdentity        Reason = "target_identity_mismatch"
	ReasonTargetNotSuccessor    Reason = "target_not_successor"
	ReasonTerminalHidesTarget   Reason = "terminal_hides_target_copy"
	ReasonIdentityNotDerivable  Reason = "identity_not_derivable"
	ReasonUnregisteredPath      Reason = "unregistered_path"
	ReasonRecordCorrupt         Reason = "record_corrupt"
	ReasonRecordUnknownSchema   Reason = "record_unknown_schema"
	ReasonRecordUnsupported     Reason = "record_unsupported"
	ReasonNotDerivable          Reason = "checkpoint_not_derivable"
	ReasonRecordUncovered       Reason = "record_uncovered"
	ReasonRecordNotSuccessor    Reason = "record_not_successor"
	ReasonReceiptCheckpointKind Reason = "checkpoint_kind_mismatch"

	// Recovery artifacts (docs/design/decommission.md#recovery-artifacts).
	ReasonRecoveryControlLive         Reason = "recovery_control_live"
	ReasonRecoveryDispositionInFlight Reason = "recovery_disposition_in_flight"
	ReasonRecoveryArtifactNotMoved    Reason = "recovery_artifact_not_moved"
	ReasonRecoveryArtifactDiffers     Reason = "recovery_artifact_target_differs"
)

// Reasons is every reason code, non-blocking first; the vocabulary of
// docs/design/decommission.md#reasons.
var Reasons = []Reason{
	ReasonManifestMatches, ReasonTargetMatches, ReasonTargetAbsentTerminal,
	ReasonManifestMissing, ReasonManifestCorrupt, ReasonManifestUnknownSchema, ReasonManifestRunToken, ReasonManifestCount,
	ReasonManifestDigest, ReasonExpectedInvalid, ReasonReceiptMissing, ReasonReceiptUnexpected, ReasonReceiptCorrupt,
	ReasonReceiptUnknownSchema, ReasonReceiptPathInvalid, ReasonReceiptPathMismatch, ReasonReceiptIdentity,
	ReasonReceiptNotSuccessor, ReasonTerminalMissing, ReasonTerminalNotSuccessor, ReasonTargetMissing, ReasonTargetDivergent,
	ReasonTargetCorrupt, ReasonTargetIdentity, ReasonTargetNotSuccessor, ReasonTerminalHidesTarget, ReasonIdentityNotDerivable,
	ReasonNotDerivable, ReasonReceiptCheckpointKind, ReasonUnregisteredPath, ReasonRecordCorrupt, ReasonRecordUnknownSchema,
	ReasonRecordUnsupported, ReasonRecordUncovered, ReasonRecordNotSuccessor,
	ReasonRecoveryControlLive, ReasonRecoveryDispositionInFlight, ReasonRecoveryArtifactNotMoved, ReasonRecoveryArtifactDiffers,
}

// RowKind says what a row is about.
type RowKind string

// Row kinds.
const (
	RowManifest RowKind = "manifest"
	RowReceipt  RowKind = "receipt"
	RowRecord   RowKind = "record"
)

// Row is one line of the verification report: the manifest, a receipt
// (one per pool holding it, or one for an expected receipt no target
// holds), or a source record that is not covered.
type Row struct {
	Kind       RowKind        `json:"kind"`
	Pool       string         `json:"pool"`
	Path       string         `json:"path"`
	SourcePath string         `json:"source_path,omitempty"`
	IDKind     string         `json:"id_kind,omitempty"`
	ID         string         `json:"id,omitempty"`
	Checkpoint CheckpointKind `json:"checkpoint_kind,omitempty"`
	Terminal   bool           `json:"terminal"`
	Verdict    Verdict        `json:"verdict"`
	Reason     Reason         `json:"reason"`
	Detail     string         `json:"detail,omitempty"`
}

// Predicate is the completion predicate: the source pool may be removed
// only when Removable.
type Predicate struct {
	Removable      bool           `json:"removable"`
	Receipts       int            `json:"receipts"`        // receipts found on the targets
	Expected       int            `json:"expected"`        // receipts listed on the source
	SourceRecords  int            `json:"source_records"`  // keys under ilm/ on the source
	CoveredRecords int            `json:"covered_records"` // of those, covered by a receipt
	Blocking       map[Reason]int `json:"blocking"`        // blocking rows by reason
	ReadErrors     []string       `json:"read_errors"`     // pools or keys that could not be read
}

// Report is the result of Verify.
type Report struct {
	RunToken  string    `json:"run_token"`
	Source    string    `json:"source"`
	Targets   []string  `json:"targets"`
	Rows      []Row     `json:"rows"`
	Predicate Predicate `json:"predicate"`
}

// Blocked reports whether any row blocks.
func (r *Report) Blocked() bool { return len(r.Predicate.Blocking) > 0 }

// ErrBadInput is a Verify call that cannot start (bad run token, no
// target pool).
var ErrBadInput = errors.New("invalid verification input")

// listPageSize is the page size for every listing.
const listPageSize = 1000

type verifier struct {
	ctx     context.Context
	token   string
	source  metastore.Reader
	targets []metastore.Reader
	rep     *Report
	opt     VerifyOptions
	// expected receipts listed on the source, by key; nil value when the
	// source copy did not decode.
	expected map[string]*Receipt
	// present: receipt key -> decoded receipt per target pool (nil when it
	// did not decode or does not belong to the key).
	present map[string]map[string]*Receipt
	copies  map[string]*targetCopy
}

type targetCopy struct {
	data   []byte
	pool   string
	reason Reason // set when copies diverge
	detail string
	failed bool // a read error was recorded
}

// Verify checks run runToken of a decommission whose source pool is source
// and whose target pools are targets, reading only (Get and List). It
// never fails on what it finds: every finding is a row, every read error
// is listed in Predicate.ReadErrors and makes the pool not removable. It
// returns an error wrapping ErrBadInput only when it cannot start, or the
// context's error when cancelled.
//
// Checks, in order (docs/design/decommission.md#verification): the
// expected-receipt manifest against the receipt keys on the source; every
// receipt on every target against its expected copy (same identity,
// checkpoint and terminal checkpoint equal or a legal successor) and
// against the record copies on the targets (a copy must equal or follow
// the receipt's latest checkpoint; only a terminal receipt may stand for
// an absent copy); every expected receipt present on some target; every
// key under ilm/ on the source registered, decodable and covered by a
// receipt whose checkpoint equals or follows the record's (ilmctl's
// recovery artifacts: decided by VerifyWith's decoder, checkArtifact).
func Verify(ctx context.Context, runToken string, source metastore.Reader, targets []metastore.Reader) (*Report, error) {
	return VerifyWith(ctx, runToken, source, targets, VerifyOptions{})
}

// VerifyWith is Verify with options: opt.Artifacts decides ilmctl's
// recovery artifacts on the source pool (checkArtifact).
func VerifyWith(ctx context.Context, runToken string, source metastore.Reader, targets []metastore.Reader, opt VerifyOptions) (*Report, error) {
	if !ValidRunToken(runToken) {
		return nil, fmt.Errorf("%w: run token %q is not 64 lowercase hex digits", ErrBadInput, runToken)
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("%w: no target pool", ErrBadInput)
	}
	v := &verifier{ctx: ctx, token: runToken, source: source, targets: targets, opt: opt,
		rep:      &Report{RunToken: runToken, Source: source.Name(), Predicate: Predicate{Blocking: map[Reason]int{}, ReadErrors: []string{}}},
		expected: map[string]*Receipt{}, present: map[string]map[string]*Receipt{}, copies: map[string]*targetCopy{}}
	for _, t := range targets {
		v.rep.Targets = append(v.rep.Targets, t.Name())
	}
	v.checkManifest()
	for _, t := range targets {
		v.checkTargetReceipts(t)
	}
	v.checkMissing()
	v.checkSourceRecords()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows := v.rep.Rows
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Kind != b.Kind {
			return kindOrder[a.Kind] < kindOrder[b.Kind]
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Pool < b.Pool
	})
	for _, r := range rows {
		if r.Verdict == VerdictBlocked {
			v.rep.Predicate.Blocking[r.Reason]++
		}
	}
	p := &v.rep.Predicate
	p.Removable = len(p.Blocking) == 0 && len(p.ReadErrors) == 0
	return v.rep, nil
}

var kindOrder = map[RowKind]int{RowManifest: 0, RowReceipt: 1, RowRecord: 2}

func (v *verifier) add(r Row) { v.rep.Rows = append(v.rep.Rows, r) }

func (v *verifier) readErr(pool metastore.Reader, key string, err error) {
	v.rep.Predicate.ReadErrors = append(v.rep.Predicate.ReadErrors, fmt.Sprintf("%s: %s: %v", pool.Name(), key, err))
}

func (v *verifier) list(pool metastore.Reader, prefix string) ([]string, bool) {
	var keys []string
	err := metastore.ListAll(v.ctx, pool, prefix, listPageSize, func(objs []metastore.Object) error {
		for _, o := range objs {
			keys = append(keys, o.Key)
		}
		return nil
	})
	if err != nil {
		v.readErr(pool, "list "+prefix, err)
		return nil, false
	}
	return keys, true
}

// get returns the bytes at key, nil when absent; ok is false after a read
// error (recorded).
func (v *verifier) get(pool metastore.Reader, key string) ([]byte, bool) {
	b, _, err := pool.Get(v.ctx, key)
	if errors.Is(err, metastore.ErrNotFound) {
		return nil, true
	}
	if err != nil {
		v.readErr(pool, key, err)
		return nil, false
	}
	return b, true
}

func (v *verifier) checkManifest() {
	key := ManifestKey(v.token)
	row := Row{Kind: RowManifest, Pool: v.source.Name(), Path: key, Verdict: VerdictBlocked}
	paths, listed := v.list(v.source, ReceiptPrefix(v.token))
	for _, p := range paths {
		v.expected[p] = v.expectedReceipt(p)
	}
	v.rep.Predicate.Expected = len(paths)
	data, ok := v.get(v.source, key)
	switch {
	case !ok || !listed:
		return // read error recorded; no row can be decided
	case data == nil:
		row.Reason, row.Detail = ReasonManifestMissing, "no expected-receipt manifest on the source pool (check the run token, and that the source pool is given first)"
	default:
		c := ClassifyManifest(key, data)
		if c.Status != StatusValid {
			row.Reason, row.Detail = c.Reason, c.Detail
			break
		}
		err := c.Manifest.Check(v.token, paths)
		switch {
		case errors.Is(err, ErrManifestCount):
			row.Reason, row.Detail = ReasonManifestCount, err.Error()
		case errors.Is(err, ErrManifestDigest):
			row.Reason, row.Detail = ReasonManifestDigest, err.Error()
		case err != nil:
			row.Reason, row.Detail = ReasonManifestRunToken, err.Error()
		default:
			row.Verdict, row.Reason = VerdictCovered, ReasonManifestMatches
			row.Detail = fmt.Sprintf("%d receipt(s), digest %s…", c.Manifest.ReceiptCount, c.Manifest.ReceiptPathsSHA256[:12])
		}
	}
	v.add(row)
}

// expectedReceipt reads and classifies the source copy of a receipt. A
// source copy that does not decode is a blocking row of its own.
func (v *verifier) expectedReceipt(key string) *Receipt {
	data, ok := v.get(v.source, key)
	if !ok || data == nil {
		return nil
	}
	c := ClassifyReceipt(key, data)
	if c.Receipt == nil || c.Status == StatusCorrupt || c.Status == StatusUnknownSchema {
		r := receiptRow(v.source, key, c)
		r.Reason = ReasonExpectedInvalid
		r.Detail = "source copy: " + string(c.Reason) + ": " + c.Detail
		v.add(r)
		return nil
	}
	return c.Receipt
}

func receiptRow(pool metastore.Reader, key string, c Classified) Row {
	r := Row{Kind: RowReceipt, Pool: pool.Name(), Path: key, Verdict: VerdictBlocked, Reason: c.Reason, Detail: c.Detail}
	if c.Locator != nil {
		r.SourcePath, r.IDKind, r.ID = c.Locator.SourcePath, c.Locator.IDKind, c.Locator.ID
	}
	if c.Receipt != nil {
		r.Checkpoint, r.Terminal = c.Receipt.Ck.Kind, c.Receipt.Terminal()
	}
	return r
}

func (v *verifier) checkTargetReceipts(t metastore.Reader) {
	keys, ok := v.list(t, ReceiptPrefix(v.token))
	if !ok {
		return
	}
	v.rep.Predicate.Receipts += len(keys)
	for _, key := range keys {
		if v.present[key] == nil {
			v.present[key] = map[string]*Receipt{}
		}
		v.present[key][t.Name()] = nil
		data, ok := v.get(t, key)
		if !ok {
			continue
		}
		if data == nil {
			v.readErr(t, key, errors.New("listed but absent on read"))
			continue
		}
		c := ClassifyReceipt(key, data)
		row := receiptRow(t, key, c)
		if c.Status == StatusCorrupt || c.Status == StatusUnknownSchema {
			v.add(row)
			continue
		}
		r := c.Receipt
		v.present[key][t.Name()] = r
		exp, listed := v.expected[key]
		switch {
		case !listed:
			row.Reason, row.Detail = ReasonReceiptUnexpected, "not in the run's expected receipt set on the source pool"
		case exp == nil:
			row.Reason, row.Detail = ReasonExpectedInvalid, "the source copy of this receipt is missing or invalid"
		default:
			row.Reason, row.Detail = v.compareReceipt(exp, r)
		}
		if row.Reason == "" {
			row.Verdict = VerdictCovered
			if r.Terminal() {
				row.Verdict = VerdictTerminal
			}
			row.Reason, row.Detail = v.checkTargetCopy(r)
			if row.Reason != ReasonTargetMatches && row.Reason != ReasonTargetAbsentTerminal {
				row.Verdict = VerdictBlocked
			}
		}
		v.add(row)
	}
}

// compareReceipt checks a target receipt against its expected source copy;
// "" when consistent.
func (v *verifier) compareReceipt(exp, r *Receipt) (Reason, string) {
	if exp.SourcePath != r.SourcePath || exp.Namespace != r.Namespace || exp.IDKind != r.IDKind || exp.ID != r.ID {
		return ReasonReceiptIdentity, "target receipt names another record than the expected receipt"
	}
	if err := Successor(exp.Ck, r.Ck); err != nil {
		return ReasonReceiptNotSuccessor, err.Error()
	}
	switch {
	case exp.TerminalCk != nil && r.TerminalCk == nil:
		return ReasonTerminalMissing, "the expected receipt is terminal, this copy is not"
	case exp.TerminalCk != nil:
		if err := Successor(exp.TerminalCk, r.TerminalCk); err != nil {
			return ReasonTerminalNotSuccessor, err.Error()
		}
	}
	return "", ""
}

// copyOf reads the record at path from every target pool. Copies must be
// byte-identical; an absent copy returns data nil.
func (v *verifier) copyOf(path string) *targetCopy {
	if c, ok := v.copies[path]; ok {
		return c
	}
	c := &targetCopy{}
	for _, t := range v.targets {
		data, ok := v.get(t, path)
		if !ok {
			c.failed = true
			continue
		}
		if data == nil {
			continue
		}
		if c.data != nil && !bytes.Equal(c.data, data) && c.reason == "" {
			c.reason, c.detail = ReasonTargetDivergent, fmt.Sprintf("copies in %s and %s differ", c.pool, t.Name())
		}
		if c.data == nil {
			c.data, c.pool = data, t.Name()
		}
	}
	v.copies[path] = c
	return c
}

// checkTargetCopy checks a receipt against the record copies on the
// targets: a copy must equal or follow the receipt's latest checkpoint
// (its terminal one when present), and only a terminal receipt may stand
// for an absent copy.
func (v *verifier) checkTargetCopy(r *Receipt) (Reason, string) {
	c := v.copyOf(r.SourcePath)
	switch {
	case c.failed:
		return ReasonTargetMissing, "a target pool could not be read (see read errors)"
	case c.reason != "":
		return c.reason, c.detail
	case c.data == nil && r.Terminal():
		return ReasonTargetAbsentTerminal, "terminal receipt; no target holds the record any more"
	case c.data == nil:
		return ReasonTargetMissing, "no target pool holds the record and the receipt is not terminal"
	}
	rec, err := RecordCheckpoint(r.SourcePath, c.data)
	if errors.Is(err, ErrCheckpointNotDerivable) {
		return ReasonNotDerivable, fmt.Sprintf("copy in %s: %v", c.pool, err)
	}
	if err != nil {
		return ReasonTargetCorrupt, fmt.Sprintf("copy in %s: %v", c.pool, err)
	}
	if rec.Namespace != r.Namespace || rec.IDKind != r.IDKind || rec.ID != r.ID {
		// A terminated manual job's scope may be re-admitted by a later
		// job at the same key (RustFS accepts that reuse).
		if r.Terminal() && r.Ck.Kind == CkManualScope && rec.Checkpoint.Kind == CkManualScope {
			return ReasonTargetMatches, "scope key re-admitted by job " + rec.ID
		}
		return ReasonTargetIdentity, fmt.Sprintf("copy in %s is %s %s", c.pool, rec.IDKind, rec.ID)
	}
	base := r.Ck
	if r.TerminalCk != nil {
		base = r.TerminalCk
	}
	if err := Successor(base, rec.Checkpoint); err != nil {
		switch {
		case errors.Is(err, ErrIdentityNotDerivable):
			return ReasonIdentityNotDerivable, err.Error()
		case r.Terminal():
			return ReasonTerminalHidesTarget, fmt.Sprintf("copy in %s is not covered by the terminal checkpoint: %v", c.pool, err)
		}
		return ReasonTargetNotSuccessor, fmt.Sprintf("copy in %s: %v", c.pool, err)
	}
	if Equal(base, rec.Checkpoint) {
		return ReasonTargetMatches, "copy in " + c.pool + " is the receipt's generation"
	}
	return ReasonTargetMatches, "copy in " + c.pool + " is one legal step later"
}

func (v *verifier) checkMissing() {
	for key, exp := range v.expected {
		if len(v.present[key]) > 0 {
			continue
		}
		row := Row{Kind: RowReceipt, Pool: "-", Path: key, Verdict: VerdictBlocked, Reason: ReasonReceiptMissing,
			Detail: "expected by the manifest, on no target pool"}
		if exp != nil {
			row.SourcePath, row.IDKind, row.ID, row.Checkpoint, row.Terminal = exp.SourcePath, exp.IDKind, exp.ID, exp.Ck.Kind, exp.Terminal()
		}
		v.add(row)
	}
}

// checkSourceRecords requires every key under ilm/ on the source pool to be
// a registered, decodable record covered by a receipt on some target.
func (v *verifier) checkSourceRecords() {
	keys, ok := v.list(v.source, ilmpath.Root)
	if !ok {
		return
	}
	v.rep.Predicate.SourceRecords = len(keys)
	for _, key := range keys {
		row := Row{Kind: RowRecord, Pool: v.source.Name(), Path: key, Verdict: VerdictBlocked}
		data, ok := v.get(v.source, key)
		if !ok {
			continue
		}
		if data == nil {
			v.readErr(v.source, key, errors.New("listed but absent on read"))
			continue
		}
		if loc, err := ilmpath.Parse(key); err == nil && IsRecoveryKind(loc.Kind) && v.opt.Artifacts != nil {
			v.checkArtifact(row, loc, data)
			continue
		}
		rec, err := RecordCheckpoint(key, data)
		if err != nil {
			row.Reason, row.Detail = recordReason(err), err.Error()
			v.add(row)
			continue
		}
		row.SourcePath, row.IDKind, row.ID, row.Checkpoint = key, rec.IDKind, rec.ID, rec.Checkpoint.Kind
		rk := rec.ReceiptKey(v.token)
		row.Reason, row.Detail = v.recordCovered(rec, rk)
		if row.Reason == "" {
			v.rep.Predicate.CoveredRecords++
			continue
		}
		v.add(row)
	}
}

func recordReason(err error) Reason {
	switch {
	case errors.Is(err, ilmpath.ErrUnregistered):
		return ReasonUnregisteredPath
	case errors.Is(err, ErrUnsupportedRecord):
		return ReasonRecordUnsupported
	case errors.Is(err, ErrCheckpointNotDerivable):
		return ReasonNotDerivable
	case errors.Is(err, envelope.ErrSchema), errors.Is(err, envelope.ErrUnsupportedVersion):
		return ReasonRecordUnknownSchema
	}
	return ReasonRecordCorrupt
}

// recordCovered: every target receipt at the record's receipt key must
// decode and equal or follow the record's checkpoint, and at least one
// must exist; "" when covered.
func (v *verifier) recordCovered(rec *Validated, rk string) (Reason, string) {
	held := v.present[rk]
	if len(held) == 0 {
		return ReasonRecordUncovered, "no target pool holds its receipt " + rk
	}
	pools := make([]string, 0, len(held))
	for p := range held {
		pools = append(pools, p)
	}
	sort.Strings(pools)
	for _, p := range pools {
		r := held[p]
		if r == nil {
			return ReasonRecordUncovered, "its receipt in " + p + " is invalid (see its row)"
		}
		if r.Ck.Kind != rec.Checkpoint.Kind {
			return ReasonReceiptCheckpointKind, fmt.Sprintf("receipt in %s is a %s checkpoint, the record a %s", p, r.Ck.Kind, rec.Checkpoint.Kind)
		}
		if err := Successor(rec.Checkpoint, r.Ck); err != nil {
			if errors.Is(err, ErrIdentityNotDerivable) {
				return ReasonIdentityNotDerivable, err.Error()
			}
			return ReasonRecordNotSuccessor, fmt.Sprintf("receipt in %s: %v", p, err)
		}
	}
	return "", ""
}
