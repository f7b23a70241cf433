// Package rustfsgen generates durable ILM records the way RustFS's own
// encoders write them, independently of ilmctl's codecs, with the
// classification and decision ilmctl's journal must give each one.
//
// It is the generator side of a differential test: the encoders here use
// encoding/json on structs whose field order, omitted members and enum
// spellings follow RustFS's serde definitions in
// crates/ecstore/src/bucket/lifecycle/{tier_sweeper,tier_delete_journal,
// transition_transaction,manual_transition_job}.rs and
// crates/filemeta/src/fileinfo.rs (TransitionVersionState), and the key
// derivations follow the same files. Nothing here calls core/; if ilmctl's
// hand-written readers or writers drift from RustFS's bytes, the scan of
// these records disagrees with the expectations beside them.
//
// Kinds RustFS's sources do not write yet (v6 journals, dispatch manifests,
// chunk parents) are covered by core/journal's own fixtures instead.
package rustfsgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Record is one generated record and what ilmctl must make of it at Now.
type Record struct {
	Key            string // key in the metadata bucket
	Data           []byte // the bytes RustFS writes
	Classification string
	Decision       string
	What           string // what the record is, for failure messages
}

// Now is the instant the expectations hold at.
var Now = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// marshal is serde_json::to_vec: compact, no HTML escaping, no trailing
// newline.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func simple(uuid string) string { return strings.ReplaceAll(uuid, "-", "") }

func sharded(prefix, id string) string { return prefix + id[:2] + "/" + id[2:4] + "/" + id + ".json" }

// ---- tier-delete journal v1–v5 (tier_delete_journal.rs, tier_sweeper.rs)

type source struct {
	Bucket           string  `json:"bucket"`
	Object           string  `json:"object"`
	VersionID        *string `json:"version_id"`
	Versioned        bool    `json:"versioned"`
	VersionSuspended bool    `json:"version_suspended"`
	DataDir          *string `json:"data_dir"`
	ETag             *string `json:"etag"`
	ModTime          *string `json:"mod_time"`
}

type journal struct {
	Version         uint8     `json:"version"`
	ObjName         string    `json:"obj_name"`
	VersionID       string    `json:"version_id"`
	TierName        string    `json:"tier_name"`
	BackendIdentity *[32]byte `json:"backend_identity"` // no skip: null when none
	VersionIDExact  *bool     `json:"version_id_exact,omitempty"`
	VersionState    *string   `json:"version_state,omitempty"`
	State           *string   `json:"state,omitempty"`
	Source          *source   `json:"source,omitempty"`
}

// key is tier_delete_journal_object_name.
func (j *journal) key() string {
	h := sha256.New()
	h.Write([]byte(j.TierName))
	h.Write([]byte{0})
	h.Write([]byte(j.ObjName))
	h.Write([]byte{0})
	h.Write([]byte(j.VersionID))
	if j.BackendIdentity != nil {
		h.Write([]byte{0})
		h.Write(j.BackendIdentity[:])
	}
	if j.VersionIDExact != nil && *j.VersionIDExact {
		h.Write([]byte{0})
		h.Write([]byte("exact-version-id"))
	}
	if s := j.Source; s != nil {
		for _, p := range []*string{&s.Bucket, &s.Object, s.VersionID, s.DataDir, s.ETag, s.ModTime} {
			h.Write([]byte{0})
			if p != nil {
				h.Write([]byte(*p))
			}
		}
	}
	return "ilm/tier-delete-journal/" + hex.EncodeToString(h.Sum(nil)) + ".json"
}

func ptr[T any](v T) *T { return &v }

func backend(b byte) *[32]byte {
	var x [32]byte
	for i := range x {
		x[i] = b + byte(i)
	}
	return &x
}

// displayTime is the Rust time crate's Display of an OffsetDateTime in
// UTC: unpadded hour, fraction trimmed of trailing zeros but at least one
// digit, "+00:00:00" offset.
func displayTime(t time.Time) string {
	t = t.UTC()
	frac := strings.TrimRight(fmt.Sprintf("%09d", t.Nanosecond()), "0")
	if frac == "" {
		frac = "0"
	}
	return fmt.Sprintf("%04d-%02d-%02d %d:%02d:%02d.%s +00:00:00", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), frac)
}

func journals() []Record {
	var out []Record
	add := func(j *journal, class, decision, what string) {
		out = append(out, Record{j.key(), marshal(j), class, decision, what})
	}
	add(&journal{Version: 1, ObjName: "rustfs/aa/bb/v1", VersionID: "", TierName: "WARM"},
		"retained_ambiguous", "quarantine_retain", "journal v1")
	add(&journal{Version: 1, ObjName: "rustfs/aa/bb/v1-versioned", VersionID: "a1b2c3d4-0000-4000-8000-000000000001", TierName: "WARM"},
		"retained_ambiguous", "quarantine_retain", "journal v1 with a remote version")
	add(&journal{Version: 2, ObjName: "rustfs/aa/bb/v2", VersionID: "", TierName: "WARM", BackendIdentity: backend(2)},
		"retained_ambiguous", "quarantine_retain", "journal v2")
	add(&journal{Version: 3, ObjName: "rustfs/aa/bb/v3", VersionID: "a1b2c3d4-0000-4000-8000-000000000003", TierName: "WARM",
		BackendIdentity: backend(3), VersionIDExact: ptr(true)},
		"recoverable", "delete_remote_idempotent", "journal v3 (exact)")
	for _, vs := range []struct {
		state, vid string
		exact      bool
		class, dec string
	}{
		{"known-disabled", "", false, "recoverable", "delete_remote_idempotent"},
		{"suspended-null", "null", true, "recoverable", "delete_remote_idempotent"},
		{"exact", "a1b2c3d4-0000-4000-8000-000000000004", true, "recoverable", "delete_remote_idempotent"},
	} {
		j := &journal{Version: 4, ObjName: "rustfs/aa/bb/v4-" + vs.state, VersionID: vs.vid, TierName: "COLD",
			BackendIdentity: backend(4), VersionState: ptr(vs.state)}
		if vs.exact {
			j.VersionIDExact = ptr(true)
		}
		add(j, vs.class, vs.dec, "journal v4 "+vs.state)
	}
	mod := time.Date(2026, 8, 30, 9, 5, 3, 500_000_000, time.UTC)
	for i, st := range []string{"Prepared", "Committed"} {
		for _, versioned := range []bool{true, false} {
			s := &source{Bucket: "photos", Object: fmt.Sprintf("2024/trip & <beach>/IMG_%d.jpg", i), Versioned: versioned,
				DataDir: ptr("6f1d2c3b-4a5e-4f60-9b7c-8d9e0a1b2c3d"), ETag: ptr("9b2cf535f27731c974343645a3985328"),
				ModTime: ptr(displayTime(mod.Add(time.Duration(i) * time.Second)))}
			if versioned {
				s.VersionID = ptr("0d5c7e2a-9b1f-4c3e-8a6d-2f4b1c9e7a3" + strconv.Itoa(i))
			}
			j := &journal{Version: 5, ObjName: fmt.Sprintf("rustfs-tier/9a/bc/IMG_%d-%v", i, versioned), VersionID: "a1b2c3d4-0000-4000-8000-00000000c0de",
				TierName: "WARM", BackendIdentity: backend(5), VersionIDExact: ptr(true), VersionState: ptr("exact"), State: ptr(st), Source: s}
			add(j, "needs_source_proof", "retain", fmt.Sprintf("journal v5 %s (versioned source %v)", st, versioned))
		}
	}
	return out
}

// ---- transition transaction v1 (transition_transaction.rs)

type ttSource struct {
	Bucket           string  `json:"bucket"`
	Object           string  `json:"object"`
	VersionID        *string `json:"version_id"`
	DataDir          string  `json:"data_dir"`
	ModTimeUnixNanos int64   `json:"mod_time_unix_nanos"`
	Size             int64   `json:"size"`
	ETag             string  `json:"etag"`
	VersionMode      string  `json:"version_mode"`
}

type remoteVersion struct {
	Kind      string  `json:"kind"`
	VersionID *string `json:"version_id,omitempty"`
}

type transaction struct {
	DeploymentID       string        `json:"deployment_id"`
	TransactionID      string        `json:"transaction_id"`
	Revision           uint64        `json:"revision"`
	OwnerEpoch         string        `json:"owner_epoch"`
	WriteID            string        `json:"write_id"`
	Source             ttSource      `json:"source"`
	TierName           string        `json:"tier_name"`
	BackendFingerprint [32]byte      `json:"backend_fingerprint"`
	RemoteObject       string        `json:"remote_object"`
	RemoteVersion      remoteVersion `json:"remote_version"`
	State              string        `json:"state"`
	NotAfterUnixNanos  int64         `json:"not_after_unix_nanos"`
}

type sealedTransaction struct {
	Schema        string       `json:"schema"`
	ContentSHA256 string       `json:"content_sha256"`
	Transaction   *transaction `json:"transaction"`
}

// remoteObject is canonical_transition_remote_object.
func remoteObject(deployment, bucket, txID, writeID string) string {
	bh := sha([]byte(deployment + ":" + bucket))
	t := simple(txID)
	return "ilm/transition-transactions/" + bh[:16] + "/" + t[:2] + "/" + t[2:4] + "/" + t + "/" + simple(writeID)
}

func transactions() []Record {
	var out []Record
	past, future := Now.UnixNano()-1, Now.Add(time.Hour).UnixNano()
	versioned := &remoteVersion{Kind: "versioned", VersionID: ptr("remote-v-1")}
	unknown := &remoteVersion{Kind: "unknown"}
	for i, c := range []struct {
		state    string
		revision uint64
		rv       *remoteVersion
		notAfter int64
		class    string
		decision string
	}{
		{"upload_started", 1, unknown, past, "active", "retain"},
		{"upload_outcome_unknown", 2, unknown, future, "active", "retain"},
		{"upload_outcome_unknown", 2, unknown, Now.UnixNano(), "operator_required", "probe_remote_candidate"},
		{"aborted_no_remote", 2, unknown, past, "terminal", "delete_record"},
		{"uploaded", 2, versioned, future, "active", "retain"},
		{"uploaded", 3, versioned, past, "recoverable", "cleanup_pending_then_delete"},
		{"local_commit_started", 3, versioned, past, "needs_source_proof", "retain"},
		{"committed", 4, versioned, past, "terminal", "delete_record"},
		{"cleanup_pending", 3, &remoteVersion{Kind: "unversioned"}, past, "needs_source_proof", "retain"},
	} {
		dep := "0b0b0b0b-0000-4000-8000-000000000001"
		txID := fmt.Sprintf("7a000000-0000-4000-8000-%012d", i+1)
		wid := fmt.Sprintf("7b000000-0000-4000-8000-%012d", i+1)
		t := &transaction{DeploymentID: dep, TransactionID: txID, Revision: c.revision, OwnerEpoch: "7c000000-0000-4000-8000-000000000001", WriteID: wid,
			Source: ttSource{Bucket: "video", Object: fmt.Sprintf("clips/%d.mp4", i), VersionID: ptr("7d000000-0000-4000-8000-000000000001"),
				DataDir: "7e000000-0000-4000-8000-000000000001", ModTimeUnixNanos: Now.Add(-48 * time.Hour).UnixNano(), Size: 1 << 20,
				ETag: "d41d8cd98f00b204e9800998ecf8427e", VersionMode: "versioned"},
			TierName: "COLD", BackendFingerprint: *backend(7), RemoteObject: remoteObject(dep, "video", txID, wid),
			RemoteVersion: *c.rv, State: c.state, NotAfterUnixNanos: c.notAfter}
		inner := marshal(t)
		data := marshal(sealedTransaction{Schema: "rustfs-transition-transaction-v1", ContentSHA256: sha(inner), Transaction: t})
		out = append(out, Record{sharded("ilm/transition-transactions/records/", simple(txID)), data, c.class, c.decision,
			fmt.Sprintf("transition transaction %s@%d", c.state, c.revision)})
	}
	return out
}

// ---- manual transition job, scope, task, result (manual_transition_job.rs)

type runReport struct {
	Bucket                     string  `json:"bucket"`
	Prefix                     string  `json:"prefix"`
	Tier                       *string `json:"tier"`
	DryRun                     bool    `json:"dry_run"`
	LifecycleConfigFound       bool    `json:"lifecycle_config_found"`
	Scanned                    uint64  `json:"scanned"`
	Eligible                   uint64  `json:"eligible"`
	Enqueued                   uint64  `json:"enqueued"`
	DryRunEligible             uint64  `json:"dry_run_eligible"`
	SkippedNotTransition       uint64  `json:"skipped_not_transition"`
	SkippedTier                uint64  `json:"skipped_tier"`
	SkippedDeleteMarker        uint64  `json:"skipped_delete_marker"`
	SkippedDirectory           uint64  `json:"skipped_directory"`
	SkippedReplication         uint64  `json:"skipped_replication"`
	SkippedAlreadyTransitioned uint64  `json:"skipped_already_transitioned"`
	SkippedAlreadyInFlight     uint64  `json:"skipped_already_in_flight"`
	SkippedQueueFull           uint64  `json:"skipped_queue_full"`
	SkippedQueueClosed         uint64  `json:"skipped_queue_closed"`
	SkippedQueueTimeout        uint64  `json:"skipped_queue_timeout"`
	TierFailure                uint64  `json:"tier_failure"`
	TruncatedByLimit           bool    `json:"truncated_by_limit"`
	TruncatedByDuration        bool    `json:"truncated_by_duration"`
	Cancelled                  bool    `json:"cancelled"`
}

type queueSnapshot struct {
	QueueCapacity       uint64 `json:"queue_capacity"`
	Queued              uint64 `json:"queued"`
	Active              uint64 `json:"active"`
	Workers             uint64 `json:"workers"`
	QueueFull           uint64 `json:"queue_full"`
	QueueSendTimeout    uint64 `json:"queue_send_timeout"`
	CompensationPending uint64 `json:"compensation_pending"`
	CompensationRunning uint64 `json:"compensation_running"`
}

type job struct {
	JobID                   string        `json:"job_id"`
	ScopeKey                string        `json:"scope_key"`
	Bucket                  string        `json:"bucket"`
	Prefix                  string        `json:"prefix"`
	Tier                    *string       `json:"tier"`
	DryRun                  bool          `json:"dry_run"`
	MaxObjects              *uint64       `json:"max_objects,omitempty"`
	OwnerID                 string        `json:"owner_id"`
	LeaseID                 string        `json:"lease_id"`
	LeaseExpiresAtUnixNanos int64         `json:"lease_expires_at_unix_nanos"`
	State                   string        `json:"state"`
	ScanCompleted           bool          `json:"scan_completed,omitempty"`
	CancelRequested         bool          `json:"cancel_requested"`
	CreatedAtUnixNanos      int64         `json:"created_at_unix_nanos"`
	UpdatedAtUnixNanos      int64         `json:"updated_at_unix_nanos"`
	CompletedAtUnixNanos    *int64        `json:"completed_at_unix_nanos,omitempty"`
	Report                  runReport     `json:"report"`
	QueueSnapshot           queueSnapshot `json:"queue_snapshot"`
	Error                   *string       `json:"error,omitempty"`
}

type sealedJob struct {
	Schema        string `json:"schema"`
	ContentSHA256 string `json:"content_sha256"`
	Job           *job   `json:"job"`
}

type scope struct {
	Schema                  string  `json:"schema"`
	ScopeKey                string  `json:"scope_key"`
	JobID                   string  `json:"job_id"`
	LeaseID                 string  `json:"lease_id"`
	OwnerID                 string  `json:"owner_id"`
	Bucket                  string  `json:"bucket"`
	Prefix                  string  `json:"prefix"`
	Tier                    *string `json:"tier"`
	DryRun                  bool    `json:"dry_run"`
	LeaseExpiresAtUnixNanos int64   `json:"lease_expires_at_unix_nanos"`
	UpdatedAtUnixNanos      int64   `json:"updated_at_unix_nanos"`
}

type task struct {
	Schema            string  `json:"schema"`
	JobID             string  `json:"job_id"`
	TaskKey           string  `json:"task_key"`
	Bucket            string  `json:"bucket"`
	Object            string  `json:"object"`
	VersionID         *string `json:"version_id"`
	StorageClass      string  `json:"storage_class"`
	ETag              *string `json:"etag,omitempty"`
	ModTimeUnixNanos  *int64  `json:"mod_time_unix_nanos,omitempty"`
	Size              *int64  `json:"size,omitempty"`
	IsLatest          *bool   `json:"is_latest,omitempty"`
	QueuedAtUnixNanos int64   `json:"queued_at_unix_nanos"`
}

type result struct {
	Schema               string  `json:"schema"`
	JobID                string  `json:"job_id"`
	TaskKey              string  `json:"task_key"`
	Result               string  `json:"result"`
	FailureReason        *string `json:"failure_reason,omitempty"`
	CompletedAtUnixNanos int64   `json:"completed_at_unix_nanos"`
}

type sealedRecord struct {
	Schema        string `json:"schema"`
	ContentSHA256 string `json:"content_sha256"`
	Record        any    `json:"record"`
}

const jobSchema = "rustfs-manual-transition-job-v1"

func runMode(dryRun bool) string {
	if dryRun {
		return "dry_run"
	}
	return "run"
}

// scopeKey is manual_transition_scope_key (bucket-level admission).
func scopeKey(bucket string, dryRun bool) string {
	return sha([]byte(bucket + "\x00" + runMode(dryRun)))
}

// legacyScopeKey is legacy_manual_transition_scope_key.
func legacyScopeKey(bucket, prefix string, tier *string, dryRun bool) string {
	t := ""
	if tier != nil {
		t = strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' {
				return r - 'a' + 'A'
			}
			return r
		}, *tier)
	}
	return sha([]byte(bucket + "\x00" + prefix + "\x00" + t + "\x00" + runMode(dryRun)))
}

// taskKey is manual_transition_worker_result_task_key.
func taskKey(bucket, object, versionID string) string {
	var b []byte
	for _, p := range []string{bucket, object, versionID} {
		b = append(b, strconv.Itoa(len(p))...)
		b = append(b, ':')
		b = append(b, p...)
	}
	return sha(b)
}

func manual() []Record {
	var out []Record
	now := Now.UnixNano()
	past, future := now-1, now+60_000_000_000
	n := 0
	newJob := func(bucket, state string, leaseEnd int64, mut func(*job)) *job {
		n++
		tier := ptr("WARM")
		j := &job{JobID: fmt.Sprintf("5a000000-0000-4000-8000-%012d", n), ScopeKey: scopeKey(bucket, false), Bucket: bucket, Prefix: "app/",
			Tier: tier, OwnerID: "node-2:9000", LeaseID: fmt.Sprintf("5b000000-0000-4000-8000-%012d", n), LeaseExpiresAtUnixNanos: leaseEnd,
			State: state, CreatedAtUnixNanos: now - 7_200_000_000_000, UpdatedAtUnixNanos: now - 60_000_000_000,
			Report:        runReport{Bucket: bucket, Prefix: "app/", Tier: tier, LifecycleConfigFound: true, Scanned: 3},
			QueueSnapshot: queueSnapshot{QueueCapacity: 1024, Workers: 4}}
		if state != "running" {
			j.CompletedAtUnixNanos = ptr(j.UpdatedAtUnixNanos)
		}
		if mut != nil {
			mut(j)
		}
		return j
	}
	addJob := func(j *job, class, decision, what string) {
		inner := marshal(j)
		data := marshal(sealedJob{Schema: jobSchema, ContentSHA256: sha(inner), Job: j})
		out = append(out, Record{sharded("ilm/manual-transition/jobs/", simple(j.JobID)), data, class, decision, what})
	}
	addScope := func(j *job, leaseEnd int64, class, decision, what string) {
		s := &scope{Schema: jobSchema, ScopeKey: j.ScopeKey, JobID: j.JobID, LeaseID: j.LeaseID, OwnerID: j.OwnerID, Bucket: j.Bucket,
			Prefix: j.Prefix, Tier: j.Tier, DryRun: j.DryRun, LeaseExpiresAtUnixNanos: leaseEnd, UpdatedAtUnixNanos: j.UpdatedAtUnixNanos}
		out = append(out, Record{sharded("ilm/manual-transition/scopes/", s.ScopeKey), marshal(s), class, decision, what})
	}

	live := newJob("live", "running", future, nil)
	addJob(live, "active", "leave_to_owner", "running job, live lease")
	addScope(live, future, "active", "leave_to_owner", "scope of a running job with a live lease")
	instant := newJob("instant", "running", now, nil)
	addJob(instant, "active", "leave_to_owner", "running job whose lease expires exactly now")
	addScope(instant, now, "active", "leave_to_owner", "scope whose lease expires exactly now")
	addJob(newJob("noscope", "running", future, nil), "active", "leave_to_owner", "running job, live lease, no scope admission")
	expired := newJob("expired", "running", past, nil)
	addJob(expired, "recoverable", "take_over", "running job, expired lease")
	addScope(expired, past, "recoverable", "take_over", "scope of a running job with an expired lease")
	scanned := newJob("scanned", "running", past, func(j *job) { j.ScanCompleted = true })
	addJob(scanned, "recoverable", "reconcile_results", "expired job whose scan completed")
	addJob(newJob("cancelling", "running", past, func(j *job) { j.CancelRequested = true }), "recoverable", "cancel_job", "expired job with cancel requested")
	for _, st := range []string{"completed", "partial", "failed", "cancelled", "unknown"} {
		j := newJob("done-"+st, st, past, func(j *job) {
			if j.State == "cancelled" {
				j.CancelRequested, j.Report.Cancelled = true, true
			}
			if j.State == "failed" {
				j.Error = ptr(`tier PUT failed: <Error><Code>SlowDown</Code></Error> & retries exhausted`)
			}
		})
		addJob(j, "terminal", "skip_terminal", st+" job")
		addScope(j, past, "terminal", "skip_terminal", "leftover scope of a "+st+" job")
	}
	legacy := newJob("legacy", "running", future, func(j *job) {
		j.Prefix, j.Tier = "legacy/", ptr("warm")
		j.Report.Prefix, j.Report.Tier = j.Prefix, j.Tier
		j.ScopeKey = legacyScopeKey(j.Bucket, j.Prefix, j.Tier, false)
	})
	addJob(legacy, "active", "leave_to_owner", "running job under a legacy scope key")
	addScope(legacy, future, "active", "leave_to_owner", "scope admission under the legacy key")
	dry := newJob("dry", "running", future, func(j *job) { j.DryRun, j.Report.DryRun, j.ScopeKey = true, true, scopeKey("dry", true) })
	addJob(dry, "active", "leave_to_owner", "dry-run job")
	addScope(dry, future, "active", "leave_to_owner", "dry-run scope")

	// Tasks and results of the completed-scan job.
	for i, c := range []struct {
		result *string
		reason *string
	}{{nil, nil}, {ptr("completed"), nil}, {ptr("tier_failure"), ptr("slow_down")}, {ptr("tier_failure"), nil}} {
		obj := fmt.Sprintf("app/%d.log", i)
		vid := ptr("5c000000-0000-4000-8000-000000000001")
		if i%2 == 1 {
			vid = nil
		}
		tk := taskKey(scanned.Bucket, obj, deref(vid))
		t := &task{Schema: "rustfs-manual-transition-task-v1", JobID: scanned.JobID, TaskKey: tk, Bucket: scanned.Bucket, Object: obj,
			VersionID: vid, StorageClass: "WARM", ETag: ptr("etag"), ModTimeUnixNanos: ptr(now - 1), Size: ptr(int64(10)), IsLatest: ptr(true),
			QueuedAtUnixNanos: now - 10}
		inner := marshal(t)
		dir := simple(scanned.JobID)
		taskPath := "ilm/manual-transition/tasks/" + dir[:2] + "/" + dir[2:4] + "/" + dir + "/" + tk + ".json"
		class, decision := "active", "replay_if_no_result"
		if c.result != nil {
			class, decision = "terminal", "retain_history"
		}
		out = append(out, Record{taskPath, marshal(sealedRecord{"rustfs-manual-transition-task-v1", sha(inner), t}), class, decision, "task record"})
		if c.result == nil {
			continue
		}
		r := &result{Schema: "rustfs-manual-transition-worker-result-v1", JobID: scanned.JobID, TaskKey: tk, Result: *c.result,
			FailureReason: c.reason, CompletedAtUnixNanos: now - 5}
		inner = marshal(r)
		resPath := "ilm/manual-transition/results/" + dir[:2] + "/" + dir[2:4] + "/" + dir + "/" + tk + ".json"
		out = append(out, Record{resPath, marshal(sealedRecord{"rustfs-manual-transition-worker-result-v1", sha(inner), r}),
			"terminal", "retain_history", "worker result " + *c.result})
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Records returns every generated record, in a stable order.
func Records() []Record {
	var out []Record
	out = append(out, journals()...)
	out = append(out, transactions()...)
	out = append(out, manual()...)
	return out
}
