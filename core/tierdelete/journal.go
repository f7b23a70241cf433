// Package tierdelete decodes and encodes RustFS tier-delete journals
// (versions 1–6), dispatch manifests (v1, single or chunk child) and the
// chunk parent, byte-compatible with crates/ecstore/src/bucket/lifecycle/
// tier_delete_journal.rs (docs/design/ilm-records.md#tier-delete-journal).
package tierdelete

import (
	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

const protoJournal = "tier_delete_journal"

// State is the journal transaction state. v1–v4 have no persisted state
// and decode as Committed, as RustFS does.
type State string

// Journal states, spelled as serde writes them.
const (
	Prepared   State = "Prepared"
	Dispatched State = "Dispatched"
	Committed  State = "Committed"
)

// CanTransitionTo reports the legal journal edge Prepared → Dispatched →
// Committed.
func (s State) CanTransitionTo(next State) bool {
	return s == Prepared && next == Dispatched || s == Dispatched && next == Committed
}

func parseState(s string) (State, bool) {
	switch State(s) {
	case Prepared, Dispatched, Committed:
		return State(s), true
	}
	return "", false
}

// VersionState is rustfs_filemeta::TransitionVersionState: how the remote
// version id is to be read.
type VersionState string

// Version states, in their serde spelling.
const (
	VersionUnknown       VersionState = "unknown"
	VersionKnownDisabled VersionState = "known-disabled"
	VersionSuspendedNull VersionState = "suspended-null"
	VersionExact         VersionState = "exact"
)

// ValidVersionState is RustFS validate_version_state: unknown requires no
// exact flag; known-disabled an empty id, not exact; suspended-null the id
// "null", exact; exact a non-empty, non-"null" id, exact.
func ValidVersionState(st VersionState, versionID string, exact bool) bool {
	switch st {
	case VersionUnknown:
		return !exact
	case VersionKnownDisabled:
		return versionID == "" && !exact
	case VersionSuspendedNull:
		return versionID == "null" && exact
	case VersionExact:
		return versionID != "" && versionID != "null" && exact
	}
	return false
}

// Source is TierDeleteSourceIdentity: the local source version a v5/v6
// journal was written for. Field order is the serialization order.
// Assumption: every field is always serialized (Options as null); the
// RustFS struct's serde attributes were not verified.
type Source struct {
	Bucket           string  `json:"bucket"`
	Object           string  `json:"object"`
	VersionID        *string `json:"version_id"`
	Versioned        bool    `json:"versioned"`
	VersionSuspended bool    `json:"version_suspended"`
	DataDir          *string `json:"data_dir"`
	ETag             *string `json:"etag"`
	ModTime          *string `json:"mod_time"`
}

// Dispatch is TierDeleteDispatchBinding, the v6 manifest binding.
type Dispatch struct {
	OperationID        string `json:"operation_id"`    // hyphenated UUID
	ManifestObject     string `json:"manifest_object"` // canonical manifest key
	JournalSetSHA256   string `json:"journal_set_sha256"`
	TopologyGeneration string `json:"topology_generation"` // 64 hex
}

// Journal is one decoded tier-delete journal. Optional fields are pointers
// so that encoding reproduces exactly what was present.
type Journal struct {
	Version         uint8
	ObjName         string
	VersionID       string
	TierName        string
	BackendIdentity *[32]byte // serialized even when nil, as null
	// backendIdentityAbsent records a v1 written before the field existed.
	backendIdentityAbsent bool
	VersionIDExact        *bool // written only when true
	VersionState          *VersionState
	State                 *State
	Source                *Source
	Dispatch              *Dispatch
}

// EffectiveState is the persisted state, or Committed for v1–v4.
func (j *Journal) EffectiveState() State {
	if j.State != nil {
		return *j.State
	}
	return Committed
}

// Exact reports version_id_exact.
func (j *Journal) Exact() bool { return j.VersionIDExact != nil && *j.VersionIDExact }

// EffectiveVersionState is the version state, Exact for v3, Unknown when
// absent on v1/v2.
func (j *Journal) EffectiveVersionState() VersionState {
	if j.VersionState != nil {
		return *j.VersionState
	}
	if j.Version == 3 {
		return VersionExact
	}
	return VersionUnknown
}

// IdentityDigest is the journal's path digest.
func (j *Journal) IdentityDigest() string {
	id := ilmpath.JournalIdentity{
		TierName: j.TierName, ObjName: j.ObjName, VersionID: j.VersionID,
		BackendIdentity: j.BackendIdentity, VersionIDExact: j.Exact() || j.Version == 3,
	}
	if j.Source != nil {
		s := j.Source
		id.Source = &ilmpath.SourceDigestInput{Bucket: s.Bucket, Object: s.Object, VersionID: s.VersionID, DataDir: s.DataDir, ETag: s.ETag, ModTime: s.ModTime}
	}
	return ilmpath.JournalIdentityDigest(id)
}

// CanonicalKey is where this journal must be stored.
func (j *Journal) CanonicalKey() string {
	op := ""
	if j.Dispatch != nil {
		op = j.Dispatch.OperationID
	}
	return ilmpath.JournalKey(j.IdentityDigest(), op)
}

func jerr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(protoJournal, field, sentinel, format, args...)
}

// allowed lists each version's permitted members. RustFS's decoder
// accepts and ignores later-version members on older versions; no RustFS
// writer produces them, so ilmctl rejects them (fail closed).
var allowed = map[uint8][]string{
	1: {"version", "obj_name", "version_id", "tier_name", "backend_identity"},
	2: {"version", "obj_name", "version_id", "tier_name", "backend_identity"},
	3: {"version", "obj_name", "version_id", "tier_name", "backend_identity", "version_id_exact", "version_state"},
	4: {"version", "obj_name", "version_id", "tier_name", "backend_identity", "version_id_exact", "version_state"},
	5: {"version", "obj_name", "version_id", "tier_name", "backend_identity", "version_id_exact", "version_state", "state", "source"},
	6: {"version", "obj_name", "version_id", "tier_name", "backend_identity", "version_id_exact", "version_state", "state", "source", "dispatch"},
}

var allMembers = allowed[6]

// DecodeJournal strictly decodes a journal of any version 1–6. Errors are
// *envelope.DecodeError wrapping ErrUnknownField, ErrMissingField,
// ErrFieldNotAllowed, ErrUnsupportedVersion, ErrVersionState,
// ErrIllegalState, ErrNilUUID, ErrIdentity or ErrTooLarge.
func DecodeJournal(data []byte) (*Journal, error) {
	if len(data) > ilmpath.MaxJournalSize {
		return nil, jerr("", envelope.ErrTooLarge, "%d bytes", len(data))
	}
	o, err := envelope.ParseObject(protoJournal, data)
	if err != nil {
		return nil, err
	}
	if err := o.Allow(allMembers...); err != nil {
		return nil, err
	}
	v, err := o.Uint("version", 255)
	if err != nil {
		return nil, err
	}
	if v < 1 || v > 6 {
		return nil, jerr("version", envelope.ErrUnsupportedVersion, "version %d", v)
	}
	j := &Journal{Version: uint8(v)}
	if err := o.Allow(allowed[j.Version]...); err != nil {
		return nil, jerr(firstExtra(o, allowed[j.Version]), envelope.ErrFieldNotAllowed, "not part of journal v%d", v)
	}
	if j.ObjName, err = o.String("obj_name"); err != nil {
		return nil, err
	}
	if j.VersionID, err = o.String("version_id"); err != nil {
		return nil, err
	}
	if j.TierName, err = o.String("tier_name"); err != nil {
		return nil, err
	}
	if j.ObjName == "" || j.TierName == "" {
		return nil, jerr("obj_name", envelope.ErrIdentity, "object and tier name must be non-empty")
	}
	j.backendIdentityAbsent = !o.Has("backend_identity")
	if j.BackendIdentity, err = o.OptBytes32("backend_identity"); err != nil {
		return nil, err
	}
	if j.VersionIDExact, err = o.OptBool("version_id_exact"); err != nil {
		return nil, err
	}
	if j.VersionIDExact != nil && !*j.VersionIDExact {
		// RustFS writes the flag only as true; a stored false is not a
		// byte RustFS produces.
		return nil, jerr("version_id_exact", envelope.ErrFieldNotAllowed, "written only when true")
	}
	if vs, err := o.OptString("version_state"); err != nil {
		return nil, err
	} else if vs != nil {
		st := VersionState(*vs)
		switch st {
		case VersionUnknown, VersionKnownDisabled, VersionSuspendedNull, VersionExact:
		default:
			return nil, jerr("version_state", envelope.ErrVersionState, "unknown version state %q", *vs)
		}
		j.VersionState = &st
	}
	if j.Version <= 2 {
		if j.Exact() {
			return nil, jerr("version_id_exact", envelope.ErrVersionState, "legacy journal has an exact version constraint")
		}
	}
	switch j.Version {
	case 1:
		if j.BackendIdentity != nil {
			return nil, jerr("backend_identity", envelope.ErrFieldNotAllowed, "journal v1 carries no backend identity")
		}
	case 2:
		if j.BackendIdentity == nil {
			return nil, jerr("backend_identity", envelope.ErrMissingField, "journal v2 requires a backend identity")
		}
	case 3:
		if j.BackendIdentity == nil {
			return nil, jerr("backend_identity", envelope.ErrMissingField, "journal v3 requires a backend identity")
		}
		if j.VersionID == "" || !j.Exact() {
			return nil, jerr("version_id_exact", envelope.ErrVersionState, "journal v3 requires an exact non-empty version id")
		}
		if j.VersionState != nil {
			return nil, jerr("version_state", envelope.ErrFieldNotAllowed, "version_state first appears in v4")
		}
	case 4, 5, 6:
		if j.BackendIdentity == nil {
			return nil, jerr("backend_identity", envelope.ErrMissingField, "journal v%d requires a backend identity", v)
		}
		if j.VersionState == nil {
			return nil, jerr("version_state", envelope.ErrMissingField, "journal v%d requires a version state", v)
		}
		if !ValidVersionState(*j.VersionState, j.VersionID, j.Exact()) {
			return nil, jerr("version_state", envelope.ErrVersionState, "state %q with version id %q, exact=%v", *j.VersionState, j.VersionID, j.Exact())
		}
	}
	if j.Version >= 5 {
		sv, err := o.OptString("state")
		if err != nil {
			return nil, err
		}
		if sv == nil {
			return nil, jerr("state", envelope.ErrMissingField, "journal v%d requires a state", v)
		}
		st, ok := parseState(*sv)
		if !ok {
			return nil, jerr("state", envelope.ErrIllegalState, "unknown journal state %q", *sv)
		}
		j.State = &st
		so, err := o.OptObject("source")
		if err != nil {
			return nil, err
		}
		if so == nil {
			return nil, jerr("source", envelope.ErrMissingField, "journal v%d requires a source identity", v)
		}
		if j.Source, err = decodeSource(so); err != nil {
			return nil, err
		}
	}
	if j.Version == 6 {
		do, err := o.OptObject("dispatch")
		if err != nil {
			return nil, err
		}
		if do == nil {
			return nil, jerr("dispatch", envelope.ErrMissingField, "journal v6 requires a dispatch binding")
		}
		if j.Dispatch, err = decodeDispatch(do); err != nil {
			return nil, err
		}
		if !j.Source.stable() {
			return nil, jerr("source", envelope.ErrIdentity, "journal v6 requires a stable source identity")
		}
	}
	return j, nil
}

func firstExtra(o *envelope.Object, allow []string) string {
	ok := map[string]bool{}
	for _, k := range allow {
		ok[k] = true
	}
	for _, k := range o.Keys() {
		if !ok[k] {
			return k
		}
	}
	return ""
}

// stable is the v6 requirement on a source. Assumption: RustFS's
// has_stable_identity was not read; ilmctl requires bucket, object, data
// dir, etag and mod time, and a version id when versioned.
func (s *Source) stable() bool {
	if s == nil || s.Bucket == "" || s.Object == "" || deref(s.DataDir) == "" || deref(s.ETag) == "" || deref(s.ModTime) == "" {
		return false
	}
	return !s.Versioned || deref(s.VersionID) != ""
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func decodeSource(o *envelope.Object) (*Source, error) {
	if err := o.Allow("bucket", "object", "version_id", "versioned", "version_suspended", "data_dir", "etag", "mod_time"); err != nil {
		return nil, err
	}
	s := &Source{}
	var err error
	if s.Bucket, err = o.String("bucket"); err != nil {
		return nil, err
	}
	if s.Object, err = o.String("object"); err != nil {
		return nil, err
	}
	if s.Bucket == "" || s.Object == "" {
		return nil, jerr("source", envelope.ErrIdentity, "source bucket and object must be non-empty")
	}
	if s.VersionID, err = o.OptString("version_id"); err != nil {
		return nil, err
	}
	if s.Versioned, err = o.Bool("versioned"); err != nil {
		return nil, err
	}
	if s.VersionSuspended, err = o.Bool("version_suspended"); err != nil {
		return nil, err
	}
	if s.DataDir, err = o.OptString("data_dir"); err != nil {
		return nil, err
	}
	if s.ETag, err = o.OptString("etag"); err != nil {
		return nil, err
	}
	if s.ModTime, err = o.OptString("mod_time"); err != nil {
		return nil, err
	}
	return s, nil
}

func decodeDispatch(o *envelope.Object) (*Dispatch, error) {
	if err := o.Allow("operation_id", "manifest_object", "journal_set_sha256", "topology_generation"); err != nil {
		return nil, err
	}
	d := &Dispatch{}
	var err error
	if d.OperationID, err = o.UUID("operation_id"); err != nil {
		return nil, err
	}
	if d.ManifestObject, err = o.String("manifest_object"); err != nil {
		return nil, err
	}
	if d.JournalSetSHA256, err = o.String("journal_set_sha256"); err != nil {
		return nil, err
	}
	if d.TopologyGeneration, err = o.String("topology_generation"); err != nil {
		return nil, err
	}
	if !validTopology(d.TopologyGeneration) {
		return nil, jerr("dispatch.topology_generation", envelope.ErrIdentity, "want 64 hex digits")
	}
	return d, nil
}

// validTopology mirrors valid_tier_delete_topology_generation: 64 ASCII hex
// digits (either case).
func validTopology(g string) bool {
	if len(g) != 64 {
		return false
	}
	for i := 0; i < len(g); i++ {
		c := g[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// Encode writes the journal exactly as RustFS's serde_json::to_vec of
// PersistedTierDeleteJournalEntry: version, obj_name, version_id,
// tier_name, backend_identity (null when absent, except a legacy v1 that
// never had the member), then the optional members only when present.
func (j *Journal) Encode() []byte {
	o := envelope.NewObj().
		Uint("version", uint64(j.Version)).
		Str("obj_name", j.ObjName).
		Str("version_id", j.VersionID).
		Str("tier_name", j.TierName)
	switch {
	case j.BackendIdentity != nil:
		o.Bytes32("backend_identity", *j.BackendIdentity)
	case !j.backendIdentityAbsent:
		o.Null("backend_identity")
	}
	if j.Exact() {
		o.Bool("version_id_exact", true)
	}
	if j.VersionState != nil {
		o.Str("version_state", string(*j.VersionState))
	}
	if j.State != nil {
		o.Str("state", string(*j.State))
	}
	if s := j.Source; s != nil {
		so := envelope.NewObj().Str("bucket", s.Bucket).Str("object", s.Object).OptStr("version_id", s.VersionID).
			Bool("versioned", s.Versioned).Bool("version_suspended", s.VersionSuspended).
			OptStr("data_dir", s.DataDir).OptStr("etag", s.ETag).OptStr("mod_time", s.ModTime)
		o.Raw("source", so.Bytes())
	}
	if d := j.Dispatch; d != nil {
		do := envelope.NewObj().Str("operation_id", d.OperationID).Str("manifest_object", d.ManifestObject).
			Str("journal_set_sha256", d.JournalSetSHA256).Str("topology_generation", d.TopologyGeneration)
		o.Raw("dispatch", do.Bytes())
	}
	return o.Bytes()
}

// CheckPath requires key to be the journal's exact canonical key.
func (j *Journal) CheckPath(key string) error {
	if want := j.CanonicalKey(); key != want {
		return jerr("", envelope.ErrPath, "stored at %q, payload belongs at %q", key, want)
	}
	return nil
}
