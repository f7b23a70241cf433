// Package transition decodes and encodes RustFS transition transaction
// records (schema rustfs-transition-transaction-v1), byte-compatible with
// crates/ecstore/src/bucket/lifecycle/transition_transaction.rs
// (docs/design/ilm-records.md#transition-transaction).
package transition

import (
	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// Schema is the v1 envelope schema.
const Schema = "rustfs-transition-transaction-v1"

const proto = "transition_transaction"

// State is TransitionTransactionState (serde snake_case).
type State string

// Transaction states.
const (
	UploadStarted        State = "upload_started"
	UploadOutcomeUnknown State = "upload_outcome_unknown"
	AbortedNoRemote      State = "aborted_no_remote"
	Uploaded             State = "uploaded"
	LocalCommitStarted   State = "local_commit_started"
	Committed            State = "committed"
	CleanupPending       State = "cleanup_pending"
)

// CanTransitionTo is the ordinary edge set plus the proof-checked
// mark_cleanup_pending edges from uploaded, upload_outcome_unknown and
// local_commit_started.
func (s State) CanTransitionTo(next State) bool {
	switch s {
	case UploadStarted:
		return next == Uploaded || next == UploadOutcomeUnknown || next == AbortedNoRemote
	case UploadOutcomeUnknown:
		return next == Uploaded || next == CleanupPending
	case Uploaded:
		return next == LocalCommitStarted || next == CleanupPending
	case LocalCommitStarted:
		return next == Committed || next == CleanupPending
	}
	return false
}

// Steps reports whether a transaction at from can reach to in exactly n
// edges of CanTransitionTo (each edge is one revision). from == to with
// n == 0 is the same generation; the state graph is acyclic, so every
// path is finite.
func Steps(from, to State, n uint64) bool {
	if n == 0 {
		return from == to
	}
	for _, next := range []State{UploadOutcomeUnknown, AbortedNoRemote, Uploaded, LocalCommitStarted, Committed, CleanupPending} {
		if from.CanTransitionTo(next) && Steps(next, to, n-1) {
			return true
		}
	}
	return false
}

// LegalRevisions are the reachable revisions of each state from
// UploadStarted@1, one per edge
// (docs/design/ilm-records.md#transition-transaction). Any other pair is corrupt.
var LegalRevisions = map[State][]uint64{
	UploadStarted:        {1},
	UploadOutcomeUnknown: {2},
	AbortedNoRemote:      {2},
	Uploaded:             {2, 3},
	LocalCommitStarted:   {3, 4},
	Committed:            {4, 5},
	CleanupPending:       {3, 4, 5},
}

// requiresKnownRemote: states that must carry a known remote version.
func requiresKnownRemote(s State) bool {
	return s == Uploaded || s == LocalCommitStarted || s == Committed || s == CleanupPending
}

// RemoteKind is TransitionRemoteVersionKind.
type RemoteKind string

// Remote version kinds.
const (
	RemoteUnknown     RemoteKind = "unknown"
	RemoteUnversioned RemoteKind = "unversioned"
	RemoteVersioned   RemoteKind = "versioned"
)

// RemoteVersion is TransitionRemoteVersion; VersionID is set only for
// versioned.
type RemoteVersion struct {
	Kind      RemoteKind
	VersionID *string
}

// VersionMode is TransitionSourceVersionMode.
type VersionMode string

// Source version modes.
const (
	ModeUnversioned      VersionMode = "unversioned"
	ModeVersioned        VersionMode = "versioned"
	ModeVersionSuspended VersionMode = "version_suspended"
)

// Source is TransitionSourceIdentity.
type Source struct {
	Bucket           string
	Object           string
	VersionID        *string // UUID, required iff versioned
	DataDir          string  // UUID
	ModTimeUnixNanos int64
	Size             int64
	ETag             string
	VersionMode      VersionMode
}

// Transaction is TransitionTransaction in field order.
type Transaction struct {
	DeploymentID       string
	TransactionID      string
	Revision           uint64
	OwnerEpoch         string
	WriteID            string
	Source             Source
	TierName           string
	BackendFingerprint [32]byte
	RemoteObject       string
	RemoteVersion      RemoteVersion
	State              State
	NotAfterUnixNanos  int64
}

func terr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(proto, field, sentinel, format, args...)
}

// Decode opens and verifies the envelope stored at key: ≤64 KiB, schema,
// checksum over the serde re-encoding, every invariant of RustFS validate()
// plus the legal state/revision pairs, and key equal to the exact lowercase
// canonical record key.
func Decode(key string, data []byte) (*Transaction, error) {
	env, err := envelope.Open(proto, data, Schema, "transaction", ilmpath.MaxTransitionSize)
	if err != nil {
		return nil, err
	}
	t, err := decodeInner(env.Inner)
	if err != nil {
		return nil, err
	}
	if err := env.Verify(proto, t.EncodeInner()); err != nil {
		return nil, err
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if want := ilmpath.TransitionKey(t.TransactionID); key != want {
		return nil, terr("", envelope.ErrPath, "stored at %q, payload belongs at %q", key, want)
	}
	return t, nil
}

func decodeInner(o *envelope.Object) (*Transaction, error) {
	if err := o.Allow("deployment_id", "transaction_id", "revision", "owner_epoch", "write_id", "source", "tier_name", "backend_fingerprint", "remote_object", "remote_version", "state", "not_after_unix_nanos"); err != nil {
		return nil, err
	}
	t := &Transaction{}
	var err error
	if t.DeploymentID, err = o.UUID("deployment_id"); err != nil {
		return nil, err
	}
	if t.TransactionID, err = o.UUID("transaction_id"); err != nil {
		return nil, err
	}
	if t.Revision, err = o.Uint("revision", 1<<63); err != nil {
		return nil, err
	}
	if t.OwnerEpoch, err = o.UUID("owner_epoch"); err != nil {
		return nil, err
	}
	if t.WriteID, err = o.UUID("write_id"); err != nil {
		return nil, err
	}
	so, err := o.Object("source")
	if err != nil {
		return nil, err
	}
	if err := so.Allow("bucket", "object", "version_id", "data_dir", "mod_time_unix_nanos", "size", "etag", "version_mode"); err != nil {
		return nil, err
	}
	s := &t.Source
	if s.Bucket, err = so.String("bucket"); err != nil {
		return nil, err
	}
	if s.Object, err = so.String("object"); err != nil {
		return nil, err
	}
	if s.VersionID, err = so.OptUUID("version_id"); err != nil {
		return nil, err
	}
	if s.DataDir, err = so.UUID("data_dir"); err != nil {
		return nil, err
	}
	if s.ModTimeUnixNanos, err = so.Int("mod_time_unix_nanos"); err != nil {
		return nil, err
	}
	if s.Size, err = so.Int("size"); err != nil {
		return nil, err
	}
	if s.ETag, err = so.String("etag"); err != nil {
		return nil, err
	}
	mode, err := so.String("version_mode")
	if err != nil {
		return nil, err
	}
	s.VersionMode = VersionMode(mode)
	if t.TierName, err = o.String("tier_name"); err != nil {
		return nil, err
	}
	if t.BackendFingerprint, err = o.Bytes32("backend_fingerprint"); err != nil {
		return nil, err
	}
	if t.RemoteObject, err = o.String("remote_object"); err != nil {
		return nil, err
	}
	ro, err := o.Object("remote_version")
	if err != nil {
		return nil, err
	}
	if err := ro.Allow("kind", "version_id"); err != nil {
		return nil, err
	}
	kind, err := ro.String("kind")
	if err != nil {
		return nil, err
	}
	t.RemoteVersion.Kind = RemoteKind(kind)
	if t.RemoteVersion.VersionID, err = ro.OptString("version_id"); err != nil {
		return nil, err
	}
	st, err := o.String("state")
	if err != nil {
		return nil, err
	}
	t.State = State(st)
	if t.NotAfterUnixNanos, err = o.Int("not_after_unix_nanos"); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate enforces RustFS TransitionTransaction::validate and the legal
// state/revision pairs.
func (t *Transaction) Validate() error {
	revs, ok := LegalRevisions[t.State]
	if !ok {
		return terr("state", envelope.ErrIllegalState, "unknown state %q", t.State)
	}
	legal := false
	for _, r := range revs {
		legal = legal || r == t.Revision
	}
	if !legal {
		return terr("revision", envelope.ErrIllegalRevision, "%s@%d is not reachable", t.State, t.Revision)
	}
	s := t.Source
	switch s.VersionMode {
	case ModeVersioned:
		if s.VersionID == nil {
			return terr("source.version_id", envelope.ErrIdentity, "versioned source is missing version_id")
		}
	case ModeUnversioned, ModeVersionSuspended:
		if s.VersionID != nil {
			return terr("source.version_id", envelope.ErrIdentity, "non-versioned source mode must not carry version_id")
		}
	default:
		return terr("source.version_mode", envelope.ErrIdentity, "unknown version mode %q", s.VersionMode)
	}
	if s.Bucket == "" || s.Object == "" || s.ETag == "" {
		return terr("source", envelope.ErrIdentity, "source bucket, object and etag must be non-empty")
	}
	if s.Size < 0 {
		return terr("source.size", envelope.ErrIdentity, "source size is negative")
	}
	if t.TierName == "" {
		return terr("tier_name", envelope.ErrIdentity, "tier name is empty")
	}
	if want := ilmpath.TransitionRemoteObject(t.DeploymentID, s.Bucket, t.TransactionID, t.WriteID); t.RemoteObject != want {
		return terr("remote_object", envelope.ErrIdentity, "remote object is not canonical")
	}
	rv := t.RemoteVersion
	switch rv.Kind {
	case RemoteUnknown, RemoteUnversioned:
		if rv.VersionID != nil {
			return terr("remote_version", envelope.ErrIdentity, "remote version must be absent for non-versioned state")
		}
	case RemoteVersioned:
		if rv.VersionID == nil || *rv.VersionID == "" {
			return terr("remote_version", envelope.ErrIdentity, "versioned remote version is missing or empty")
		}
		if *rv.VersionID == envelope.NilUUID || ilmpath.Simple(*rv.VersionID) == "00000000000000000000000000000000" {
			return terr("remote_version", envelope.ErrNilUUID, "versioned remote version is nil uuid")
		}
	default:
		return terr("remote_version.kind", envelope.ErrIdentity, "unknown remote version kind %q", rv.Kind)
	}
	if requiresKnownRemote(t.State) && rv.Kind == RemoteUnknown {
		return terr("remote_version", envelope.ErrIdentity, "state %s requires a known remote version", t.State)
	}
	if (t.State == UploadStarted || t.State == UploadOutcomeUnknown || t.State == AbortedNoRemote) && rv.Kind != RemoteUnknown {
		return terr("remote_version", envelope.ErrIdentity, "pre-upload-completion state must not carry a known remote version")
	}
	return nil
}

// EncodeInner is serde_json::to_vec(&TransitionTransaction).
func (t *Transaction) EncodeInner() []byte {
	s := t.Source
	src := envelope.NewObj().Str("bucket", s.Bucket).Str("object", s.Object).OptStr("version_id", s.VersionID).
		Str("data_dir", s.DataDir).Int("mod_time_unix_nanos", s.ModTimeUnixNanos).Int("size", s.Size).
		Str("etag", s.ETag).Str("version_mode", string(s.VersionMode)).Bytes()
	rv := envelope.NewObj().Str("kind", string(t.RemoteVersion.Kind))
	if t.RemoteVersion.VersionID != nil {
		rv.Str("version_id", *t.RemoteVersion.VersionID)
	}
	return envelope.NewObj().
		Str("deployment_id", t.DeploymentID).
		Str("transaction_id", t.TransactionID).
		Uint("revision", t.Revision).
		Str("owner_epoch", t.OwnerEpoch).
		Str("write_id", t.WriteID).
		Raw("source", src).
		Str("tier_name", t.TierName).
		Bytes32("backend_fingerprint", t.BackendFingerprint).
		Str("remote_object", t.RemoteObject).
		Raw("remote_version", rv.Bytes()).
		Str("state", string(t.State)).
		Int("not_after_unix_nanos", t.NotAfterUnixNanos).
		Bytes()
}

// Encode seals the transaction in its checksum envelope.
func (t *Transaction) Encode() []byte { return envelope.Seal(Schema, "transaction", t.EncodeInner()) }
