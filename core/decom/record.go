package decom

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// ErrUnsupportedRecord is a registered durable namespace ilmctl does not
// decode (tier probe intents; recovery artifacts when Verify is given no
// decoder for them, see VerifyOptions). It blocks completion:
// ilmctl cannot prove a receipt covers it.
var ErrUnsupportedRecord = errors.New("durable ILM record family not decoded by ilmctl")

// ErrCheckpointNotDerivable is a record that decodes but whose checkpoint
// ilmctl cannot derive (a manual job whose run report has no bucket, a
// mistyped member or an undecodable continuation token). It blocks
// completion like an uncovered record.
var ErrCheckpointNotDerivable = errors.New("checkpoint not derivable from the record")

// Validated is a live durable ILM record reduced to what a receipt binds:
// validate_durable_ilm_record in RustFS's durable_namespace.rs.
type Validated struct {
	Path       string
	Namespace  string
	IDKind     string
	ID         string
	Checkpoint *Checkpoint
}

// ReceiptKey is the key of the receipt that must cover this record in run
// runToken.
func (v *Validated) ReceiptKey(runToken string) string {
	return ilmpath.ReceiptKey(runToken, v.Path, v.IDKind, v.ID)
}

// RecordCheckpoint validates the record stored at key and derives its
// receipt identity and checkpoint exactly as a decommission coordinator
// would: canonical path, size bound, strict decode with the record's own
// codec, content digest of the stored bytes, identity digest of its
// immutable members, and its mutable checkpoint members.
// Errors: ilmpath.ErrUnregistered for an unregistered ilm/ path,
// ErrUnsupportedRecord, ErrCheckpointNotDerivable, or the codec's
// *envelope.DecodeError.
func RecordCheckpoint(key string, data []byte) (*Validated, error) {
	loc, err := ilmpath.Parse(key)
	if err != nil {
		return nil, err
	}
	if len(data) > loc.Namespace.MaxSize {
		return nil, envelope.Errf(string(loc.Kind), "", envelope.ErrTooLarge, "%d bytes > %d", len(data), loc.Namespace.MaxSize)
	}
	v := &Validated{Path: key, Namespace: loc.Namespace.Name}
	c := &Checkpoint{ContentSHA256: envelope.SHA256Hex(data)}
	switch loc.Kind {
	case ilmpath.KindTierDeleteJournal, ilmpath.KindTierDeleteJournalV6:
		j, err := tierdelete.DecodeJournal(data)
		if err != nil {
			return nil, err
		}
		if err := j.CheckPath(key); err != nil {
			return nil, err
		}
		v.IDKind, v.ID = "operation_id", loc.Digest
		if j.Version == 6 {
			v.ID = envelope.SHA256Hex([]byte(key))
		}
		journalCheckpoint(c, j)
	case ilmpath.KindDispatchRoot, ilmpath.KindDispatchChunk:
		if tierdelete.IsChunkParent(data) {
			p, err := tierdelete.DecodeParent(key, data)
			if err != nil {
				return nil, err
			}
			v.IDKind, v.ID = "operation_id", uuidDigest(p.OperationID)
			// The parent's identity digest is not recomputed (its
			// RustFS definition was not available): it is compared by
			// content digest only.
			c.Kind, c.Revision, c.NextChunkSequence = CkParent, p.Revision, p.NextChunkSequence
			c.CompletedJournalCount, c.Completed = p.CompletedJournalCount, p.State == tierdelete.ParentCompleted
			break
		}
		m, err := tierdelete.DecodeManifest(key, data)
		if err != nil {
			return nil, err
		}
		v.IDKind, v.ID = "operation_id", uuidDigest(m.OperationID)
		c.Kind, c.ManifestState = CkManifest, string(m.State)
		c.IdentitySHA256 = envelope.SHA256Hex(tuple(
			uintJSON(uint64(m.Version)), strJSON(m.OperationID), strJSON(m.Bucket), strJSON(m.BucketIncarnation), strJSON(m.Prefix),
			stringsJSON(m.JournalNames), strJSON(m.JournalSetSHA256), uintJSON(m.JournalCount), strJSON(m.TopologyGeneration)))
	case ilmpath.KindTransition:
		t, err := transition.Decode(key, data)
		if err != nil {
			return nil, err
		}
		v.IDKind, v.ID = "transaction_id", t.TransactionID
		transitionCheckpoint(c, t)
	case ilmpath.KindManualJob:
		j, err := manualjob.DecodeJob(key, data)
		if err != nil {
			return nil, err
		}
		v.IDKind, v.ID = "job_id", j.JobID
		if err := jobCheckpoint(c, j); err != nil {
			return nil, err
		}
	case ilmpath.KindManualScope:
		s, err := manualjob.DecodeScope(key, data)
		if err != nil {
			return nil, err
		}
		v.IDKind, v.ID = "job_id", s.JobID
		c.Kind, c.UpdatedAtUnixNanos = CkManualScope, s.UpdatedAtUnixNanos
		c.IdentitySHA256 = envelope.SHA256Hex(tuple(strJSON(s.Schema), strJSON(s.ScopeKey), strJSON(s.JobID),
			strJSON(s.Bucket), strJSON(s.Prefix), optStrJSON(s.Tier), boolJSON(s.DryRun)))
	case ilmpath.KindManualTask:
		t, err := manualjob.DecodeTask(key, data)
		if err != nil {
			return nil, err
		}
		v.IDKind, v.ID, c.Kind = "job_id", t.JobID, CkManualTask
	case ilmpath.KindManualResult:
		r, err := manualjob.DecodeResult(key, data)
		if err != nil {
			return nil, err
		}
		v.IDKind, v.ID, c.Kind = "job_id", r.JobID, CkManualResult
	default:
		return nil, fmt.Errorf("%s (%s): %w", key, loc.Namespace.Name, ErrUnsupportedRecord)
	}
	v.Checkpoint = c
	return v, nil
}

func journalCheckpoint(c *Checkpoint, j *tierdelete.Journal) {
	c.Kind = CkJournal
	backend := []byte("null")
	if j.BackendIdentity != nil {
		backend = bytes32JSON(*j.BackendIdentity)
	}
	source := []byte("null")
	if s := j.Source; s != nil {
		source = envelope.NewObj().Str("bucket", s.Bucket).Str("object", s.Object).OptStr("version_id", s.VersionID).
			Bool("versioned", s.Versioned).Bool("version_suspended", s.VersionSuspended).
			OptStr("data_dir", s.DataDir).OptStr("etag", s.ETag).OptStr("mod_time", s.ModTime).Bytes()
	}
	// The tuple binds the decoded entry: v1/v2 read as version state
	// "unknown", v3 as "exact" with the exact flag set.
	c.IdentitySHA256 = envelope.SHA256Hex(tuple(strJSON(j.ObjName), strJSON(j.VersionID), strJSON(j.TierName), backend,
		boolJSON(j.Exact() || j.Version == 3), strJSON(string(j.EffectiveVersionState())), source))
	c.Committed = j.EffectiveState() == tierdelete.Committed
	if d := j.Dispatch; d != nil && j.Version == 6 {
		dig := envelope.SHA256Hex(envelope.NewObj().Str("operation_id", d.OperationID).Str("manifest_object", d.ManifestObject).
			Str("journal_set_sha256", d.JournalSetSHA256).Str("topology_generation", d.TopologyGeneration).Bytes())
		st := string(j.EffectiveState())
		c.DispatchIdentitySHA256, c.JournalState = &dig, &st
	}
}

func transitionCheckpoint(c *Checkpoint, t *transition.Transaction) {
	c.Kind, c.Revision, c.State = CkTransition, t.Revision, string(t.State)
	s := t.Source
	src := envelope.NewObj().Str("bucket", s.Bucket).Str("object", s.Object).OptStr("version_id", s.VersionID).
		Str("data_dir", s.DataDir).Int("mod_time_unix_nanos", s.ModTimeUnixNanos).Int("size", s.Size).
		Str("etag", s.ETag).Str("version_mode", string(s.VersionMode)).Bytes()
	c.IdentitySHA256 = envelope.SHA256Hex(tuple(strJSON(t.DeploymentID), strJSON(t.TransactionID), strJSON(t.OwnerEpoch),
		strJSON(t.WriteID), src, strJSON(t.TierName), bytes32JSON(t.BackendFingerprint), strJSON(t.RemoteObject),
		[]byte(fmt.Sprint(t.NotAfterUnixNanos))))
	rv := envelope.NewObj().Str("kind", string(t.RemoteVersion.Kind))
	if t.RemoteVersion.VersionID != nil {
		rv.Str("version_id", *t.RemoteVersion.VersionID)
	}
	c.RemoteVersionSHA256 = envelope.SHA256Hex(rv.Bytes())
	c.RemoteVersionKnown = t.RemoteVersion.Kind != transition.RemoteUnknown
}

func jobCheckpoint(c *Checkpoint, j *manualjob.Job) error {
	c.Kind, c.UpdatedAtUnixNanos, c.State = CkManualJob, j.UpdatedAtUnixNanos, string(j.State)
	c.ScanCompleted, c.CancelRequested = j.ScanCompleted, j.CancelRequested
	maxObjects := []byte("null")
	if j.MaxObjects != nil {
		maxObjects = uintJSON(*j.MaxObjects)
	}
	maxDuration := []byte("null")
	if j.MaxDuration != nil {
		maxDuration = j.MaxDuration
	}
	c.IdentitySHA256 = envelope.SHA256Hex(tuple(strJSON(j.JobID), strJSON(j.ScopeKey), strJSON(j.Bucket), strJSON(j.Prefix),
		optStrJSON(j.Tier), boolJSON(j.DryRun), maxObjects, maxDuration, []byte(fmt.Sprint(j.CreatedAtUnixNanos))))
	p, err := proofFromReport(j.Report, j.QueueSnapshot)
	if err != nil {
		return fmt.Errorf("%s: %w: progress proof: %v", ilmpath.ManualJobKey(j.JobID), ErrCheckpointNotDerivable, err)
	}
	c.Progress = p
	return nil
}

// proofFromReport is ManualTransitionJobProgressProof::new over the job's
// report and queue snapshot. The proof's members carry the report's own
// member names. Assumption: the cursor revision is the report's
// "cursor_revision" member when present (RustFS derives it in a helper
// ilmctl does not mirror); a job whose proof then differs from its
// receipt's is reported, never assumed covered.
func proofFromReport(report, queue json.RawMessage) (*ProgressProof, error) {
	o, err := envelope.ParseObject("manual_transition_report", report)
	if err != nil {
		return nil, err
	}
	p := &ProgressProof{Counters: map[string]uint64{}, Flags: map[string]bool{}, TierFailureByReason: map[string]uint64{}}
	bucket, err := o.String("bucket")
	if err != nil {
		return nil, err
	}
	// RustFS leaves zero counters, false flags, an empty reason map and an
	// absent token out of the report it writes; they read back as their
	// defaults. A member that is present must have its type.
	prefix, err := optDefault(o, "prefix", o.String)
	if err != nil {
		return nil, err
	}
	tier, err := o.OptString("tier")
	if err != nil {
		return nil, err
	}
	dry, err := optDefault(o, "dry_run", o.Bool)
	if err != nil {
		return nil, err
	}
	p.ScopeSHA256 = envelope.SHA256Hex(tuple(strJSON(bucket), strJSON(prefix), optStrJSON(tier), boolJSON(dry)))
	for _, k := range progressCounters {
		if p.Counters[k], err = optDefault(o, k, func(k string) (uint64, error) { return o.Uint(k, 1<<64-1) }); err != nil {
			return nil, err
		}
	}
	for _, k := range progressFlags {
		if p.Flags[k], err = optDefault(o, k, o.Bool); err != nil {
			return nil, err
		}
	}
	if !o.IsNull("tier_failure_by_reason") {
		if p.TierFailureByReason, err = uintMap(o, "tier_failure_by_reason"); err != nil {
			return nil, err
		}
	}
	if p.CursorRevision, err = o.OptUint("cursor_revision"); err != nil {
		return nil, err
	}
	token, err := o.OptString("continuation_token")
	if err != nil {
		return nil, err
	}
	if token != nil {
		sum := envelope.SHA256Hex([]byte(*token))
		p.ContinuationTokenSHA = &sum
		marker, err := tokenMarker(*token)
		if err != nil {
			return nil, err
		}
		if len(marker) <= maxCursorMarker {
			p.CursorMarker = &marker
		}
	}
	qo, err := envelope.ParseObject("manual_transition_report", append(append([]byte(`{"q":`), queue...), '}'))
	if err != nil {
		return nil, err
	}
	if p.Queue, err = decodeQueue(qo, "q"); err != nil {
		return nil, err
	}
	if !p.valid() {
		return nil, fmt.Errorf("%w: report counters, cursor or queue snapshot", ErrInvalidCheckpoint)
	}
	return p, nil
}

// optDefault reads key with read, or returns the zero value when the
// member is absent or null (serde's default).
func optDefault[T any](o *envelope.Object, key string, read func(string) (T, error)) (T, error) {
	var zero T
	if o.IsNull(key) {
		return zero, nil
	}
	return read(key)
}

// tokenMarker decodes a manual-transition continuation token: unpadded
// URL-safe base64 of a JSON object whose "marker" is the listing cursor.
func tokenMarker(token string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", fmt.Errorf("continuation token is not base64url: %w", err)
	}
	var t struct {
		Marker *string `json:"marker"`
	}
	if err := json.Unmarshal(b, &t); err != nil || t.Marker == nil {
		return "", errors.New("continuation token carries no marker")
	}
	return *t.Marker, nil
}

// uuidDigest is hex SHA-256 of a UUID's 16 raw bytes: the receipt id of a
// dispatch manifest or chunk parent (its operation id).
func uuidDigest(uuid string) string {
	b, _ := hex.DecodeString(ilmpath.Simple(uuid))
	return envelope.SHA256Hex(b)
}

// tuple is serde_json's encoding of a Rust tuple: a JSON array.
func tuple(items ...[]byte) []byte {
	b := []byte{'['}
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

func strJSON(s string) []byte { return envelope.AppendString(nil, s) }

func optStrJSON(s *string) []byte {
	if s == nil {
		return []byte("null")
	}
	return strJSON(*s)
}

func boolJSON(v bool) []byte { return []byte(fmt.Sprint(v)) }

func uintJSON(v uint64) []byte { return []byte(fmt.Sprint(v)) }

func stringsJSON(v []string) []byte {
	items := make([][]byte, len(v))
	for i, s := range v {
		items[i] = strJSON(s)
	}
	return tuple(items...)
}

func bytes32JSON(v [32]byte) []byte {
	items := make([][]byte, len(v))
	for i, c := range v {
		items[i] = uintJSON(uint64(c))
	}
	return tuple(items...)
}
