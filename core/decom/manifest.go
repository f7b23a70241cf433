package decom

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// ManifestSchema is the expected-receipt manifest schema.
const ManifestSchema = "v1"

// MaxManifestSize is the encoded expected-receipt manifest bound, bytes
// (DECOMMISSION_DURABLE_ILM_MANIFEST_MAX_SIZE).
const MaxManifestSize = 4 << 10

// Key roots in the metadata bucket.
const (
	ReceiptRoot  = "decommission/ilm-receipts/"
	ManifestRoot = "decommission/ilm-manifests/"
)

const protoManifest = "decommission_manifest"

// Manifest is the expected-receipt manifest a decommission run writes on
// its source pool: the count and digest of the exact set of receipt paths
// the run must find on its targets (docs/design/decommission.md#manifest).
type Manifest struct {
	Schema             string
	RunToken           string
	ReceiptCount       uint64
	ReceiptPathsSHA256 string
}

// RunToken is the decommission run identity: lowercase hex SHA-256 of the
// pool's command line, a NUL byte, and the decommission start time as
// decimal Unix nanoseconds (decommission_durable_ilm_receipt_run_token in
// RustFS's crates/ecstore/src/core/pools.rs). A resumed run keeps both and
// so finds its receipts again.
func RunToken(cmdLine string, startUnixNanos int64) string {
	return envelope.SHA256Hex([]byte(cmdLine + "\x00" + strconv.FormatInt(startUnixNanos, 10)))
}

// ValidRunToken reports whether s is a run token: 64 lowercase hex digits.
func ValidRunToken(s string) bool { return envelope.IsSHA256Hex(s) }

// ManifestKey is decommission/ilm-manifests/<run-token>.json.
func ManifestKey(runToken string) string { return ManifestRoot + runToken + ".json" }

// ReceiptPrefix is decommission/ilm-receipts/<run-token>/, under which every
// receipt of the run lives.
func ReceiptPrefix(runToken string) string { return ReceiptRoot + runToken + "/" }

// ReceiptPathsSHA256 is the manifest digest: SHA-256 of the JSON array of
// the receipt paths sorted bytewise (serde_json of a Vec<&str>).
func ReceiptPathsSHA256(paths []string) string {
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted)
	b := []byte{'['}
	for i, p := range sorted {
		if i > 0 {
			b = append(b, ',')
		}
		b = envelope.AppendString(b, p)
	}
	return envelope.SHA256Hex(append(b, ']'))
}

// NewManifest builds the manifest for a run and its receipt paths.
func NewManifest(runToken string, paths []string) *Manifest {
	return &Manifest{Schema: ManifestSchema, RunToken: runToken, ReceiptCount: uint64(len(paths)), ReceiptPathsSHA256: ReceiptPathsSHA256(paths)}
}

// Encode writes the manifest in RustFS field order.
func (m *Manifest) Encode() []byte {
	return envelope.NewObj().Str("schema", m.Schema).Str("run_token", m.RunToken).
		Uint("receipt_count", m.ReceiptCount).Str("receipt_paths_sha256", m.ReceiptPathsSHA256).Bytes()
}

// DecodeManifest strictly decodes an expected-receipt manifest on its own:
// at most MaxManifestSize bytes, exactly the four members, schema "v1"
// (else envelope.ErrSchema), a run-token and a digest that are SHA-256 hex.
// It does not compare the manifest with any receipt set; Check does.
func DecodeManifest(data []byte) (*Manifest, error) {
	if len(data) > MaxManifestSize {
		return nil, envelope.Errf(protoManifest, "", envelope.ErrTooLarge, "%d bytes > %d", len(data), MaxManifestSize)
	}
	o, err := envelope.ParseObject(protoManifest, data)
	if err != nil {
		return nil, err
	}
	if err := o.Allow("schema", "run_token", "receipt_count", "receipt_paths_sha256"); err != nil {
		return nil, err
	}
	m := &Manifest{}
	if m.Schema, err = o.String("schema"); err != nil {
		return nil, err
	}
	if m.Schema != ManifestSchema {
		return nil, envelope.Errf(protoManifest, "schema", envelope.ErrSchema, "got %q, want %q", m.Schema, ManifestSchema)
	}
	if m.RunToken, err = o.String("run_token"); err != nil {
		return nil, err
	}
	if !ValidRunToken(m.RunToken) {
		return nil, envelope.Errf(protoManifest, "run_token", envelope.ErrIdentity, "want 64 lowercase hex digits")
	}
	if m.ReceiptCount, err = o.Uint("receipt_count", 1<<64-1); err != nil {
		return nil, err
	}
	if m.ReceiptPathsSHA256, err = o.String("receipt_paths_sha256"); err != nil {
		return nil, err
	}
	if !envelope.IsSHA256Hex(m.ReceiptPathsSHA256) {
		return nil, envelope.Errf(protoManifest, "receipt_paths_sha256", envelope.ErrChecksum, "want 64 lowercase hex digits")
	}
	return m, nil
}

// Manifest mismatches, matched with errors.Is.
var (
	ErrManifestRunToken = fmt.Errorf("expected-receipt manifest belongs to another run")
	ErrManifestCount    = fmt.Errorf("expected-receipt manifest count does not match the receipts")
	ErrManifestDigest   = fmt.Errorf("expected-receipt manifest digest does not match the receipt paths")
)

// Check compares the manifest with a run token and the receipt paths found
// for it.
func (m *Manifest) Check(runToken string, paths []string) error {
	if m.RunToken != runToken {
		return fmt.Errorf("%w: manifest names run %s", ErrManifestRunToken, m.RunToken)
	}
	if m.ReceiptCount != uint64(len(paths)) {
		return fmt.Errorf("%w: manifest expects %d, found %d", ErrManifestCount, m.ReceiptCount, len(paths))
	}
	if got := ReceiptPathsSHA256(paths); got != m.ReceiptPathsSHA256 {
		return fmt.Errorf("%w: manifest %s…, receipts %s…", ErrManifestDigest, m.ReceiptPathsSHA256[:12], got[:12])
	}
	return nil
}

// Locator is a parsed receipt key.
type Locator struct {
	RunToken   string
	SourcePath string
	IDKind     string
	ID         string
}

// ParseReceiptKey splits decommission/ilm-receipts/<run>/<source path>/<id
// kind>/<id>.json as RustFS does (the source path may contain slashes; the
// id kind and id are the last two components) and validates each part:
// run token and operation_id are SHA-256 hex, transaction_id and job_id
// UUIDs, and the source path lies in a registered durable namespace.
// Errors wrap envelope.ErrPath or ilmpath.ErrUnregistered.
func ParseReceiptKey(key string) (Locator, error) {
	bad := func(why string) (Locator, error) {
		return Locator{}, envelope.Errf("receipt_path", "", envelope.ErrPath, "%q: %s", key, why)
	}
	rest, ok := strings.CutPrefix(key, ReceiptRoot)
	if !ok {
		return bad("not under " + ReceiptRoot)
	}
	run, record, ok := strings.Cut(rest, "/")
	if !ok {
		return bad("missing the record path")
	}
	if !ValidRunToken(run) {
		return bad("run token is not 64 lowercase hex digits")
	}
	i := strings.LastIndex(record, "/")
	if i < 0 {
		return bad("missing the id kind")
	}
	id, ok := strings.CutSuffix(record[i+1:], ".json")
	if !ok || id == "" {
		return bad("missing the record id")
	}
	j := strings.LastIndex(record[:i], "/")
	if j <= 0 {
		return bad("missing the source path")
	}
	loc := Locator{RunToken: run, SourcePath: record[:j], IDKind: record[j+1 : i], ID: id}
	switch loc.IDKind {
	case "operation_id":
		if !envelope.IsSHA256Hex(id) {
			return bad("operation_id is not a SHA-256 digest")
		}
	case "transaction_id", "job_id":
		if !validUUIDText(id) {
			return bad(loc.IDKind + " is not a UUID")
		}
	default:
		return bad(fmt.Sprintf("unknown id kind %q", loc.IDKind))
	}
	if _, err := ilmpath.Lookup(loc.SourcePath); err != nil {
		return Locator{}, fmt.Errorf("receipt %q: %w", key, err)
	}
	return loc, nil
}

// validUUIDText accepts the UUID spellings RustFS's receipt ids use: the
// lowercase hyphenated form, or 32 lowercase hex digits.
func validUUIDText(s string) bool {
	return envelope.IsCanonicalUUID(s) || len(s) == 32 && envelope.IsCanonicalUUID(ilmpath.Hyphenate(s))
}
