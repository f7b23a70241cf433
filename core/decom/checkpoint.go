package decom

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/transition"
)

// CheckpointKind is the "kind" tag of a receipt checkpoint
// (DurableIlmRecordCheckpoint in RustFS's
// crates/ecstore/src/bucket/lifecycle/durable_namespace.rs). Its string is
// the JSON spelling and appears in `ilmctl decom` output.
type CheckpointKind string

// Checkpoint kinds ilmctl interprets.
const (
	CkJournal      CheckpointKind = "tier_delete_journal"
	CkManifest     CheckpointKind = "tier_delete_dispatch_manifest"
	CkParent       CheckpointKind = "tier_delete_dispatch_parent"
	CkTransition   CheckpointKind = "transition_transaction"
	CkProbe        CheckpointKind = "tier_probe_intent"
	CkManualJob    CheckpointKind = "manual_transition_job"
	CkManualScope  CheckpointKind = "manual_transition_scope"
	CkManualTask   CheckpointKind = "manual_transition_task"
	CkManualResult CheckpointKind = "manual_transition_worker_result"
)

// Checkpoint is one decoded receipt checkpoint, or the checkpoint ilmctl
// derives from a live record (RecordCheckpoint). Only the members of its
// Kind are set; see docs/design/decommission.md#checkpoints for which
// members each kind carries.
type Checkpoint struct {
	Kind          CheckpointKind
	ContentSHA256 string // SHA-256 of the record's stored bytes
	// IdentitySHA256 covers the record's immutable identity. A checkpoint
	// ilmctl derives from a record leaves it "" when ilmctl cannot
	// recompute RustFS's digest for that kind (chunk parents); such a
	// checkpoint is then compared by content only.
	IdentitySHA256 string

	// tier_delete_journal
	Committed              bool
	DispatchIdentitySHA256 *string
	JournalState           *string // Prepared | Dispatched | Committed (v6 only)

	// tier_delete_dispatch_manifest
	ManifestState string

	// tier_delete_dispatch_parent
	NextChunkSequence         uint64
	CompletedJournalCount     uint64
	ActiveChunkIdentitySHA256 *string
	Completed                 bool

	// transition_transaction, tier_probe_intent, tier_delete_dispatch_parent
	Revision            uint64
	State               string // transition / probe / manual-job state
	RemoteVersionSHA256 string
	RemoteVersionKnown  bool
	OwnerFenceSHA256    string // tier_probe_intent

	// manual_transition_job, manual_transition_scope
	UpdatedAtUnixNanos int64
	ScanCompleted      bool
	CancelRequested    bool
	Progress           *ProgressProof // manual_transition_job; nil when the job has none
}

// ProgressProof is ManualTransitionJobProgressProof: the compact, monotonic
// view of a manual job's run report that receipts carry.
type ProgressProof struct {
	ScopeSHA256          string
	Counters             map[string]uint64 // the counter members below, by name
	TierFailureByReason  map[string]uint64
	Flags                map[string]bool // lifecycle_config_found, truncated_by_limit, truncated_by_duration, cancelled
	ContinuationTokenSHA *string
	CursorMarker         *string
	CursorRevision       *uint64
	Queue                QueueSnapshot
}

// QueueSnapshot is the part of ManualTransitionQueueSnapshot the
// validity rule reads. The full object is kept for equality.
type QueueSnapshot struct {
	QueueCapacity, Queued, Workers, Active uint64
	Raw                                    string
}

// progressCounters are the proof's monotonic counters, in RustFS's order.
var progressCounters = []string{
	"scanned", "eligible", "enqueued", "dry_run_eligible", "skipped_not_transition", "skipped_tier",
	"skipped_delete_marker", "skipped_directory", "skipped_replication", "skipped_already_transitioned",
	"skipped_already_in_flight", "skipped_queue_full", "skipped_queue_closed", "skipped_queue_timeout",
	"transition_completed", "transition_failed", "tier_failure",
}

var progressFlags = []string{"lifecycle_config_found", "truncated_by_limit", "truncated_by_duration", "cancelled"}

// maxCursorMarker is MANUAL_TRANSITION_CURSOR_MARKER_PROOF_MAX_SIZE, bytes.
const maxCursorMarker = 1024

const protoCk = "decommission_checkpoint"

func ckErr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(protoCk, field, sentinel, format, args...)
}

// DecodeCheckpoint strictly decodes a checkpoint object: a known kind, only
// that kind's members, lowercase SHA-256 digests. The legacy uncompacted
// manual-job "progress" member is refused: RustFS compacts it to
// "progress_proof" before every receipt write, so a stored receipt never
// carries it. Errors wrap envelope.ErrSchema for an unknown kind.
func DecodeCheckpoint(raw []byte) (*Checkpoint, error) {
	o, err := envelope.ParseObject(protoCk, raw)
	if err != nil {
		return nil, err
	}
	kind, err := o.String("kind")
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Kind: CheckpointKind(kind)}
	allow := func(keys ...string) error { return o.Allow(append([]string{"kind", "content_sha256"}, keys...)...) }
	switch c.Kind {
	case CkJournal:
		err = allow("identity_sha256", "committed", "dispatch_identity_sha256", "state")
	case CkManifest:
		err = allow("identity_sha256", "state")
	case CkParent:
		err = allow("identity_sha256", "revision", "next_chunk_sequence", "completed_journal_count", "active_chunk_identity_sha256", "completed")
	case CkTransition:
		err = allow("identity_sha256", "remote_version_sha256", "remote_version_known", "revision", "state")
	case CkProbe:
		err = allow("identity_sha256", "remote_version_sha256", "remote_version_known", "owner_fence_sha256", "revision", "state")
	case CkManualJob:
		if o.Has("progress") {
			return nil, ckErr("progress", envelope.ErrFieldNotAllowed, "uncompacted manual-job progress is never written to a receipt")
		}
		err = allow("identity_sha256", "updated_at_unix_nanos", "state", "scan_completed", "cancel_requested", "progress_proof")
	case CkManualScope:
		err = allow("identity_sha256", "updated_at_unix_nanos")
	case CkManualTask, CkManualResult:
		err = allow()
	default:
		return nil, ckErr("kind", envelope.ErrSchema, "unknown checkpoint kind %q", kind)
	}
	if err != nil {
		return nil, err
	}
	if c.ContentSHA256, err = digest(o, "content_sha256"); err != nil {
		return nil, err
	}
	if c.Kind != CkManualTask && c.Kind != CkManualResult {
		if c.IdentitySHA256, err = digest(o, "identity_sha256"); err != nil {
			return nil, err
		}
	}
	switch c.Kind {
	case CkJournal:
		if c.Committed, err = o.Bool("committed"); err != nil {
			return nil, err
		}
		if c.DispatchIdentitySHA256, err = optDigest(o, "dispatch_identity_sha256"); err != nil {
			return nil, err
		}
		if c.JournalState, err = o.OptString("state"); err != nil {
			return nil, err
		}
		if c.JournalState != nil && !validJournalState(*c.JournalState) {
			return nil, ckErr("state", envelope.ErrIllegalState, "unknown journal state %q", *c.JournalState)
		}
	case CkManifest:
		if c.ManifestState, err = o.String("state"); err != nil {
			return nil, err
		}
		if !validManifestState(c.ManifestState) {
			return nil, ckErr("state", envelope.ErrIllegalState, "unknown manifest state %q", c.ManifestState)
		}
	case CkParent:
		if c.Revision, err = o.Uint("revision", 1<<64-1); err != nil {
			return nil, err
		}
		if c.NextChunkSequence, err = o.Uint("next_chunk_sequence", 1<<64-1); err != nil {
			return nil, err
		}
		if c.CompletedJournalCount, err = o.Uint("completed_journal_count", 1<<64-1); err != nil {
			return nil, err
		}
		if c.ActiveChunkIdentitySHA256, err = optDigest(o, "active_chunk_identity_sha256"); err != nil {
			return nil, err
		}
		if c.Completed, err = o.Bool("completed"); err != nil {
			return nil, err
		}
	case CkTransition, CkProbe:
		if c.RemoteVersionSHA256, err = digest(o, "remote_version_sha256"); err != nil {
			return nil, err
		}
		if c.RemoteVersionKnown, err = o.Bool("remote_version_known"); err != nil {
			return nil, err
		}
		if c.Kind == CkProbe {
			if c.OwnerFenceSHA256, err = digest(o, "owner_fence_sha256"); err != nil {
				return nil, err
			}
		}
		if c.Revision, err = o.Uint("revision", 1<<64-1); err != nil {
			return nil, err
		}
		if c.State, err = o.String("state"); err != nil {
			return nil, err
		}
		if c.Kind == CkTransition {
			if _, ok := transition.LegalRevisions[transition.State(c.State)]; !ok {
				return nil, ckErr("state", envelope.ErrIllegalState, "unknown transition state %q", c.State)
			}
		} else if !probeStates[c.State] {
			return nil, ckErr("state", envelope.ErrIllegalState, "unknown probe state %q", c.State)
		}
	case CkManualJob:
		if c.UpdatedAtUnixNanos, err = o.Int("updated_at_unix_nanos"); err != nil {
			return nil, err
		}
		if c.State, err = o.String("state"); err != nil {
			return nil, err
		}
		if !manualJobStates[c.State] {
			return nil, ckErr("state", envelope.ErrIllegalState, "unknown manual job state %q", c.State)
		}
		if c.ScanCompleted, err = o.Bool("scan_completed"); err != nil {
			return nil, err
		}
		if c.CancelRequested, err = o.Bool("cancel_requested"); err != nil {
			return nil, err
		}
		po, err := o.OptObject("progress_proof")
		if err != nil {
			return nil, err
		}
		if po != nil {
			if c.Progress, err = decodeProof(po); err != nil {
				return nil, err
			}
		}
	case CkManualScope:
		if c.UpdatedAtUnixNanos, err = o.Int("updated_at_unix_nanos"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func digest(o *envelope.Object, key string) (string, error) {
	s, err := o.String(key)
	if err != nil {
		return "", err
	}
	if !envelope.IsSHA256Hex(s) {
		return "", ckErr(key, envelope.ErrChecksum, "want 64 lowercase hex digits")
	}
	return s, nil
}

func optDigest(o *envelope.Object, key string) (*string, error) {
	if !o.Has(key) {
		return nil, nil
	}
	s, err := digest(o, key)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

func decodeProof(o *envelope.Object) (*ProgressProof, error) {
	keys := append([]string{"scope_sha256", "tier_failure_by_reason", "continuation_token_sha256", "cursor_marker", "cursor_revision", "queue_snapshot"}, progressCounters...)
	if err := o.Allow(append(keys, progressFlags...)...); err != nil {
		return nil, err
	}
	p := &ProgressProof{Counters: map[string]uint64{}, Flags: map[string]bool{}}
	var err error
	if p.ScopeSHA256, err = o.String("scope_sha256"); err != nil {
		return nil, err
	}
	for _, k := range progressCounters {
		if p.Counters[k], err = o.Uint(k, 1<<64-1); err != nil {
			return nil, err
		}
	}
	for _, k := range progressFlags {
		if p.Flags[k], err = o.Bool(k); err != nil {
			return nil, err
		}
	}
	if p.TierFailureByReason, err = uintMap(o, "tier_failure_by_reason"); err != nil {
		return nil, err
	}
	if p.ContinuationTokenSHA, err = o.OptString("continuation_token_sha256"); err != nil {
		return nil, err
	}
	if p.CursorMarker, err = o.OptString("cursor_marker"); err != nil {
		return nil, err
	}
	if p.CursorRevision, err = o.OptUint("cursor_revision"); err != nil {
		return nil, err
	}
	if p.Queue, err = decodeQueue(o, "queue_snapshot"); err != nil {
		return nil, err
	}
	return p, nil
}

func uintMap(o *envelope.Object, key string) (map[string]uint64, error) {
	m, err := o.Object(key)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for _, k := range m.Keys() {
		if out[k], err = m.Uint(k, 1<<64-1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeQueue reads the four members the validity rule needs. Other
// members of ManualTransitionQueueSnapshot are kept only as raw bytes for
// equality: their definition lives outside durable_namespace.rs.
func decodeQueue(o *envelope.Object, key string) (QueueSnapshot, error) {
	q, err := o.Object(key)
	if err != nil {
		return QueueSnapshot{}, err
	}
	var s QueueSnapshot
	for _, f := range []struct {
		k string
		p *uint64
	}{{"queue_capacity", &s.QueueCapacity}, {"queued", &s.Queued}, {"workers", &s.Workers}, {"active", &s.Active}} {
		if *f.p, err = q.Uint(f.k, 1<<64-1); err != nil {
			return s, err
		}
	}
	s.Raw = string(compact(o.Raw(key)))
	return s, nil
}

// compact removes insignificant whitespace, keeping member order (serde
// writes the snapshot's members in declaration order).
func compact(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func validJournalState(s string) bool {
	return s == "Prepared" || s == "Dispatched" || s == "Committed"
}

func validManifestState(s string) bool {
	switch s {
	case "Preparing", "DispatchAuthorized", "Aborting", "Aborted", "Completed":
		return true
	}
	return false
}

var manualJobStates = map[string]bool{"running": true, "completed": true, "partial": true, "failed": true, "cancelled": true, "unknown": true}

// probeStates are TierProbeIntentState in snake_case. Assumption: the enum
// is serialized snake_case like the transition states; ilmctl does not
// decode probe intents themselves.
var probeStates = map[string]bool{"upload_outcome_unknown": true, "uploaded": true, "cleanup_pending": true, "aborted_no_remote": true, "completed": true}

// Encode writes the checkpoint as serde_json writes the internally tagged
// enum: "kind", then the kind's members in declaration order, optional
// members only when present. Tests and fixtures use it; verification
// never rewrites a receipt.
func (c *Checkpoint) Encode() []byte {
	o := envelope.NewObj().Str("kind", string(c.Kind)).Str("content_sha256", c.ContentSHA256)
	switch c.Kind {
	case CkJournal:
		o.Str("identity_sha256", c.IdentitySHA256).Bool("committed", c.Committed)
		if c.DispatchIdentitySHA256 != nil {
			o.Str("dispatch_identity_sha256", *c.DispatchIdentitySHA256)
		}
		if c.JournalState != nil {
			o.Str("state", *c.JournalState)
		}
	case CkManifest:
		o.Str("identity_sha256", c.IdentitySHA256).Str("state", c.ManifestState)
	case CkParent:
		o.Str("identity_sha256", c.IdentitySHA256).Uint("revision", c.Revision).Uint("next_chunk_sequence", c.NextChunkSequence).
			Uint("completed_journal_count", c.CompletedJournalCount)
		if c.ActiveChunkIdentitySHA256 != nil {
			o.Str("active_chunk_identity_sha256", *c.ActiveChunkIdentitySHA256)
		}
		o.Bool("completed", c.Completed)
	case CkTransition:
		o.Str("identity_sha256", c.IdentitySHA256).Str("remote_version_sha256", c.RemoteVersionSHA256).
			Bool("remote_version_known", c.RemoteVersionKnown).Uint("revision", c.Revision).Str("state", c.State)
	case CkProbe:
		o.Str("identity_sha256", c.IdentitySHA256).Str("remote_version_sha256", c.RemoteVersionSHA256).
			Bool("remote_version_known", c.RemoteVersionKnown).Str("owner_fence_sha256", c.OwnerFenceSHA256).
			Uint("revision", c.Revision).Str("state", c.State)
	case CkManualJob:
		o.Str("identity_sha256", c.IdentitySHA256).Int("updated_at_unix_nanos", c.UpdatedAtUnixNanos).Str("state", c.State).
			Bool("scan_completed", c.ScanCompleted).Bool("cancel_requested", c.CancelRequested)
		if c.Progress != nil {
			o.Raw("progress_proof", c.Progress.encode())
		}
	case CkManualScope:
		o.Str("identity_sha256", c.IdentitySHA256).Int("updated_at_unix_nanos", c.UpdatedAtUnixNanos)
	}
	return o.Bytes()
}

func (p *ProgressProof) encode() []byte {
	o := envelope.NewObj().Str("scope_sha256", p.ScopeSHA256)
	for _, k := range progressCounters {
		o.Uint(k, p.Counters[k])
	}
	reasons := envelope.NewObj()
	var keys []string
	for k := range p.TierFailureByReason {
		keys = append(keys, k)
	}
	sort.Strings(keys) // BTreeMap order
	for _, k := range keys {
		reasons.Uint(k, p.TierFailureByReason[k])
	}
	o.Raw("tier_failure_by_reason", reasons.Bytes())
	for _, k := range progressFlags {
		o.Bool(k, p.Flags[k])
	}
	if p.ContinuationTokenSHA != nil {
		o.Str("continuation_token_sha256", *p.ContinuationTokenSHA)
	}
	if p.CursorMarker != nil {
		o.Str("cursor_marker", *p.CursorMarker)
	}
	if p.CursorRevision != nil {
		o.Uint("cursor_revision", *p.CursorRevision)
	}
	q := p.Queue.Raw
	if q == "" {
		q = string(envelope.NewObj().Uint("queue_capacity", p.Queue.QueueCapacity).Uint("queued", p.Queue.Queued).
			Uint("workers", p.Queue.Workers).Uint("active", p.Queue.Active).Bytes())
	}
	return o.Raw("queue_snapshot", []byte(q)).Bytes()
}
