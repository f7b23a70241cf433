// Package manualjob decodes RustFS manual transition records: job
// (rustfs-manual-transition-job-v1), scope admission, task
// (rustfs-manual-transition-task-v1) and worker result
// (rustfs-manual-transition-worker-result-v1), following
// crates/ecstore/src/bucket/lifecycle/manual_transition_job.rs
// (docs/design/ilm-records.md#manual-transition-records).
//
// The job's report, queue_snapshot and max_duration members are kept as
// their compact JSON bytes: their structs live in bucket_lifecycle_ops.rs
// and are re-emitted verbatim, which reproduces serde's bytes for any
// record RustFS wrote.
package manualjob

import (
	"encoding/json"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// Schemas.
const (
	JobSchema    = "rustfs-manual-transition-job-v1"
	TaskSchema   = "rustfs-manual-transition-task-v1"
	ResultSchema = "rustfs-manual-transition-worker-result-v1"
)

// JobState is ManualTransitionJobState (snake_case).
type JobState string

// Job states.
const (
	Running   JobState = "running"
	Completed JobState = "completed"
	Partial   JobState = "partial"
	Failed    JobState = "failed"
	Cancelled JobState = "cancelled"
	Unknown   JobState = "unknown"
)

// CanTransitionTo: Running → any terminal state.
func (s JobState) CanTransitionTo(next JobState) bool {
	return s == Running && next != Running && validJobState(next)
}

// Terminal reports whether s is not Running.
func (s JobState) Terminal() bool { return s != Running }

func validJobState(s JobState) bool {
	switch s {
	case Running, Completed, Partial, Failed, Cancelled, Unknown:
		return true
	}
	return false
}

// Job is ManualTransitionJobRecord. Nanosecond times are RustFS i128 read
// as int64.
type Job struct {
	JobID                   string
	ScopeKey                string
	Bucket                  string
	Prefix                  string
	Tier                    *string
	DryRun                  bool
	MaxObjects              *uint64
	MaxDuration             json.RawMessage // std::time::Duration as serde writes it; nil when absent
	OwnerID                 string
	LeaseID                 string
	LeaseExpiresAtUnixNanos int64
	State                   JobState
	ScanCompleted           bool // written only when true
	CancelRequested         bool
	CreatedAtUnixNanos      int64
	UpdatedAtUnixNanos      int64
	CompletedAtUnixNanos    *int64
	Report                  json.RawMessage
	QueueSnapshot           json.RawMessage
	Error                   *string
	// ScopeKeyFormat is the derivation ScopeKey matches (set by DecodeJob).
	ScopeKeyFormat ScopeKeyFormat
	// LegacyReportChecksum is set by DecodeJob when content_sha256 covers
	// the report without tier_failure_by_reason (an older writer's
	// checksum RustFS still accepts). Encode always writes the current
	// checksum, so such a record does not re-encode to its stored bytes.
	LegacyReportChecksum bool
}

func derr(proto, field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(proto, field, sentinel, format, args...)
}

const protoJob = "manual_transition_job"

// DecodeJob opens and verifies a job envelope stored at key.
func DecodeJob(key string, data []byte) (*Job, error) {
	env, err := envelope.Open(protoJob, data, JobSchema, "job", ilmpath.MaxManualJobSize)
	if err != nil {
		return nil, err
	}
	o := env.Inner
	if err := o.Allow("job_id", "scope_key", "bucket", "prefix", "tier", "dry_run", "max_objects", "max_duration", "owner_id", "lease_id", "lease_expires_at_unix_nanos", "state", "scan_completed", "cancel_requested", "created_at_unix_nanos", "updated_at_unix_nanos", "completed_at_unix_nanos", "cursor_revision", "report", "queue_snapshot", "error"); err != nil {
		return nil, err
	}
	j := &Job{}
	if j.JobID, err = o.UUID("job_id"); err != nil {
		return nil, err
	}
	if j.ScopeKey, err = o.String("scope_key"); err != nil {
		return nil, err
	}
	if j.Bucket, err = o.String("bucket"); err != nil {
		return nil, err
	}
	if j.Prefix, err = o.String("prefix"); err != nil {
		return nil, err
	}
	if !o.Has("tier") {
		return nil, derr(protoJob, "tier", envelope.ErrMissingField, "")
	}
	if j.Tier, err = o.OptString("tier"); err != nil {
		return nil, err
	}
	if j.DryRun, err = o.Bool("dry_run"); err != nil {
		return nil, err
	}
	if j.MaxObjects, err = o.OptUint("max_objects"); err != nil {
		return nil, err
	}
	if !o.IsNull("max_duration") {
		j.MaxDuration = o.Raw("max_duration")
	}
	if j.OwnerID, err = o.String("owner_id"); err != nil {
		return nil, err
	}
	if j.LeaseID, err = o.UUID("lease_id"); err != nil {
		return nil, err
	}
	if j.LeaseExpiresAtUnixNanos, err = o.Int("lease_expires_at_unix_nanos"); err != nil {
		return nil, err
	}
	st, err := o.String("state")
	if err != nil {
		return nil, err
	}
	if j.State = JobState(st); !validJobState(j.State) {
		return nil, derr(protoJob, "state", envelope.ErrIllegalState, "unknown job state %q", st)
	}
	if o.Has("scan_completed") {
		if j.ScanCompleted, err = o.Bool("scan_completed"); err != nil {
			return nil, err
		}
	}
	if j.CancelRequested, err = o.Bool("cancel_requested"); err != nil {
		return nil, err
	}
	if j.CreatedAtUnixNanos, err = o.Int("created_at_unix_nanos"); err != nil {
		return nil, err
	}
	if j.UpdatedAtUnixNanos, err = o.Int("updated_at_unix_nanos"); err != nil {
		return nil, err
	}
	if j.CompletedAtUnixNanos, err = o.OptInt("completed_at_unix_nanos"); err != nil {
		return nil, err
	}
	// cursor_revision is accepted (serde default) but never serialized.
	if _, err = o.OptUint("cursor_revision"); err != nil {
		return nil, err
	}
	if j.Report, err = rawObject(o, "report"); err != nil {
		return nil, err
	}
	if j.QueueSnapshot, err = rawObject(o, "queue_snapshot"); err != nil {
		return nil, err
	}
	if j.Error, err = o.OptString("error"); err != nil {
		return nil, err
	}
	if err := env.Verify(protoJob, j.EncodeInner()); err != nil {
		// RustFS also accepts a checksum computed before the report gained
		// tier_failure_by_reason: the same job with that member removed.
		legacy, ok := envelope.WithoutMember(j.Report, "tier_failure_by_reason")
		if !ok {
			return nil, err
		}
		alt := *j
		alt.Report = legacy
		if env.Verify(protoJob, alt.EncodeInner()) != nil {
			return nil, err
		}
		j.LegacyReportChecksum = true
	}
	if err := j.validate(); err != nil {
		return nil, err
	}
	if want := ilmpath.ManualJobKey(j.JobID); key != want {
		return nil, derr(protoJob, "", envelope.ErrPath, "stored at %q, payload belongs at %q", key, want)
	}
	return j, nil
}

// validate applies ManualTransitionJobRecord::validate's consistency rules
// (crates/ecstore/src/bucket/lifecycle/manual_transition_job.rs), then
// ilmctl's scope-key rule: the scope key must be one RustFS derives for
// the job's own bucket, prefix, tier and run mode (ScopeKeyFormat).
func (j *Job) validate() error {
	switch {
	case j.ScopeKey == "":
		return derr(protoJob, "scope_key", envelope.ErrIdentity, "scope_key is empty")
	case j.Bucket == "":
		return derr(protoJob, "bucket", envelope.ErrIdentity, "bucket is empty")
	case strings.TrimSpace(j.OwnerID) == "":
		return derr(protoJob, "owner_id", envelope.ErrIdentity, "owner_id is empty")
	case j.CompletedAtUnixNanos != nil && !j.State.Terminal():
		return derr(protoJob, "completed_at_unix_nanos", envelope.ErrIllegalState, "non-terminal job has a completion time")
	case j.State == Cancelled && !j.CancelRequested:
		return derr(protoJob, "cancel_requested", envelope.ErrIllegalState, "cancelled job is missing its cancel request")
	}
	j.ScopeKeyFormat = ScopeKeyFormatOf(j.ScopeKey, j.Bucket, j.Prefix, j.Tier, j.DryRun)
	if j.ScopeKeyFormat == "" {
		return derr(protoJob, "scope_key", envelope.ErrIdentity, "scope key is neither the current nor the legacy digest of the job's scope")
	}
	return nil
}

// ScopeKeyFormat names which RustFS derivation produced a scope key.
type ScopeKeyFormat string

// Scope key formats RustFS readers accept.
const (
	// ScopeKeyCurrent: SHA-256 of bucket, NUL, then "run" or "dry_run"
	// (ilmpath.ManualScopeDigest).
	ScopeKeyCurrent ScopeKeyFormat = "current"
	// ScopeKeyLegacy: the pre-bucket-level form, SHA-256 of bucket,
	// prefix, ASCII-upper-cased tier and run mode, NUL-separated
	// (ilmpath.ManualScopeLegacyDigest). RustFS's admission conflict check
	// still honours live jobs and admissions under it.
	ScopeKeyLegacy ScopeKeyFormat = "legacy"
)

// ScopeKeyFormatOf returns the derivation scopeKey matches for the given
// scope, or "" when it matches none.
func ScopeKeyFormatOf(scopeKey, bucket, prefix string, tier *string, dryRun bool) ScopeKeyFormat {
	switch scopeKey {
	case ilmpath.ManualScopeDigest(bucket, dryRun):
		return ScopeKeyCurrent
	case ilmpath.ManualScopeLegacyDigest(bucket, prefix, tier, dryRun):
		return ScopeKeyLegacy
	}
	return ""
}

func rawObject(o *envelope.Object, key string) (json.RawMessage, error) {
	if _, err := o.Object(key); err != nil {
		return nil, err
	}
	return o.Raw(key), nil
}

// EncodeInner is serde_json::to_vec(&ManualTransitionJobRecord).
func (j *Job) EncodeInner() []byte {
	o := envelope.NewObj().Str("job_id", j.JobID).Str("scope_key", j.ScopeKey).Str("bucket", j.Bucket).
		Str("prefix", j.Prefix).OptStr("tier", j.Tier).Bool("dry_run", j.DryRun)
	if j.MaxObjects != nil {
		o.Uint("max_objects", *j.MaxObjects)
	}
	if j.MaxDuration != nil {
		o.Raw("max_duration", j.MaxDuration)
	}
	o.Str("owner_id", j.OwnerID).Str("lease_id", j.LeaseID).Int("lease_expires_at_unix_nanos", j.LeaseExpiresAtUnixNanos).
		Str("state", string(j.State))
	if j.ScanCompleted {
		o.Bool("scan_completed", true)
	}
	o.Bool("cancel_requested", j.CancelRequested).Int("created_at_unix_nanos", j.CreatedAtUnixNanos).
		Int("updated_at_unix_nanos", j.UpdatedAtUnixNanos)
	if j.CompletedAtUnixNanos != nil {
		o.Int("completed_at_unix_nanos", *j.CompletedAtUnixNanos)
	}
	o.Raw("report", j.Report).Raw("queue_snapshot", j.QueueSnapshot)
	if j.Error != nil {
		o.Str("error", *j.Error)
	}
	return o.Bytes()
}

// Encode seals the job.
func (j *Job) Encode() []byte { return envelope.Seal(JobSchema, "job", j.EncodeInner()) }

// Scope is ManualTransitionScopeAdmission, stored as plain JSON (serde's
// to_vec of the struct, no checksum envelope) carrying the job schema in
// its own schema field.
type Scope struct {
	Schema                  string
	ScopeKey                string
	JobID                   string
	LeaseID                 string
	OwnerID                 string
	Bucket                  string
	Prefix                  string
	Tier                    *string
	DryRun                  bool
	LeaseExpiresAtUnixNanos int64
	UpdatedAtUnixNanos      int64
	// KeyFormat is the derivation ScopeKey matches (set by DecodeScope).
	KeyFormat ScopeKeyFormat
}

const protoScope = "manual_transition_scope"

// DecodeScope decodes a scope admission stored at key.
func DecodeScope(key string, data []byte) (*Scope, error) {
	if len(data) > ilmpath.MaxManualJobSize {
		return nil, derr(protoScope, "", envelope.ErrTooLarge, "%d bytes", len(data))
	}
	o, err := envelope.ParseObject(protoScope, data)
	if err != nil {
		return nil, err
	}
	if err := o.Allow("schema", "scope_key", "job_id", "lease_id", "owner_id", "bucket", "prefix", "tier", "dry_run", "lease_expires_at_unix_nanos", "updated_at_unix_nanos"); err != nil {
		return nil, err
	}
	s := &Scope{}
	if s.Schema, err = o.String("schema"); err != nil {
		return nil, err
	}
	if s.Schema != JobSchema {
		return nil, derr(protoScope, "schema", envelope.ErrSchema, "got %q", s.Schema)
	}
	if s.ScopeKey, err = o.String("scope_key"); err != nil {
		return nil, err
	}
	if s.JobID, err = o.UUID("job_id"); err != nil {
		return nil, err
	}
	if s.LeaseID, err = o.UUID("lease_id"); err != nil {
		return nil, err
	}
	if s.OwnerID, err = o.String("owner_id"); err != nil {
		return nil, err
	}
	if s.Bucket, err = o.String("bucket"); err != nil {
		return nil, err
	}
	if s.Prefix, err = o.String("prefix"); err != nil {
		return nil, err
	}
	if s.Tier, err = o.OptString("tier"); err != nil {
		return nil, err
	}
	if s.DryRun, err = o.Bool("dry_run"); err != nil {
		return nil, err
	}
	if s.LeaseExpiresAtUnixNanos, err = o.Int("lease_expires_at_unix_nanos"); err != nil {
		return nil, err
	}
	if s.UpdatedAtUnixNanos, err = o.Int("updated_at_unix_nanos"); err != nil {
		return nil, err
	}
	// ManualTransitionScopeAdmission::validate, then the derivation rule.
	switch {
	case s.ScopeKey == "":
		return nil, derr(protoScope, "scope_key", envelope.ErrIdentity, "scope_key is empty")
	case s.Bucket == "":
		return nil, derr(protoScope, "bucket", envelope.ErrIdentity, "bucket is empty")
	case strings.TrimSpace(s.OwnerID) == "":
		return nil, derr(protoScope, "owner_id", envelope.ErrIdentity, "owner_id is empty")
	}
	if s.KeyFormat = ScopeKeyFormatOf(s.ScopeKey, s.Bucket, s.Prefix, s.Tier, s.DryRun); s.KeyFormat == "" {
		return nil, derr(protoScope, "scope_key", envelope.ErrIdentity, "scope key is neither the current nor the legacy digest of bucket, prefix, tier and run mode")
	}
	if want := ilmpath.ManualScopeKey(s.ScopeKey); key != want {
		return nil, derr(protoScope, "", envelope.ErrPath, "stored at %q, payload belongs at %q", key, want)
	}
	return s, nil
}

// Encode writes the scope admission as plain JSON in the (assumed) field
// order DecodeScope reads; tier is written as null when absent.
func (s *Scope) Encode() []byte {
	return envelope.NewObj().Str("schema", s.Schema).Str("scope_key", s.ScopeKey).Str("job_id", s.JobID).
		Str("lease_id", s.LeaseID).Str("owner_id", s.OwnerID).Str("bucket", s.Bucket).Str("prefix", s.Prefix).
		OptStr("tier", s.Tier).Bool("dry_run", s.DryRun).Int("lease_expires_at_unix_nanos", s.LeaseExpiresAtUnixNanos).
		Int("updated_at_unix_nanos", s.UpdatedAtUnixNanos).Bytes()
}

// Task is ManualTransitionTaskRecord.
type Task struct {
	Schema            string
	JobID             string
	TaskKey           string
	Bucket            string
	Object            string
	VersionID         *string
	StorageClass      string
	ETag              *string
	ModTimeUnixNanos  *int64
	Size              *int64
	IsLatest          *bool
	QueuedAtUnixNanos int64
}

const protoTask = "manual_transition_task"

// DecodeTask opens and verifies a task envelope stored at key.
func DecodeTask(key string, data []byte) (*Task, error) {
	env, err := envelope.Open(protoTask, data, TaskSchema, "record", ilmpath.MaxManualTaskSize)
	if err != nil {
		return nil, err
	}
	o := env.Inner
	if err := o.Allow("schema", "job_id", "task_key", "bucket", "object", "version_id", "storage_class", "etag", "mod_time_unix_nanos", "size", "is_latest", "queued_at_unix_nanos"); err != nil {
		return nil, err
	}
	t := &Task{}
	if t.Schema, err = o.String("schema"); err != nil {
		return nil, err
	}
	if t.JobID, err = o.UUID("job_id"); err != nil {
		return nil, err
	}
	if t.TaskKey, err = o.String("task_key"); err != nil {
		return nil, err
	}
	if t.Bucket, err = o.String("bucket"); err != nil {
		return nil, err
	}
	if t.Object, err = o.String("object"); err != nil {
		return nil, err
	}
	if !o.Has("version_id") {
		return nil, derr(protoTask, "version_id", envelope.ErrMissingField, "")
	}
	if t.VersionID, err = o.OptUUID("version_id"); err != nil {
		return nil, err
	}
	if t.StorageClass, err = o.String("storage_class"); err != nil {
		return nil, err
	}
	if t.ETag, err = o.OptString("etag"); err != nil {
		return nil, err
	}
	if t.ModTimeUnixNanos, err = o.OptInt("mod_time_unix_nanos"); err != nil {
		return nil, err
	}
	if t.Size, err = o.OptInt("size"); err != nil {
		return nil, err
	}
	if t.IsLatest, err = o.OptBool("is_latest"); err != nil {
		return nil, err
	}
	if t.QueuedAtUnixNanos, err = o.Int("queued_at_unix_nanos"); err != nil {
		return nil, err
	}
	if err := env.Verify(protoTask, t.EncodeInner()); err != nil {
		return nil, err
	}
	if t.Schema != TaskSchema {
		return nil, derr(protoTask, "schema", envelope.ErrSchema, "inner schema %q", t.Schema)
	}
	if !envelope.IsSHA256Hex(t.TaskKey) || t.Bucket == "" || t.Object == "" || strings.TrimSpace(t.StorageClass) == "" || (t.Size != nil && *t.Size < 0) {
		return nil, derr(protoTask, "task_key", envelope.ErrIdentity, "task key, bucket, object, storage class or size invalid")
	}
	if want := ilmpath.ManualTaskKey(t.JobID, t.TaskKey); key != want {
		return nil, derr(protoTask, "", envelope.ErrPath, "stored at %q, payload belongs at %q", key, want)
	}
	return t, nil
}

// EncodeInner is serde_json::to_vec(&ManualTransitionTaskRecord).
func (t *Task) EncodeInner() []byte {
	o := envelope.NewObj().Str("schema", t.Schema).Str("job_id", t.JobID).Str("task_key", t.TaskKey).
		Str("bucket", t.Bucket).Str("object", t.Object).OptStr("version_id", t.VersionID).Str("storage_class", t.StorageClass)
	if t.ETag != nil {
		o.Str("etag", *t.ETag)
	}
	if t.ModTimeUnixNanos != nil {
		o.Int("mod_time_unix_nanos", *t.ModTimeUnixNanos)
	}
	if t.Size != nil {
		o.Int("size", *t.Size)
	}
	if t.IsLatest != nil {
		o.Bool("is_latest", *t.IsLatest)
	}
	return o.Int("queued_at_unix_nanos", t.QueuedAtUnixNanos).Bytes()
}

// Encode seals the task.
func (t *Task) Encode() []byte { return envelope.Seal(TaskSchema, "record", t.EncodeInner()) }

// Outcome is ManualTransitionWorkerResult.
type Outcome string

// Worker outcomes.
const (
	OutcomeCompleted   Outcome = "completed"
	OutcomeTierFailure Outcome = "tier_failure"
)

// Result is ManualTransitionWorkerResultRecord.
type Result struct {
	Schema               string
	JobID                string
	TaskKey              string
	Result               Outcome
	FailureReason        *string
	CompletedAtUnixNanos int64
}

const protoResult = "manual_transition_worker_result"

var failureReasons = map[string]bool{"unknown": true, "not_found": true, "network": true, "permission_denied": true, "timeout": true, "quorum": true, "slow_down": true}

// DecodeResult opens and verifies a worker-result envelope stored at key.
// Assumption: ManualTransitionWorkerResult serializes snake_case
// ("completed", "tier_failure"); its serde attribute was not read.
func DecodeResult(key string, data []byte) (*Result, error) {
	env, err := envelope.Open(protoResult, data, ResultSchema, "record", ilmpath.MaxManualResultSize)
	if err != nil {
		return nil, err
	}
	o := env.Inner
	if err := o.Allow("schema", "job_id", "task_key", "result", "failure_reason", "completed_at_unix_nanos"); err != nil {
		return nil, err
	}
	r := &Result{}
	if r.Schema, err = o.String("schema"); err != nil {
		return nil, err
	}
	if r.JobID, err = o.UUID("job_id"); err != nil {
		return nil, err
	}
	if r.TaskKey, err = o.String("task_key"); err != nil {
		return nil, err
	}
	res, err := o.String("result")
	if err != nil {
		return nil, err
	}
	r.Result = Outcome(res)
	if r.Result != OutcomeCompleted && r.Result != OutcomeTierFailure {
		return nil, derr(protoResult, "result", envelope.ErrIllegalState, "unknown outcome %q", res)
	}
	if r.FailureReason, err = o.OptString("failure_reason"); err != nil {
		return nil, err
	}
	if r.FailureReason != nil && !failureReasons[*r.FailureReason] {
		return nil, derr(protoResult, "failure_reason", envelope.ErrIllegalState, "unknown reason %q", *r.FailureReason)
	}
	if r.CompletedAtUnixNanos, err = o.Int("completed_at_unix_nanos"); err != nil {
		return nil, err
	}
	if err := env.Verify(protoResult, r.EncodeInner()); err != nil {
		return nil, err
	}
	if r.Schema != ResultSchema {
		return nil, derr(protoResult, "schema", envelope.ErrSchema, "inner schema %q", r.Schema)
	}
	if !envelope.IsSHA256Hex(r.TaskKey) {
		return nil, derr(protoResult, "task_key", envelope.ErrIdentity, "want a SHA-256 digest")
	}
	if want := ilmpath.ManualResultKey(r.JobID, r.TaskKey); key != want {
		return nil, derr(protoResult, "", envelope.ErrPath, "stored at %q, payload belongs at %q", key, want)
	}
	return r, nil
}

// EncodeInner is serde_json::to_vec(&ManualTransitionWorkerResultRecord).
func (r *Result) EncodeInner() []byte {
	o := envelope.NewObj().Str("schema", r.Schema).Str("job_id", r.JobID).Str("task_key", r.TaskKey).Str("result", string(r.Result))
	if r.FailureReason != nil {
		o.Str("failure_reason", *r.FailureReason)
	}
	return o.Int("completed_at_unix_nanos", r.CompletedAtUnixNanos).Bytes()
}

// Encode seals the result.
func (r *Result) Encode() []byte { return envelope.Seal(ResultSchema, "record", r.EncodeInner()) }
