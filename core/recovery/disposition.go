package recovery

import (
	"math"
	"sort"

	"github.com/ilmctl/ilmctl/core/envelope"
)

// DispositionSchema is the disposition receipt's schema.
const DispositionSchema = "rustfs-ilm-recovery-disposition-v1"

const protoDisposition = "recovery_disposition"

// DispositionState is a disposition receipt's state.
type DispositionState string

// Disposition states: Prepared -> Applying -> Completed, nothing else.
const (
	Prepared  DispositionState = "Prepared"
	Applying  DispositionState = "Applying"
	Completed DispositionState = "Completed"
)

// CanTransitionTo is the one table of disposition edges.
func (s DispositionState) CanTransitionTo(next DispositionState) bool {
	return (s == Prepared && next == Applying) || (s == Applying && next == Completed)
}

func (s DispositionState) valid() bool { return s == Prepared || s == Applying || s == Completed }

// Disposition is one rustfs-ilm-recovery-disposition-v1 receipt
// (docs/design/recovery.md#abandon-after-export). Everything above
// Revision is immutable: the manifest can never be widened, reordered or
// replaced. ConfirmedAbsent only grows, and names only manifest entries.
type Disposition struct {
	DispositionID        string
	Action               Action
	ExportID             string
	ExportSHA256         string
	ControlID            string
	ControlETag          string
	Protocol             Protocol
	SourcePath           string
	ReasonCode           ReasonCode
	Actor                string
	PreparedAtUnixNanos  int64
	Manifest             []Copy
	Revision             uint64
	State                DispositionState
	ConfirmedAbsent      []string // pool IDs, sorted
	CompletedAtUnixNanos int64
	// Application ownership (docs/design/recovery.md#disposition-ownership):
	// the one claim allowed to apply the disposition. OwnerID is the
	// authenticated actor, OwnerEpoch a fresh UUID per process claim,
	// OwnerGeneration counts claims (1 at Prepared, +1 per takeover). The
	// lease is held through LeaseExpiresAtUnixNanos; 0 means released. On
	// Completed the fields name the claim that completed it.
	OwnerID                  string
	OwnerEpoch               string
	OwnerGeneration          uint64
	LeaseAcquiredAtUnixNanos int64
	LeaseExpiresAtUnixNanos  int64
}

// Key is the disposition's canonical key.
func (d *Disposition) Key() string { return DispositionKey(d.Protocol, d.DispositionID) }

// Confirmed reports whether the manifest entry of pool is confirmed absent.
func (d *Disposition) Confirmed(pool string) bool {
	i := sort.SearchStrings(d.ConfirmedAbsent, pool)
	return i < len(d.ConfirmedAbsent) && d.ConfirmedAbsent[i] == pool
}

// EncodeInner is the canonical inner object.
func (d *Disposition) EncodeInner() []byte {
	confirmed := d.ConfirmedAbsent
	if confirmed == nil {
		confirmed = []string{}
	}
	return envelope.NewObj().Str("disposition_id", d.DispositionID).Str("action", string(d.Action)).
		Str("export_id", d.ExportID).Str("export_sha256", d.ExportSHA256).Str("control_id", d.ControlID).
		Str("control_etag", d.ControlETag).Str("protocol", string(d.Protocol)).Str("source_path", d.SourcePath).
		Str("reason_code", string(d.ReasonCode)).Str("actor", d.Actor).Int("prepared_at_unix_nanos", d.PreparedAtUnixNanos).
		Raw("manifest", encodeCopies(d.Manifest)).Uint("revision", d.Revision).Str("state", string(d.State)).
		Strings("confirmed_absent", confirmed).Int("completed_at_unix_nanos", d.CompletedAtUnixNanos).
		Str("owner_id", d.OwnerID).Str("owner_epoch", d.OwnerEpoch).Uint("owner_generation", d.OwnerGeneration).
		Int("lease_acquired_at_unix_nanos", d.LeaseAcquiredAtUnixNanos).Int("lease_expires_at_unix_nanos", d.LeaseExpiresAtUnixNanos).Bytes()
}

// Encode seals the disposition.
func (d *Disposition) Encode() []byte {
	return envelope.Seal(DispositionSchema, "disposition", d.EncodeInner())
}

func derr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(protoDisposition, field, sentinel, format, args...)
}

// DecodeDisposition strictly decodes a disposition stored at key.
func DecodeDisposition(key string, data []byte) (*Disposition, error) {
	proto, id, err := ParseArtifactKey(DispositionPrefix, key)
	if err != nil {
		return nil, derr("", envelope.ErrPath, "%v", err)
	}
	env, err := envelope.Open(protoDisposition, data, DispositionSchema, "disposition", MaxControlSize)
	if err != nil {
		return nil, err
	}
	o := env.Inner
	if err := o.Allow("disposition_id", "action", "export_id", "export_sha256", "control_id", "control_etag", "protocol", "source_path",
		"reason_code", "actor", "prepared_at_unix_nanos", "manifest", "revision", "state", "confirmed_absent", "completed_at_unix_nanos",
		"owner_id", "owner_epoch", "owner_generation", "lease_acquired_at_unix_nanos", "lease_expires_at_unix_nanos"); err != nil {
		return nil, err
	}
	d := &Disposition{}
	var action, p, reason, state string
	for _, f := range []struct {
		k string
		v *string
	}{{"disposition_id", &d.DispositionID}, {"action", &action}, {"export_id", &d.ExportID}, {"export_sha256", &d.ExportSHA256},
		{"control_id", &d.ControlID}, {"control_etag", &d.ControlETag}, {"protocol", &p}, {"source_path", &d.SourcePath},
		{"reason_code", &reason}, {"actor", &d.Actor}, {"state", &state}, {"owner_id", &d.OwnerID}, {"owner_epoch", &d.OwnerEpoch}} {
		if *f.v, err = o.String(f.k); err != nil {
			return nil, err
		}
	}
	if d.PreparedAtUnixNanos, err = o.Int("prepared_at_unix_nanos"); err != nil {
		return nil, err
	}
	if d.CompletedAtUnixNanos, err = o.Int("completed_at_unix_nanos"); err != nil {
		return nil, err
	}
	if d.Revision, err = o.Uint("revision", math.MaxUint64); err != nil {
		return nil, err
	}
	if d.OwnerGeneration, err = o.Uint("owner_generation", math.MaxUint64); err != nil {
		return nil, err
	}
	if d.LeaseAcquiredAtUnixNanos, err = o.Int("lease_acquired_at_unix_nanos"); err != nil {
		return nil, err
	}
	if d.LeaseExpiresAtUnixNanos, err = o.Int("lease_expires_at_unix_nanos"); err != nil {
		return nil, err
	}
	if d.Manifest, err = decodeCopies(protoDisposition, o, "manifest"); err != nil {
		return nil, err
	}
	if d.ConfirmedAbsent, err = o.StringArray("confirmed_absent"); err != nil {
		return nil, err
	}
	d.Action, d.ReasonCode, d.State = Action(action), ReasonCode(reason), DispositionState(state)
	if d.Protocol, err = ParseProtocol(p); err != nil || d.Protocol != proto {
		return nil, derr("protocol", envelope.ErrIdentity, "protocol %q does not match its key", p)
	}
	if err := env.Verify(protoDisposition, d.EncodeInner()); err != nil {
		return nil, err
	}
	switch {
	case d.Action != ActionAbandonRemoteCleanup:
		return nil, derr("action", envelope.ErrIllegalState, "unknown action %q", action)
	case d.ReasonCode != ReasonLegacyRemoteCleanupAbandoned:
		return nil, derr("reason_code", envelope.ErrIllegalState, "unknown reason %q", reason)
	case !d.State.valid():
		return nil, derr("state", envelope.ErrIllegalState, "unknown state %q", state)
	case d.DispositionID != id || DispositionID(d.ExportID, d.Action) != id:
		return nil, derr("disposition_id", envelope.ErrIdentity, "disposition_id is not the digest of export and action")
	case d.Revision == 0:
		return nil, derr("revision", envelope.ErrIllegalRevision, "revision starts at 1")
	case len(d.Manifest) == 0:
		return nil, derr("manifest", envelope.ErrIdentity, "an empty manifest binds nothing")
	case (d.State == Completed) != (d.CompletedAtUnixNanos != 0):
		return nil, derr("completed_at_unix_nanos", envelope.ErrIllegalState, "set exactly when Completed")
	case d.OwnerID == "" || !envelope.IsCanonicalUUID(d.OwnerEpoch) || d.OwnerGeneration == 0 || d.OwnerGeneration > d.Revision:
		return nil, derr("owner_id", envelope.ErrIdentity, "an application owner needs an actor, a UUID epoch and a generation 1..revision")
	case d.LeaseAcquiredAtUnixNanos <= 0 || (d.LeaseExpiresAtUnixNanos != 0 && d.LeaseExpiresAtUnixNanos <= d.LeaseAcquiredAtUnixNanos):
		return nil, derr("lease_expires_at_unix_nanos", envelope.ErrIllegalState, "a lease is acquired before it expires (0: released)")
	}
	inManifest := map[string]bool{}
	for _, c := range d.Manifest {
		if c.Path != d.SourcePath {
			return nil, derr("manifest", envelope.ErrIdentity, "a manifest entry names another path")
		}
		inManifest[c.Pool] = true
	}
	for i, p := range d.ConfirmedAbsent {
		if !inManifest[p] || (i > 0 && d.ConfirmedAbsent[i-1] >= p) {
			return nil, derr("confirmed_absent", envelope.ErrIdentity, "confirmed_absent must be sorted, unique manifest entries")
		}
	}
	if d.State == Prepared && len(d.ConfirmedAbsent) > 0 {
		return nil, derr("confirmed_absent", envelope.ErrIllegalState, "nothing is confirmed before Applying")
	}
	if d.State == Completed && len(d.ConfirmedAbsent) != len(d.Manifest) {
		return nil, derr("confirmed_absent", envelope.ErrIllegalState, "Completed needs every manifest entry confirmed absent")
	}
	return d, nil
}
