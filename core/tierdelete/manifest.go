package tierdelete

import (
	"sort"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

const (
	protoManifest = "tier_delete_manifest"
	protoParent   = "tier_delete_chunk_parent"
)

// ManifestState is TierDeleteDispatchManifestState.
type ManifestState string

// Manifest states in serde spelling.
const (
	Preparing          ManifestState = "Preparing"
	DispatchAuthorized ManifestState = "DispatchAuthorized"
	Aborting           ManifestState = "Aborting"
	Aborted            ManifestState = "Aborted"
	ManifestCompleted  ManifestState = "Completed"
)

// CanTransitionTo lists the legal manifest edges:
// Preparing → DispatchAuthorized → Completed; Preparing → Aborting → Aborted.
func (s ManifestState) CanTransitionTo(next ManifestState) bool {
	switch s {
	case Preparing:
		return next == DispatchAuthorized || next == Aborting
	case DispatchAuthorized:
		return next == ManifestCompleted
	case Aborting:
		return next == Aborted
	}
	return false
}

// Manifest is a v1 dispatch manifest (single root or chunk child).
type Manifest struct {
	Version            uint8
	OperationID        string // hyphenated UUID
	Bucket             string
	BucketIncarnation  string // hyphenated UUID
	Prefix             string
	JournalNames       []string
	JournalSetSHA256   string
	JournalCount       uint64
	TopologyGeneration string
	State              ManifestState
}

func merr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(protoManifest, field, sentinel, format, args...)
}

// IsChunkParent reports whether data is a chunk-parent record (it carries
// record_type), without validating it.
func IsChunkParent(data []byte) bool {
	o, err := envelope.ParseObject(protoManifest, data)
	return err == nil && o.Has("record_type")
}

// DecodeManifest strictly decodes a v1 manifest stored at key, which must be
// either its root key or, when chunk is true, its chunk child key. Checks:
// version 1, non-nil operation and incarnation, non-empty bucket, ≤200,000
// strictly sorted unique names all under
// ilm/tier-delete-journal-v6/<operation>/ ending .json, count and digest
// equal to the names, 64-hex topology, and path = canonical path.
func DecodeManifest(key string, data []byte) (*Manifest, error) {
	if len(data) > ilmpath.MaxManifestSize {
		return nil, merr("", envelope.ErrTooLarge, "%d bytes", len(data))
	}
	o, err := envelope.ParseObject(protoManifest, data)
	if err != nil {
		return nil, err
	}
	if o.Has("record_type") {
		return nil, merr("record_type", envelope.ErrSchema, "a chunk parent is not a dispatch manifest")
	}
	if err := o.Allow("version", "operation_id", "bucket", "bucket_incarnation", "prefix", "journal_names", "journal_set_sha256", "journal_count", "topology_generation", "state"); err != nil {
		return nil, err
	}
	m := &Manifest{}
	v, err := o.Uint("version", 255)
	if err != nil {
		return nil, err
	}
	if v != 1 {
		return nil, merr("version", envelope.ErrUnsupportedVersion, "version %d", v)
	}
	m.Version = 1
	if m.OperationID, err = o.UUID("operation_id"); err != nil {
		return nil, err
	}
	if m.Bucket, err = o.String("bucket"); err != nil {
		return nil, err
	}
	if m.Bucket == "" {
		return nil, merr("bucket", envelope.ErrIdentity, "bucket is empty")
	}
	if m.BucketIncarnation, err = o.UUID("bucket_incarnation"); err != nil {
		return nil, err
	}
	if m.Prefix, err = o.String("prefix"); err != nil {
		return nil, err
	}
	if m.JournalNames, err = o.StringArray("journal_names"); err != nil {
		return nil, err
	}
	if m.JournalSetSHA256, err = o.String("journal_set_sha256"); err != nil {
		return nil, err
	}
	if m.JournalCount, err = o.Uint("journal_count", 1<<63); err != nil {
		return nil, err
	}
	if m.TopologyGeneration, err = o.String("topology_generation"); err != nil {
		return nil, err
	}
	s, err := o.String("state")
	if err != nil {
		return nil, err
	}
	switch ManifestState(s) {
	case Preparing, DispatchAuthorized, Aborting, Aborted, ManifestCompleted:
		m.State = ManifestState(s)
	default:
		return nil, merr("state", envelope.ErrIllegalState, "unknown manifest state %q", s)
	}
	if len(m.JournalNames) > ilmpath.MaxManifestJournals {
		return nil, merr("journal_names", envelope.ErrTooLarge, "%d names > %d", len(m.JournalNames), ilmpath.MaxManifestJournals)
	}
	if m.JournalCount != uint64(len(m.JournalNames)) {
		return nil, merr("journal_count", envelope.ErrIdentity, "count %d, %d names", m.JournalCount, len(m.JournalNames))
	}
	if !validTopology(m.TopologyGeneration) {
		return nil, merr("topology_generation", envelope.ErrIdentity, "want 64 hex digits")
	}
	want := "ilm/tier-delete-journal-v6/" + ilmpath.Simple(m.OperationID) + "/"
	for i, n := range m.JournalNames {
		if i > 0 && !(m.JournalNames[i-1] < n) {
			return nil, merr("journal_names", envelope.ErrIdentity, "names are not strictly sorted and unique at %d", i)
		}
		if !strings.HasPrefix(n, want) || !strings.HasSuffix(n, ".json") {
			return nil, merr("journal_names", envelope.ErrIdentity, "%q is not under %s", n, want)
		}
	}
	if ilmpath.JournalSetSHA256(m.JournalNames) != m.JournalSetSHA256 {
		return nil, merr("journal_set_sha256", envelope.ErrIdentity, "digest does not match the journal names")
	}
	if key != m.RootKey() && key != m.ChunkKey() {
		return nil, merr("", envelope.ErrPath, "stored at %q, payload belongs at %q or %q", key, m.RootKey(), m.ChunkKey())
	}
	return m, nil
}

// RootKey is the single-dispatch key for this scope.
func (m *Manifest) RootKey() string {
	return ilmpath.ManifestRootKey(m.Bucket, m.BucketIncarnation, m.Prefix)
}

// ChunkKey is the chunk-child key for this scope and operation.
func (m *Manifest) ChunkKey() string {
	return ilmpath.ManifestChunkKey(m.Bucket, m.BucketIncarnation, m.Prefix, m.OperationID)
}

// Contains reports whether name is a member (names are sorted).
func (m *Manifest) Contains(name string) bool {
	i := sort.SearchStrings(m.JournalNames, name)
	return i < len(m.JournalNames) && m.JournalNames[i] == name
}

// Encode writes the manifest in RustFS field order.
func (m *Manifest) Encode() []byte {
	return envelope.NewObj().
		Uint("version", uint64(m.Version)).
		Str("operation_id", m.OperationID).
		Str("bucket", m.Bucket).
		Str("bucket_incarnation", m.BucketIncarnation).
		Str("prefix", m.Prefix).
		Strings("journal_names", m.JournalNames).
		Str("journal_set_sha256", m.JournalSetSHA256).
		Uint("journal_count", m.JournalCount).
		Str("topology_generation", m.TopologyGeneration).
		Str("state", string(m.State)).
		Bytes()
}

// ParentState is the chunk parent's state.
type ParentState string

// Parent states.
const (
	ParentActive    ParentState = "Active"
	ParentCompleted ParentState = "Completed"
)

// CanTransitionTo: Active → Completed only (Active → Active progress is a
// revision change checked by ValidSuccessor).
func (s ParentState) CanTransitionTo(next ParentState) bool {
	return s == ParentActive && next == ParentCompleted
}

// ChildBinding is the parent's one optional bound child.
type ChildBinding struct {
	Sequence         uint64
	OperationID      string // child operation UUID
	ManifestObject   string // the child's chunk key
	JournalSetSHA256 string
	JournalCount     uint64
}

// Parent is the chunk-parent sentinel at the manifest root key.
//
// Assumption: RustFS's chunk-parent source was not available. The member
// names and order below follow RustFS's persistence-contracts document
// (docs/design/ilm-records.md#chunk-parent) and the receipt checkpoint fields
// (revision, next_chunk_sequence, completed_journal_count, completed):
//
//	{"version":1,"record_type":"chunked_parent","operation_id":…,"bucket":…,
//	 "bucket_incarnation":…,"prefix":…,"topology_generation":…,"revision":…,
//	 "next_chunk_sequence":…,"completed_journal_count":…,
//	 "active_chunk":null|{"sequence":…,"operation_id":…,"manifest_object":…,
//	 "journal_set_sha256":…,"journal_count":…},"state":"Active"|"Completed"}
type Parent struct {
	Version               uint8
	OperationID           string
	Bucket                string
	BucketIncarnation     string
	Prefix                string
	TopologyGeneration    string
	Revision              uint64
	NextChunkSequence     uint64
	CompletedJournalCount uint64
	ActiveChunk           *ChildBinding
	State                 ParentState
}

func perr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(protoParent, field, sentinel, format, args...)
}

// DecodeParent strictly decodes a chunk parent stored at key (the root
// key). Checks: record_type "chunked_parent", version 1, non-nil UUIDs,
// revision ≥ 1, a bound child's sequence < next sequence and its manifest
// key equal to the canonical chunk key of (scope, child operation), and a
// Completed parent has no bound child.
func DecodeParent(key string, data []byte) (*Parent, error) {
	if len(data) > ilmpath.MaxManifestSize {
		return nil, perr("", envelope.ErrTooLarge, "%d bytes", len(data))
	}
	o, err := envelope.ParseObject(protoParent, data)
	if err != nil {
		return nil, err
	}
	if err := o.Allow("version", "record_type", "operation_id", "bucket", "bucket_incarnation", "prefix", "topology_generation", "revision", "next_chunk_sequence", "completed_journal_count", "active_chunk", "state"); err != nil {
		return nil, err
	}
	p := &Parent{}
	v, err := o.Uint("version", 255)
	if err != nil {
		return nil, err
	}
	if v != 1 {
		return nil, perr("version", envelope.ErrUnsupportedVersion, "version %d", v)
	}
	p.Version = 1
	rt, err := o.String("record_type")
	if err != nil {
		return nil, err
	}
	if rt != "chunked_parent" {
		return nil, perr("record_type", envelope.ErrSchema, "record_type %q", rt)
	}
	if p.OperationID, err = o.UUID("operation_id"); err != nil {
		return nil, err
	}
	if p.Bucket, err = o.String("bucket"); err != nil {
		return nil, err
	}
	if p.Bucket == "" {
		return nil, perr("bucket", envelope.ErrIdentity, "bucket is empty")
	}
	if p.BucketIncarnation, err = o.UUID("bucket_incarnation"); err != nil {
		return nil, err
	}
	if p.Prefix, err = o.String("prefix"); err != nil {
		return nil, err
	}
	if p.TopologyGeneration, err = o.String("topology_generation"); err != nil {
		return nil, err
	}
	if !validTopology(p.TopologyGeneration) {
		return nil, perr("topology_generation", envelope.ErrIdentity, "want 64 hex digits")
	}
	if p.Revision, err = o.Uint("revision", 1<<63); err != nil {
		return nil, err
	}
	if p.Revision == 0 {
		return nil, perr("revision", envelope.ErrIllegalRevision, "revision is zero")
	}
	if p.NextChunkSequence, err = o.Uint("next_chunk_sequence", 1<<63); err != nil {
		return nil, err
	}
	if p.CompletedJournalCount, err = o.Uint("completed_journal_count", 1<<63); err != nil {
		return nil, err
	}
	s, err := o.String("state")
	if err != nil {
		return nil, err
	}
	switch ParentState(s) {
	case ParentActive, ParentCompleted:
		p.State = ParentState(s)
	default:
		return nil, perr("state", envelope.ErrIllegalState, "unknown parent state %q", s)
	}
	if !o.Has("active_chunk") {
		return nil, perr("active_chunk", envelope.ErrMissingField, "")
	}
	co, err := o.OptObject("active_chunk")
	if err != nil {
		return nil, err
	}
	if co != nil {
		if err := co.Allow("sequence", "operation_id", "manifest_object", "journal_set_sha256", "journal_count"); err != nil {
			return nil, err
		}
		c := &ChildBinding{}
		if c.Sequence, err = co.Uint("sequence", 1<<63); err != nil {
			return nil, err
		}
		if c.OperationID, err = co.UUID("operation_id"); err != nil {
			return nil, err
		}
		if c.ManifestObject, err = co.String("manifest_object"); err != nil {
			return nil, err
		}
		if c.JournalSetSHA256, err = co.String("journal_set_sha256"); err != nil {
			return nil, err
		}
		if c.JournalCount, err = co.Uint("journal_count", ilmpath.MaxManifestJournals); err != nil {
			return nil, err
		}
		if c.Sequence >= p.NextChunkSequence {
			return nil, perr("active_chunk.sequence", envelope.ErrIllegalRevision, "bound sequence %d is not below next sequence %d", c.Sequence, p.NextChunkSequence)
		}
		if want := ilmpath.ManifestChunkKey(p.Bucket, p.BucketIncarnation, p.Prefix, c.OperationID); c.ManifestObject != want {
			return nil, perr("active_chunk.manifest_object", envelope.ErrIdentity, "binding names %q, canonical child key is %q", c.ManifestObject, want)
		}
		if !envelope.IsSHA256Hex(c.JournalSetSHA256) {
			return nil, perr("active_chunk.journal_set_sha256", envelope.ErrIdentity, "want 64 lowercase hex digits")
		}
		p.ActiveChunk = c
	}
	if p.State == ParentCompleted && p.ActiveChunk != nil {
		return nil, perr("state", envelope.ErrIllegalState, "a Completed parent binds no child")
	}
	if want := ilmpath.ManifestRootKey(p.Bucket, p.BucketIncarnation, p.Prefix); key != want {
		return nil, perr("", envelope.ErrPath, "stored at %q, payload belongs at %q", key, want)
	}
	return p, nil
}

// Encode writes the parent in the (assumed) field order documented on Parent.
func (p *Parent) Encode() []byte {
	o := envelope.NewObj().
		Uint("version", uint64(p.Version)).
		Str("record_type", "chunked_parent").
		Str("operation_id", p.OperationID).
		Str("bucket", p.Bucket).
		Str("bucket_incarnation", p.BucketIncarnation).
		Str("prefix", p.Prefix).
		Str("topology_generation", p.TopologyGeneration).
		Uint("revision", p.Revision).
		Uint("next_chunk_sequence", p.NextChunkSequence).
		Uint("completed_journal_count", p.CompletedJournalCount)
	if c := p.ActiveChunk; c != nil {
		o.Raw("active_chunk", envelope.NewObj().Uint("sequence", c.Sequence).Str("operation_id", c.OperationID).
			Str("manifest_object", c.ManifestObject).Str("journal_set_sha256", c.JournalSetSHA256).
			Uint("journal_count", c.JournalCount).Bytes())
	} else {
		o.Null("active_chunk")
	}
	return o.Str("state", string(p.State)).Bytes()
}

// RootKey is the parent's canonical key (the scope's manifest root).
func (p *Parent) RootKey() string {
	return ilmpath.ManifestRootKey(p.Bucket, p.BucketIncarnation, p.Prefix)
}
