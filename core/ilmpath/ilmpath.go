// Package ilmpath computes and validates the canonical keys of RustFS's
// durable ILM records and holds the durable namespace registry
// (docs/design/ilm-records.md#paths-and-digests).
//
// Validation is exact: a key must equal the lowercase canonical form,
// character for character. Uppercase aliases, wrong shard directories and
// extra or missing components are rejected with envelope.ErrPath, which
// closes the path gaps RustFS documents for its own runtime parsers
// (transition final-component parsing, manual-job uppercase alias).
// Any key under "ilm/" outside the registry is ErrUnregistered.
package ilmpath

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
)

// Root is the prefix every durable ILM key lives under in the internal
// metadata bucket.
const Root = "ilm/"

// Kind names a record family. Its string is the stable protocol-specific
// kind shown by `ilmctl journal` (snake_case).
type Kind string

// Record kinds. The first group are RustFS's; the recovery artifacts are
// ilmctl's own, registered here (so they are not "unknown") and decoded by
// core/recovery, which core/journal and core/decom are handed as a
// decoder.
const (
	KindTierDeleteJournal   Kind = "tier_delete_journal"    // v1–v5 under ilm/tier-delete-journal/
	KindTierDeleteJournalV6 Kind = "tier_delete_journal_v6" // v6 under ilm/tier-delete-journal-v6/<op>/
	KindDispatchRoot        Kind = "tier_delete_manifest"   // root: single manifest or chunk parent
	KindDispatchChunk       Kind = "tier_delete_manifest_chunk"
	KindTransition          Kind = "transition_transaction"
	KindProbeIntent         Kind = "tier_probe_intent"
	KindManualJob           Kind = "manual_transition_job"
	KindManualScope         Kind = "manual_transition_scope"
	KindManualTask          Kind = "manual_transition_task"
	KindManualResult        Kind = "manual_transition_worker_result"
	KindRecoveryControl     Kind = "recovery_control"
	KindRecoveryExport      Kind = "recovery_export"
	KindRecoveryDisposition Kind = "recovery_disposition"
)

// Namespace is one registered durable ILM namespace.
type Namespace struct {
	Name      string // RustFS's registry name, e.g. "tier-delete-journal"
	Prefix    string // key prefix, e.g. "ilm/tier-delete-journal/"
	MaxSize   int    // largest accepted encoded record, bytes
	Supported bool   // ilmctl decodes this family
}

// Size bounds, bytes, from RustFS's durable_namespace.rs and the codecs.
const (
	MaxJournalSize      = 64 << 10
	MaxManifestSize     = 32 << 20
	MaxTransitionSize   = 64 << 10
	MaxProbeIntentSize  = 64 << 10 // assumption: RustFS constant not verified; its contracts document gives none
	MaxManualJobSize    = 64 << 10
	MaxManualTaskSize   = 16 << 10
	MaxManualResultSize = 8 << 10
	MaxRecoverySize     = 16 << 10 // recovery control/disposition bound (docs/design/ilm-records.md#inventory)
	MaxReceiptSize      = 16 << 10
	MaxManifestJournals = 200_000
)

// Registry is every durable ILM namespace, in RustFS's registration order.
// Prefixes for probe intents and recovery artifacts follow the key table of
// RustFS's persistence-contracts document (docs/design/ilm-records.md#inventory);
// the exact RustFS constants were not verified.
var Registry = []Namespace{
	{"tier-delete-journal", "ilm/tier-delete-journal/", MaxJournalSize, true},
	{"tier-delete-journal-v6", "ilm/tier-delete-journal-v6/", MaxJournalSize, true},
	{"tier-delete-dispatch-manifest", "ilm/tier-delete-dispatch-manifests/", MaxManifestSize, true},
	{"transition-transaction", "ilm/transition-transactions/records/", MaxTransitionSize, true},
	{"tier-probe-intent", "ilm/tier-probe-intents/records/", MaxProbeIntentSize, false},
	{"manual-transition-job", "ilm/manual-transition/jobs/", MaxManualJobSize, true},
	{"manual-transition-scope", "ilm/manual-transition/scopes/", MaxManualJobSize, true},
	{"manual-transition-task", "ilm/manual-transition/tasks/", MaxManualTaskSize, true},
	{"manual-transition-worker-result", "ilm/manual-transition/results/", MaxManualResultSize, true},
	{"recovery-control", "ilm/recovery-controls/", MaxRecoverySize, false},
	{"recovery-export", "ilm/recovery-exports/", MaxRecoverySize + (64 << 10) + MaxManifestSize, false},
	{"recovery-disposition", "ilm/recovery-dispositions/", MaxRecoverySize, false},
}

// ErrUnregistered is a key under ilm/ that no registered namespace covers;
// it blocks rather than being ignored
// (docs/design/ilm-records.md#paths-and-digests).
var ErrUnregistered = errors.New("path under ilm/ is not in the durable namespace registry")

// ErrNotILM is a key outside ilm/.
var ErrNotILM = errors.New("path is not under ilm/")

// Lookup returns the namespace whose prefix covers key.
func Lookup(key string) (Namespace, error) {
	if !strings.HasPrefix(key, Root) {
		return Namespace{}, fmt.Errorf("%q: %w", key, ErrNotILM)
	}
	for _, ns := range Registry {
		if strings.HasPrefix(key, ns.Prefix) {
			return ns, nil
		}
	}
	return Namespace{}, fmt.Errorf("%q: %w", key, ErrUnregistered)
}

// Location is a parsed canonical key.
type Location struct {
	Key       string
	Namespace Namespace
	Kind      Kind
	// Identity components, lowercase as in the key; empty when not part of
	// this kind's key.
	Digest    string // 64-hex identity/scope/task digest
	Operation string // 32-hex operation id (v6 journals, chunk children)
	ID        string // 32-hex transaction/job/probe id
}

func pathErr(key, why string) error {
	return envelope.Errf("path", "", envelope.ErrPath, "%q: %s", key, why)
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isHexAnyCase(s string, n int) bool { return isLowerHex(strings.ToLower(s), n) }

// hexComponent checks one key component that must be n lowercase hex
// digits plus suffix, naming uppercase aliases explicitly.
func hexComponent(key, comp string, n int, suffix string) (string, error) {
	body, ok := strings.CutSuffix(comp, suffix)
	if !ok {
		return "", pathErr(key, fmt.Sprintf("component %q must end in %q", comp, suffix))
	}
	if isLowerHex(body, n) {
		return body, nil
	}
	if isHexAnyCase(body, n) {
		return "", pathErr(key, "uppercase alias of a canonical lowercase key")
	}
	return "", pathErr(key, fmt.Sprintf("component %q is not %d lowercase hex digits", body, n))
}

// sharded parses "<aa>/<bb>/<id>.json" (plus optional trailing parts)
// requiring aa and bb to be the first four characters of id.
func sharded(key string, parts []string, idLen int) (string, error) {
	if len(parts) != 3 {
		return "", pathErr(key, fmt.Sprintf("want <aa>/<bb>/<id>.json, got %d components", len(parts)))
	}
	id, err := hexComponent(key, parts[2], idLen, ".json")
	if err != nil {
		return "", err
	}
	if parts[0] != id[:2] || parts[1] != id[2:4] {
		if strings.ToLower(parts[0]) == id[:2] && strings.ToLower(parts[1]) == id[2:4] {
			return "", pathErr(key, "uppercase alias of a canonical lowercase key")
		}
		return "", pathErr(key, "shard directories do not match the record id")
	}
	return id, nil
}

// Parse validates key as the exact canonical key of a registered record
// and returns its components. Errors wrap ErrNotILM, ErrUnregistered or
// envelope.ErrPath.
func Parse(key string) (Location, error) {
	ns, err := Lookup(key)
	if err != nil {
		return Location{}, err
	}
	loc := Location{Key: key, Namespace: ns}
	rest := strings.TrimPrefix(key, ns.Prefix)
	parts := strings.Split(rest, "/")
	switch ns.Name {
	case "tier-delete-journal":
		loc.Kind = KindTierDeleteJournal
		if len(parts) != 1 {
			return loc, pathErr(key, "extra path components")
		}
		loc.Digest, err = hexComponent(key, parts[0], 64, ".json")
	case "tier-delete-journal-v6":
		loc.Kind = KindTierDeleteJournalV6
		if len(parts) != 2 {
			return loc, pathErr(key, "want <operation>/<digest>.json")
		}
		if loc.Operation, err = hexComponent(key, parts[0], 32, ""); err == nil {
			loc.Digest, err = hexComponent(key, parts[1], 64, ".json")
		}
	case "tier-delete-dispatch-manifest":
		switch {
		case len(parts) == 1:
			loc.Kind = KindDispatchRoot
			loc.Digest, err = hexComponent(key, parts[0], 64, ".json")
		case len(parts) == 3 && parts[0] == "chunks":
			loc.Kind = KindDispatchChunk
			if loc.Digest, err = hexComponent(key, parts[1], 64, ""); err == nil {
				loc.Operation, err = hexComponent(key, parts[2], 32, ".json")
			}
		default:
			return loc, pathErr(key, "want <scope>.json or chunks/<scope>/<operation>.json")
		}
	case "transition-transaction":
		loc.Kind = KindTransition
		loc.ID, err = sharded(key, parts, 32)
	case "tier-probe-intent":
		loc.Kind = KindProbeIntent
		loc.ID, err = sharded(key, parts, 32)
	case "manual-transition-job":
		loc.Kind = KindManualJob
		loc.ID, err = sharded(key, parts, 32)
	case "manual-transition-scope":
		loc.Kind = KindManualScope
		loc.Digest, err = sharded(key, parts, 64)
	case "manual-transition-task", "manual-transition-worker-result":
		loc.Kind = KindManualTask
		if ns.Name == "manual-transition-worker-result" {
			loc.Kind = KindManualResult
		}
		if len(parts) != 4 {
			return loc, pathErr(key, "want <aa>/<bb>/<job>/<task-key>.json")
		}
		if loc.ID, err = sharded(key, []string{parts[0], parts[1], parts[2] + ".json"}, 32); err == nil {
			loc.Digest, err = hexComponent(key, parts[3], 64, ".json")
		}
	case "recovery-control":
		loc.Kind = KindRecoveryControl
	case "recovery-export":
		loc.Kind = KindRecoveryExport
	case "recovery-disposition":
		loc.Kind = KindRecoveryDisposition
	}
	return loc, err
}

// Simple renders a canonical hyphenated UUID as 32 lowercase hex digits
// (uuid's .simple()).
func Simple(uuid string) string { return strings.ReplaceAll(uuid, "-", "") }

// Hyphenate turns 32 hex digits into a canonical hyphenated UUID.
func Hyphenate(simple string) string {
	if len(simple) != 32 {
		return simple
	}
	return simple[:8] + "-" + simple[8:12] + "-" + simple[12:16] + "-" + simple[16:20] + "-" + simple[20:]
}

func uuidBytes(uuid string) []byte {
	b, _ := hex.DecodeString(Simple(uuid))
	return b
}

// JournalIdentity is the input of the tier-delete journal identity digest
// (RustFS tier_delete_journal_identity_digest). Source fields nil/"" are
// hashed as empty, matching unwrap_or_default.
type JournalIdentity struct {
	TierName        string
	ObjName         string
	VersionID       string
	BackendIdentity *[32]byte
	VersionIDExact  bool
	Source          *SourceDigestInput
}

// SourceDigestInput is the part of a v5/v6 source identity the digest binds.
type SourceDigestInput struct {
	Bucket, Object                    string
	VersionID, DataDir, ETag, ModTime *string
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// JournalIdentityDigest is lowercase hex SHA-256 of tier, NUL, object,
// NUL, version id, then optional NUL+backend identity, NUL+
// "exact-version-id", and NUL-separated source bucket/object/version/
// data_dir/etag/mod_time. The v6 dispatch binding is not hashed.
func JournalIdentityDigest(id JournalIdentity) string {
	h := sha256.New()
	h.Write([]byte(id.TierName))
	h.Write([]byte{0})
	h.Write([]byte(id.ObjName))
	h.Write([]byte{0})
	h.Write([]byte(id.VersionID))
	if id.BackendIdentity != nil {
		h.Write([]byte{0})
		h.Write(id.BackendIdentity[:])
	}
	if id.VersionIDExact {
		h.Write([]byte{0})
		h.Write([]byte("exact-version-id"))
	}
	if s := id.Source; s != nil {
		for _, part := range []string{s.Bucket, s.Object, deref(s.VersionID), deref(s.DataDir), deref(s.ETag), deref(s.ModTime)} {
			h.Write([]byte{0})
			h.Write([]byte(part))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// JournalKey is the canonical key for a journal: legacy
// ilm/tier-delete-journal/<digest>.json, or for v6 (operationID non-empty,
// hyphenated UUID) ilm/tier-delete-journal-v6/<operation simple>/<digest>.json.
func JournalKey(digest, operationID string) string {
	if operationID != "" {
		return "ilm/tier-delete-journal-v6/" + Simple(operationID) + "/" + digest + ".json"
	}
	return "ilm/tier-delete-journal/" + digest + ".json"
}

// ManifestScopeDigest is SHA-256 of bucket, NUL, the 16 raw bytes of the
// bucket incarnation UUID, NUL, prefix.
func ManifestScopeDigest(bucket, incarnation, prefix string) string {
	h := sha256.New()
	h.Write([]byte(bucket))
	h.Write([]byte{0})
	h.Write(uuidBytes(incarnation))
	h.Write([]byte{0})
	h.Write([]byte(prefix))
	return hex.EncodeToString(h.Sum(nil))
}

// ManifestRootKey is ilm/tier-delete-dispatch-manifests/<scope>.json.
func ManifestRootKey(bucket, incarnation, prefix string) string {
	return "ilm/tier-delete-dispatch-manifests/" + ManifestScopeDigest(bucket, incarnation, prefix) + ".json"
}

// ManifestChunkKey is ilm/tier-delete-dispatch-manifests/chunks/<scope>/<operation simple>.json.
func ManifestChunkKey(bucket, incarnation, prefix, operationID string) string {
	return "ilm/tier-delete-dispatch-manifests/chunks/" + ManifestScopeDigest(bucket, incarnation, prefix) + "/" + Simple(operationID) + ".json"
}

// JournalSetSHA256 is SHA-256 over each name as a big-endian u64 byte
// length followed by its bytes, in the given (sorted) order.
func JournalSetSHA256(names []string) string {
	h := sha256.New()
	var n [8]byte
	for _, name := range names {
		binary.BigEndian.PutUint64(n[:], uint64(len(name)))
		h.Write(n[:])
		h.Write([]byte(name))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func shardedKey(prefix, id string) string {
	return prefix + id[:2] + "/" + id[2:4] + "/" + id + ".json"
}

// TransitionKey is ilm/transition-transactions/records/<aa>/<bb>/<id>.json.
func TransitionKey(transactionID string) string {
	return shardedKey("ilm/transition-transactions/records/", Simple(transactionID))
}

// TransitionRemoteObject is the canonical remote candidate name:
// ilm/transition-transactions/<first 16 hex of sha256("<deployment>:<bucket>")>/<aa>/<bb>/<tx>/<write>.
func TransitionRemoteObject(deploymentID, bucket, transactionID, writeID string) string {
	bh := envelope.SHA256Hex([]byte(deploymentID + ":" + bucket))
	tx := Simple(transactionID)
	return "ilm/transition-transactions/" + bh[:16] + "/" + tx[:2] + "/" + tx[2:4] + "/" + tx + "/" + Simple(writeID)
}

// ManualJobKey is ilm/manual-transition/jobs/<aa>/<bb>/<job>.json.
func ManualJobKey(jobID string) string {
	return shardedKey("ilm/manual-transition/jobs/", Simple(jobID))
}

// ManualScopeKey is ilm/manual-transition/scopes/<aa>/<bb>/<scope>.json.
func ManualScopeKey(scopeKey string) string {
	return shardedKey("ilm/manual-transition/scopes/", scopeKey)
}

// ManualScopeDigest is SHA-256 of "<bucket>\0run" or "<bucket>\0dry_run"
// (admission v1 is bucket-level).
func ManualScopeDigest(bucket string, dryRun bool) string {
	mode := "run"
	if dryRun {
		mode = "dry_run"
	}
	return envelope.SHA256Hex([]byte(bucket + "\x00" + mode))
}

// ManualScopeLegacyDigest is the scope key RustFS derived before admission
// became bucket-level: SHA-256 of bucket, prefix, the tier upper-cased in
// ASCII ("" when none) and "run" or "dry_run", separated by NUL bytes.
// RustFS's admission conflict check still honours records under it
// (legacy_manual_transition_scope_key in
// crates/ecstore/src/bucket/lifecycle/manual_transition_job.rs).
func ManualScopeLegacyDigest(bucket, prefix string, tier *string, dryRun bool) string {
	mode := "run"
	if dryRun {
		mode = "dry_run"
	}
	return envelope.SHA256Hex([]byte(bucket + "\x00" + prefix + "\x00" + asciiUpper(deref(tier)) + "\x00" + mode))
}

// asciiUpper upper-cases ASCII letters only, as Rust's
// str::to_ascii_uppercase does; other bytes are kept.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}

// ManualTaskKey is ilm/manual-transition/tasks/<aa>/<bb>/<job>/<task>.json.
func ManualTaskKey(jobID, taskKey string) string {
	j := Simple(jobID)
	return "ilm/manual-transition/tasks/" + j[:2] + "/" + j[2:4] + "/" + j + "/" + taskKey + ".json"
}

// ManualResultKey is ilm/manual-transition/results/<aa>/<bb>/<job>/<task>.json.
func ManualResultKey(jobID, taskKey string) string {
	j := Simple(jobID)
	return "ilm/manual-transition/results/" + j[:2] + "/" + j[2:4] + "/" + j + "/" + taskKey + ".json"
}

// ManualTaskDigest is the task key: SHA-256 over length-prefixed
// ("<decimal len>:<bytes>") bucket, object and version id ("" when none).
func ManualTaskDigest(bucket, object, versionID string) string {
	var b []byte
	for _, p := range []string{bucket, object, versionID} {
		b = strconv.AppendInt(b, int64(len(p)), 10)
		b = append(b, ':')
		b = append(b, p...)
	}
	return envelope.SHA256Hex(b)
}

// ReceiptKey is decommission/ilm-receipts/<run>/<source path>/<id kind>/<id>.json.
func ReceiptKey(runToken, sourcePath, idKind, id string) string {
	return "decommission/ilm-receipts/" + runToken + "/" + sourcePath + "/" + idKind + "/" + id + ".json"
}
