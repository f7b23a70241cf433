// Package filer defines the store-facing port the lifecycle engine needs:
// buckets, object versions, multipart uploads, the meta-log and small
// state files (cursors), as the Store interface, plus the capabilities only
// some stores have, each an interface of its own (ServerClock, MetaLogless,
// MetaLogRestarts, CASChecker). It holds types and interfaces only; concrete stores live in
// client/ and are injected, so core/ never imports a store
// (docs/architecture.md#store-capabilities).
package filer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Versioning is a bucket's S3 versioning state.
type Versioning string

// Bucket versioning states, spelled as S3's GetBucketVersioning returns them.
// VersioningOff is a bucket that never had versioning enabled.
const (
	VersioningOff       Versioning = ""
	VersioningEnabled   Versioning = "Enabled"
	VersioningSuspended Versioning = "Suspended"
)

// NullVersionID is the version ID S3 gives the null version (objects written
// while versioning was off or suspended).
const NullVersionID = "null"

// Bucket is one bucket with its lifecycle configuration.
type Bucket struct {
	Name       string
	Versioning Versioning
	ObjectLock bool
	// LifecycleXML is the raw S3 LifecycleConfiguration document; empty when
	// the bucket has no lifecycle configuration.
	LifecycleXML string
}

// Version is one object version (or delete marker) as the filer stores it.
type Version struct {
	VersionID    string // "null" for the null version
	IsLatest     bool
	DeleteMarker bool
	// MtimeNs is the version's creation time in Unix nanoseconds; it is also
	// the identity mtime passed to LifecycleDelete.
	MtimeNs int64
	Size    int64 // bytes; 0 for delete markers
	ETag    string
	Tags    map[string]string
	// NoncurrentSinceNs is the TsNs (Unix nanoseconds) of the meta-log event
	// that demoted this version; 0 when current or unknown (legacy entries),
	// (docs/design/daily-run.md#action-kinds).
	NoncurrentSinceNs int64
	// RetainUntil is the Object Lock retention date; zero when none.
	RetainUntil time.Time
	LegalHold   bool
	// StoreToken is store-specific identity evidence, opaque to core
	// (SeaweedFS: head file id + Extended hash); "" when the store has none.
	StoreToken string
}

// Identity returns the identity LifecycleDelete compares before deleting.
func (v Version) Identity() Identity {
	return Identity{VersionID: v.VersionID, MtimeNs: v.MtimeNs, Size: v.Size, ETag: v.ETag, StoreToken: v.StoreToken}
}

// Object is one key with all its versions, newest first (Versions[0] is the
// latest when the key has any version).
type Object struct {
	Key      string
	Versions []Version
	// Err is set, and Versions empty, when a listing could not read this
	// key's versions exactly; it is a *KeyError. The rest of the page is
	// still good: the pass halts only the shard that owns the key, or, for
	// ErrAmbiguousLayout, skips and reports the key.
	Err error
}

// ErrAmbiguousLayout is a key whose stored entries do not say which entry
// each version is, or in which order: two entries carry the same version
// ID (SeaweedFS's "null" in both <key> and <key>.versions/v_null), the
// store's latest-version markers contradict each other, or (s3://) a
// listing's order and LastModified seconds leave the versions' succession
// open. Which entry a delete would reach, or what a rule decides, cannot be
// known, so the key gets no lifecycle action and is reported; nothing else
// stops. The wrapping error says what was seen.
var ErrAmbiguousLayout = errors.New("ambiguous object layout")

// KeyError is a failure confined to one key: its entries could not be read
// exactly (ErrAmbiguousLayout, or a store's own unparseable-entry error).
// Retrying does not help, and it never fails more than the key's own shard.
type KeyError struct {
	Bucket string
	Key    string
	Err    error
}

func (e *KeyError) Error() string { return fmt.Sprintf("%s/%s: %v", e.Bucket, e.Key, e.Err) }
func (e *KeyError) Unwrap() error { return e.Err }

// AsKeyError returns err's *KeyError, nil when err is not confined to a key.
func AsKeyError(err error) *KeyError {
	var ke *KeyError
	if errors.As(err, &ke) {
		return ke
	}
	return nil
}

// Upload is one incomplete multipart upload.
type Upload struct {
	Key       string
	UploadID  string
	Initiated time.Time
}

// Identity is what a lifecycle delete expects the target to still be; a
// mismatch means the object changed since it was evaluated and the delete is
// NOOP_RESOLVED. For uploads only UploadID is compared.
type Identity struct {
	VersionID string
	MtimeNs   int64
	Size      int64
	ETag      string
	UploadID  string
	// StoreToken is Version.StoreToken as listed, passed back unchanged to
	// the store that issued it; core never reads it.
	StoreToken string
}

// Outcome is the server-side result of a LifecycleDelete
// (docs/design/daily-run.md#dispatch).
type Outcome string

// LifecycleDelete outcomes. Only Done, NoopResolved and SkippedObjectLock let
// a shard's cursor advance.
const (
	OutcomeDone              Outcome = "DONE"
	OutcomeNoopResolved      Outcome = "NOOP_RESOLVED"
	OutcomeSkippedObjectLock Outcome = "SKIPPED_OBJECT_LOCK"
	OutcomeRetryLater        Outcome = "RETRY_LATER"
	OutcomeBlocked           Outcome = "BLOCKED"
	// OutcomeStuck is a delete the store refused (NOOP_RESOLVED, a 412)
	// although a fresh read shows the target unchanged and the action still
	// due: nobody else resolved it, and repeating the same request would
	// refuse it again on every pass. It is an error, never a success.
	OutcomeStuck Outcome = "STUCK"
)

// String is the outcome's spelling in JSON, metrics and tables.
func (o Outcome) String() string { return string(o) }

// Completes reports whether the outcome lets the cursor move past the event.
func (o Outcome) Completes() bool {
	return o == OutcomeDone || o == OutcomeNoopResolved || o == OutcomeSkippedObjectLock
}

// DeleteRequest asks the filer to apply one lifecycle action. Kind is the
// action kind spelling of docs/design/daily-run.md#action-kinds (ExpirationDays, ExpirationDate,
// NoncurrentDays, NewerNoncurrent, AbortMPU, ExpiredDeleteMarker); the filer
// decides the effect from Kind and the bucket's versioning state (a delete
// marker for Expiration on a versioned bucket, a permanent version delete for
// noncurrent kinds, an upload abort for AbortMPU).
type DeleteRequest struct {
	Bucket   string
	Key      string
	Kind     ActionKind
	RuleID   string
	Expected Identity
	// Applies re-decides the action on a fresh read of the key: obj is the
	// key as the store reads it just before deleting (tags filled for
	// Versions[idx] when a tag filter needs them) and idx the version with
	// Expected's identity. It re-establishes every predicate the action was
	// chosen on (filter prefix, tags and size, latest or noncurrent
	// position, the successor's time, NewerNoncurrentVersions count, due
	// time) and returns false when the action no longer applies; another
	// rule of the bucket that selects the version for a delete of the same
	// effect, due at the pass clock, also applies. The pass decides at its
	// own instant (RunNow), not the store's.
	//
	// Identity and position alone cannot catch a predicate another change
	// to the key moved: a version's NewerNoncurrentVersions rank falls when
	// a newer noncurrent object version is deleted (by this pass under
	// another rule, or by a client) or the latest is removed, and a
	// successor can be replaced. So every store that can calls it after its
	// identity and position checks and answers NOOP_RESOLVED on false: the
	// embedded filer inside the delete's own transaction, s3:// on a fresh
	// listing before its If-Match delete. SeaweedFS's LifecycleDelete RPC
	// checks identity and position on the server and cannot call it
	// (docs/design/daily-run.md#dispatch). nil means no re-check was asked
	// for.
	Applies func(obj *Object, idx int) bool
}

// EventType says what a meta-log event changed.
type EventType string

// Meta-log event types.
const (
	EventPut       EventType = "put"        // a new version (or delete marker) became latest
	EventDemote    EventType = "demote"     // a version became noncurrent
	EventRemove    EventType = "remove"     // a version was removed
	EventMPUInit   EventType = "mpu_init"   // a multipart upload was initiated
	EventMPURemove EventType = "mpu_remove" // a multipart upload completed or was aborted
)

// Event is one meta-log entry.
type Event struct {
	TsNs      int64 // Unix nanoseconds; strictly increasing in meta-log order
	Type      EventType
	Bucket    string
	Key       string
	VersionID string // version events
	UploadID  string // upload events
	// Noncurrent, on an EventRemove, says the store knows the removed
	// version was noncurrent when it was removed, so the removal changed
	// nothing about the key's latest version but, when that is a delete
	// marker, whether it is now alone (an expired object delete marker).
	// false when the removed version was the latest or the store cannot
	// tell: SeaweedFS's meta-log removes a version file the same way
	// either way. Replay relies on it only to skip work
	// (docs/design/daily-run.md#replay).
	Noncurrent bool
	// Path is the bucket-relative path of the filer entry the event
	// changed when that is not Key: on SeaweedFS a version file
	// "<key>.versions/v_<id>", a ".versions" directory, an upload
	// directory ".uploads/<id>". SeaweedFS's own worker shards events by
	// it (weed/s3api/s3lifecycle/reader/reader.go); ilmctl's replay shards
	// by Key, so that one shard owns every target of a key.
	Path string
}

// ErrNotFound is returned by ReadFile when the path does not exist.
var ErrNotFound = errors.New("not found")

// ErrNoAnswer is a LifecycleDelete the server did not answer within the
// store's own deadline (the pass's context still live). It is a transport
// error: the pass retries it, then halts the shard. Whether the delete was
// applied is unknown; the next pass decides the key again, and the
// identity check makes a repeat NOOP_RESOLVED.
var ErrNoAnswer = errors.New("no answer from the server")

// DeleteTimeout is how long a networked store gives one LifecycleDelete
// (its fresh reads and its delete): each request takes milliseconds,
// seconds on a loaded server.
const DeleteTimeout = 2 * time.Minute

// WithDeleteDeadline runs call under a deadline of timeout (DeleteTimeout
// when 0). When call fails after that deadline passed while ctx is still
// live, the error is ErrNoAnswer, prefixed with what and the timeout: the
// store's own deadline is a transport error (retried, then the shard
// halts), never the pass's cancellation, which comes back as it is.
func WithDeleteDeadline[T any](ctx context.Context, timeout time.Duration, what string, call func(context.Context) (T, error)) (T, error) {
	if timeout <= 0 {
		timeout = DeleteTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := call(cctx)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		return v, fmt.Errorf("%s: %w after %s", what, ErrNoAnswer, timeout)
	}
	return v, err
}

// ErrTruncatedPage is returned when a listing says it is truncated but gives
// no continuation marker; such a page is never acted on (fail closed).
var ErrTruncatedPage = errors.New("listing page truncated without a continuation marker")

// Store is everything the lifecycle pass needs from a filer. Implementations
// must be safe for concurrent use by every shard goroutine.
type Store interface {
	// ListBuckets returns every bucket, sorted by name.
	ListBuckets(ctx context.Context) ([]Bucket, error)
	// ListObjects returns up to limit objects of bucket with key > startAfter,
	// in key order, each with all its versions newest first. next is the
	// last key returned when more remain, "" at the end.
	ListObjects(ctx context.Context, bucket, startAfter string, limit int) (objs []Object, next string, err error)
	// LookupObject returns one key's versions; found is false when the key
	// has no version.
	LookupObject(ctx context.Context, bucket, key string) (obj Object, found bool, err error)
	// ListUploads returns up to limit incomplete multipart uploads of bucket
	// ordered by (key, upload ID) after the opaque marker startAfter.
	ListUploads(ctx context.Context, bucket, startAfter string, limit int) (ups []Upload, next string, err error)
	// SubscribeMetadata calls fn for every meta-log event with
	// sinceNs < TsNs <= untilNs, in TsNs order, and returns once the log up
	// to untilNs has been delivered, fn returns an error, or ctx ends.
	SubscribeMetadata(ctx context.Context, sinceNs, untilNs int64, fn func(Event) error) error
	// LifecycleDelete applies one lifecycle action if the target still has
	// the expected identity. A non-nil error is a transport error (retried);
	// server-side refusals are outcomes.
	LifecycleDelete(ctx context.Context, req DeleteRequest) (Outcome, error)
	// ReadFile reads a small state file (cursor); ErrNotFound when absent.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// WriteFile replaces a small state file atomically.
	WriteFile(ctx context.Context, path string, data []byte) error
}

// ServerClock is a store whose server keeps its own clock (a live filer or
// S3 endpoint), as opposed to the embedded filer, whose clock is the pass
// clock. A pass reads the meta-log only up to the server's time and
// refuses a real pass dated ahead of it: a cursor must never claim events
// the server has not written yet (docs/design/daily-run.md#cursor).
type ServerClock interface {
	// ServerTime is the server's current time (seconds resolution at
	// least), read from a live request.
	ServerTime(ctx context.Context) (time.Time, error)
}

// Capabilities some stores have. Each is a small interface of its own; a
// caller asks for one with a type assertion on the Store it holds.

// MetaLogless is a store that keeps no meta-log (any S3 endpoint): its
// SubscribeMetadata delivers nothing, so replay can never find an object
// and a pass must walk every rule (docs/design/daily-run.md#engine-views).
type MetaLogless interface {
	// NoMetaLog reports that the store keeps no meta-log.
	NoMetaLog() bool
}

// HasMetaLog reports whether st keeps a meta-log a pass can replay: true
// unless st is a MetaLogless store that says it has none.
func HasMetaLog(st Store) bool {
	m, ok := st.(MetaLogless)
	return !ok || !m.NoMetaLog()
}

// MetaLogRestarts is a store whose meta-log can lose its newest events
// when the server process that writes it dies uncleanly: SeaweedFS's
// filer keeps up to a minute of events in memory before it persists them
// (docs/seaweedfs.md, Meta-log). No replay can decide an event that is
// gone, so a pass compares the writers it finds with those the shard's
// cursor knew, and walks every rule when one began since
// (docs/design/daily-run.md#filer-restarts).
type MetaLogRestarts interface {
	// MetaLogWriters lists the writers of the persisted meta-log from
	// about fromNs (Unix nanoseconds) on, in the order they first wrote.
	MetaLogWriters(ctx context.Context, fromNs int64) ([]MetaLogWriter, error)
}

// MetaLogWriter is one process that wrote the persisted meta-log.
type MetaLogWriter struct {
	// ID names the process; a restarted server writes under a new one.
	ID string
	// BeganByNs is a time (Unix nanoseconds) the process had begun by:
	// every event a process before it lost is stamped earlier.
	BeganByNs int64
	// Successor says another writer wrote before this one, so it may
	// have replaced a process that died: a first writer lost nothing.
	// FollowsListed says a file of another writer in the part of the log
	// listed comes before this one's first: a restart the listing shows,
	// not one that may lie before it.
	Successor     bool
	FollowsListed bool
}

// GroupCommitter is a store that commits concurrent deletes together (the
// embedded filer: one transaction, so one fsync, per group; s3://: one
// DeleteObjects request per group of a bucket). Deletes in flight cost it
// almost nothing while they wait, and more of them make bigger groups, so
// it asks a pass for more than a networked store's default
// (dailyrun.Config.InFlight).
type GroupCommitter interface {
	// DeletesInFlight is how many deletes each shard should keep in flight
	// when the operator did not choose.
	DeletesInFlight() int
}

// CASChecker is a store that can probe whether its server honours the
// identity condition a delete carries (If-Match on S3's DeleteObject):
// `ilmctl run --check-cas`.
type CASChecker interface {
	// CheckCAS returns a one-line finding when the server honours it and
	// an error saying what it does instead when it does not.
	CheckCAS(ctx context.Context) (finding string, err error)
}

// MinTime and MaxTime bound the times a TsNs (int64 Unix nanoseconds, never
// negative) can hold: 1970-01-01T00:00:00Z to 2262-04-11T23:47:16Z.
var (
	MinTime = time.Unix(0, 0).UTC()
	MaxTime = time.Unix(0, math.MaxInt64).UTC().Truncate(time.Second)
)

// CheckTime returns an error naming what when t cannot be stored as a TsNs.
func CheckTime(what string, t time.Time) error {
	if t.Before(MinTime) || t.After(MaxTime) {
		return fmt.Errorf("%s %s is outside %s..%s, the range of Unix-nanosecond times", what, t.Format(time.RFC3339), MinTime.Format(time.RFC3339), MaxTime.Format(time.RFC3339))
	}
	return nil
}
