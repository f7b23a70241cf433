package recovery

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// ControlSchema is the control envelope's schema.
const ControlSchema = "rustfs-ilm-recovery-control-v1"

// MaxControlSize is the encoded control bound, bytes.
const MaxControlSize = ilmpath.MaxRecoverySize

const protoControl = "recovery_control"

// Copy is one pool's copy of a source record, as a strong read saw it.
// Pool is PoolID of the pool's name, so durable records never hold an
// endpoint.
type Copy struct {
	Pool   string `json:"pool"`
	Path   string `json:"path"`
	ETag   string `json:"etag"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// PoolID names a pool in durable records and receipts: a digest of its
// --meta URL, so neither endpoints nor bucket names are persisted.
func PoolID(name string) string { return "pool:" + envelope.SHA256Hex([]byte(name))[:16] }

// SortCopies orders copies by pool then path: the one order manifests,
// digests and receipts use.
func SortCopies(c []Copy) {
	sort.Slice(c, func(i, j int) bool {
		if c[i].Pool != c[j].Pool {
			return c[i].Pool < c[j].Pool
		}
		return c[i].Path < c[j].Path
	})
}

// CopySetSHA256 is the digest of the sorted copy set.
func CopySetSHA256(copies []Copy) string {
	c := append([]Copy(nil), copies...)
	SortCopies(c)
	parts := []string{"copy-set"}
	for _, x := range c {
		parts = append(parts, x.Pool, x.Path, x.ETag, strconv.FormatInt(x.Size, 10), x.SHA256)
	}
	return lengthDelimited(parts...)
}

// Generation is one exact observed source generation: schema, state,
// content digest and the sorted all-pool copy set.
type Generation struct {
	SourceSchema  string `json:"source_schema"`
	SourceState   string `json:"source_state"`
	ContentSHA256 string `json:"content_sha256"`
	CopySetSHA256 string `json:"copy_set_sha256"`
	Copies        []Copy `json:"copies"`
}

// NewGeneration builds a generation from copies (sorted here).
func NewGeneration(schema, state, contentSHA256 string, copies []Copy) Generation {
	c := append([]Copy(nil), copies...)
	SortCopies(c)
	return Generation{SourceSchema: schema, SourceState: state, ContentSHA256: contentSHA256, CopySetSHA256: CopySetSHA256(c), Copies: c}
}

// Digest identifies the generation (the retry multiplier's seed).
func (g Generation) Digest() string {
	return lengthDelimited("generation", g.SourceSchema, g.SourceState, g.ContentSHA256, g.CopySetSHA256)
}

// Equal reports whether g and o are the same exact generation.
func (g Generation) Equal(o Generation) bool { return g.Digest() == o.Digest() }

// OperatorDisposition is what a completed operator disposition records on
// its control.
type OperatorDisposition struct {
	DispositionID       string   `json:"disposition_id"`
	Actor               string   `json:"actor"`
	ReasonCode          string   `json:"reason_code"`
	ConfirmedAtUnixNano int64    `json:"confirmed_at_unix_nanos"`
	ExportSHA256        string   `json:"export_sha256"`
	SourceETags         []string `json:"source_etags"`
	ControlETag         string   `json:"control_etag"`
}

// Control is one rustfs-ilm-recovery-control-v1 record
// (docs/design/recovery.md#control-record). The first group is immutable
// after creation.
type Control struct {
	ID                   string         `json:"control_id"`
	Protocol             Protocol       `json:"protocol"`
	SourcePath           string         `json:"source_path"`
	StableIdentity       string         `json:"stable_identity"`
	RecordClass          string         `json:"record_class"`
	FirstSeenAtUnixNanos int64          `json:"first_seen_at_unix_nanos"`
	Observed             Generation     `json:"observed_source_generation"`
	Revision             uint64         `json:"revision"`
	Classification       Classification `json:"classification"`
	// Owner lease, set while an (operator-requested) attempt is owned.
	OwnerID                  string `json:"owner_id"`
	OwnerEpoch               string `json:"owner_epoch"`
	LeaseAcquiredAtUnixNanos int64  `json:"lease_acquired_at_unix_nanos"`
	LeaseExpiresAtUnixNanos  int64  `json:"lease_expires_at_unix_nanos"`
	// Counters: AttemptCount is lifetime and never decreases.
	AttemptCount            uint64               `json:"attempt_count"`
	ConsecutiveFailureCount uint64               `json:"consecutive_failure_count"`
	FirstFailureAtUnixNanos int64                `json:"first_failure_at_unix_nanos"`
	LastFailureAtUnixNanos  int64                `json:"last_failure_at_unix_nanos"`
	NextAttemptAtUnixNanos  int64                `json:"next_attempt_at_unix_nanos"`
	LastErrorCode           ErrorCode            `json:"last_error_code"`
	Disposition             *OperatorDisposition `json:"disposition"`
}

// Key is the control's canonical key.
func (c *Control) Key() string { return ControlKey(c.Protocol, c.ID) }

func encodeCopies(copies []Copy) []byte {
	b := []byte{'['}
	for i, x := range copies {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, envelope.NewObj().Str("pool", x.Pool).Str("path", x.Path).Str("etag", x.ETag).
			Int("size", x.Size).Str("sha256", x.SHA256).Bytes()...)
	}
	return append(b, ']')
}

func encodeGeneration(g Generation) []byte {
	return envelope.NewObj().Str("source_schema", g.SourceSchema).Str("source_state", g.SourceState).
		Str("content_sha256", g.ContentSHA256).Str("copy_set_sha256", g.CopySetSHA256).
		Raw("copies", encodeCopies(g.Copies)).Bytes()
}

// EncodeInner is the canonical inner object; Encode seals it.
func (c *Control) EncodeInner() []byte {
	o := envelope.NewObj().Str("control_id", c.ID).Str("protocol", string(c.Protocol)).
		Str("source_path", c.SourcePath).Str("stable_identity", c.StableIdentity).Str("record_class", c.RecordClass).
		Int("first_seen_at_unix_nanos", c.FirstSeenAtUnixNanos).
		Raw("observed_source_generation", encodeGeneration(c.Observed)).
		Uint("revision", c.Revision).Str("classification", string(c.Classification)).
		Str("owner_id", c.OwnerID).Str("owner_epoch", c.OwnerEpoch).
		Int("lease_acquired_at_unix_nanos", c.LeaseAcquiredAtUnixNanos).Int("lease_expires_at_unix_nanos", c.LeaseExpiresAtUnixNanos).
		Uint("attempt_count", c.AttemptCount).Uint("consecutive_failure_count", c.ConsecutiveFailureCount).
		Int("first_failure_at_unix_nanos", c.FirstFailureAtUnixNanos).Int("last_failure_at_unix_nanos", c.LastFailureAtUnixNanos).
		Int("next_attempt_at_unix_nanos", c.NextAttemptAtUnixNanos).Str("last_error_code", string(c.LastErrorCode))
	if d := c.Disposition; d != nil {
		o.Raw("disposition", envelope.NewObj().Str("disposition_id", d.DispositionID).Str("actor", d.Actor).
			Str("reason_code", d.ReasonCode).Int("confirmed_at_unix_nanos", d.ConfirmedAtUnixNano).
			Str("export_sha256", d.ExportSHA256).Strings("source_etags", d.SourceETags).Str("control_etag", d.ControlETag).Bytes())
	} else {
		o.Null("disposition")
	}
	return o.Bytes()
}

// Encode seals the control in its checksum envelope.
func (c *Control) Encode() []byte { return envelope.Seal(ControlSchema, "control", c.EncodeInner()) }

func cerr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(protoControl, field, sentinel, format, args...)
}

func decodeCopies(proto string, o *envelope.Object, key string) ([]Copy, error) {
	raw := o.Raw(key)
	if raw == nil {
		return nil, envelope.Errf(proto, key, envelope.ErrMissingField, "")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || raw[0] != '[' {
		return nil, envelope.Errf(proto, key, envelope.ErrWrongType, "want an array of copies")
	}
	out := make([]Copy, 0, len(items))
	for _, it := range items {
		co, err := envelope.ParseObject(proto, it)
		if err != nil {
			return nil, err
		}
		if err := co.Allow("pool", "path", "etag", "size", "sha256"); err != nil {
			return nil, err
		}
		var c Copy
		if c.Pool, err = co.String("pool"); err != nil {
			return nil, err
		}
		if c.Path, err = co.String("path"); err != nil {
			return nil, err
		}
		if c.ETag, err = co.String("etag"); err != nil {
			return nil, err
		}
		if c.Size, err = co.Int("size"); err != nil {
			return nil, err
		}
		if c.SHA256, err = co.String("sha256"); err != nil {
			return nil, err
		}
		if c.Size < 0 || c.ETag == "" || !envelope.IsSHA256Hex(c.SHA256) {
			return nil, envelope.Errf(proto, key, envelope.ErrIdentity, "copy needs an ETag, a size and a SHA-256")
		}
		out = append(out, c)
	}
	sorted := append([]Copy(nil), out...)
	SortCopies(sorted)
	for i := range out {
		if out[i] != sorted[i] || (i > 0 && out[i].Pool == out[i-1].Pool && out[i].Path == out[i-1].Path) {
			return nil, envelope.Errf(proto, key, envelope.ErrIdentity, "copies must be sorted and unique")
		}
	}
	return out, nil
}

func decodeGeneration(o *envelope.Object) (Generation, error) {
	var g Generation
	if err := o.Allow("source_schema", "source_state", "content_sha256", "copy_set_sha256", "copies"); err != nil {
		return g, err
	}
	var err error
	if g.SourceSchema, err = o.String("source_schema"); err != nil {
		return g, err
	}
	if g.SourceState, err = o.String("source_state"); err != nil {
		return g, err
	}
	if g.ContentSHA256, err = o.String("content_sha256"); err != nil {
		return g, err
	}
	if g.CopySetSHA256, err = o.String("copy_set_sha256"); err != nil {
		return g, err
	}
	if g.Copies, err = decodeCopies(protoControl, o, "copies"); err != nil {
		return g, err
	}
	if !envelope.IsSHA256Hex(g.ContentSHA256) || CopySetSHA256(g.Copies) != g.CopySetSHA256 {
		return g, cerr("observed_source_generation", envelope.ErrIdentity, "copy_set_sha256 does not match the copies")
	}
	return g, nil
}

// DecodeControl strictly decodes a control stored at key: unknown fields,
// a bad checksum, an unknown classification or error code, an identity
// that does not hash to its ID, or a key that is not the canonical one are
// all errors.
func DecodeControl(key string, data []byte) (*Control, error) {
	env, err := envelope.Open(protoControl, data, ControlSchema, "control", MaxControlSize)
	if err != nil {
		return nil, err
	}
	o := env.Inner
	if err := o.Allow("control_id", "protocol", "source_path", "stable_identity", "record_class", "first_seen_at_unix_nanos",
		"observed_source_generation", "revision", "classification", "owner_id", "owner_epoch",
		"lease_acquired_at_unix_nanos", "lease_expires_at_unix_nanos", "attempt_count", "consecutive_failure_count",
		"first_failure_at_unix_nanos", "last_failure_at_unix_nanos", "next_attempt_at_unix_nanos", "last_error_code", "disposition"); err != nil {
		return nil, err
	}
	c := &Control{}
	str := func(k string, dst *string) {
		if err == nil {
			*dst, err = o.String(k)
		}
	}
	i64 := func(k string, dst *int64) {
		if err == nil {
			*dst, err = o.Int(k)
		}
	}
	u64 := func(k string, dst *uint64) {
		if err == nil {
			*dst, err = o.Uint(k, math.MaxUint64)
		}
	}
	var proto, class, code string
	str("control_id", &c.ID)
	str("protocol", &proto)
	str("source_path", &c.SourcePath)
	str("stable_identity", &c.StableIdentity)
	str("record_class", &c.RecordClass)
	i64("first_seen_at_unix_nanos", &c.FirstSeenAtUnixNanos)
	u64("revision", &c.Revision)
	str("classification", &class)
	str("owner_id", &c.OwnerID)
	str("owner_epoch", &c.OwnerEpoch)
	i64("lease_acquired_at_unix_nanos", &c.LeaseAcquiredAtUnixNanos)
	i64("lease_expires_at_unix_nanos", &c.LeaseExpiresAtUnixNanos)
	u64("attempt_count", &c.AttemptCount)
	u64("consecutive_failure_count", &c.ConsecutiveFailureCount)
	i64("first_failure_at_unix_nanos", &c.FirstFailureAtUnixNanos)
	i64("last_failure_at_unix_nanos", &c.LastFailureAtUnixNanos)
	i64("next_attempt_at_unix_nanos", &c.NextAttemptAtUnixNanos)
	str("last_error_code", &code)
	if err != nil {
		return nil, err
	}
	if c.Protocol, err = ParseProtocol(proto); err != nil {
		return nil, cerr("protocol", envelope.ErrIdentity, "%v", err)
	}
	if c.Classification, err = ParseClassification(class); err != nil {
		return nil, cerr("classification", envelope.ErrIllegalState, "%v", err)
	}
	if c.LastErrorCode = ErrorCode(code); !c.LastErrorCode.Valid() {
		return nil, cerr("last_error_code", envelope.ErrIllegalState, "unknown error code %q", code)
	}
	gen, err := o.Object("observed_source_generation")
	if err != nil {
		return nil, err
	}
	if c.Observed, err = decodeGeneration(gen); err != nil {
		return nil, err
	}
	if !o.Has("disposition") {
		return nil, cerr("disposition", envelope.ErrMissingField, "")
	}
	if !o.IsNull("disposition") {
		d, err := o.Object("disposition")
		if err != nil {
			return nil, err
		}
		if err := d.Allow("disposition_id", "actor", "reason_code", "confirmed_at_unix_nanos", "export_sha256", "source_etags", "control_etag"); err != nil {
			return nil, err
		}
		od := &OperatorDisposition{}
		if od.DispositionID, err = d.String("disposition_id"); err != nil {
			return nil, err
		}
		if od.Actor, err = d.String("actor"); err != nil {
			return nil, err
		}
		if od.ReasonCode, err = d.String("reason_code"); err != nil {
			return nil, err
		}
		if od.ConfirmedAtUnixNano, err = d.Int("confirmed_at_unix_nanos"); err != nil {
			return nil, err
		}
		if od.ExportSHA256, err = d.String("export_sha256"); err != nil {
			return nil, err
		}
		if od.SourceETags, err = d.StringArray("source_etags"); err != nil {
			return nil, err
		}
		if od.ControlETag, err = d.String("control_etag"); err != nil {
			return nil, err
		}
		c.Disposition = od
	}
	if err := env.Verify(protoControl, c.EncodeInner()); err != nil {
		return nil, err
	}
	if c.Revision == 0 {
		return nil, cerr("revision", envelope.ErrIllegalRevision, "revision starts at 1")
	}
	if ControlID(c.Protocol, c.SourcePath, c.StableIdentity) != c.ID {
		return nil, cerr("control_id", envelope.ErrIdentity, "control_id is not the digest of protocol, source path and identity")
	}
	if key != c.Key() {
		return nil, cerr("", envelope.ErrPath, "%q is not the canonical key %q", key, c.Key())
	}
	if (c.Classification == Abandoned) != (c.Disposition != nil) {
		return nil, cerr("disposition", envelope.ErrIdentity, "a disposition is recorded exactly when the control is abandoned")
	}
	return c, nil
}
