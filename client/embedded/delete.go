package embedded

import (
	"context"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// LifecycleDelete applies one lifecycle action if its target still has the
// expected identity (version ID, mtime, size, ETag; upload ID for AbortMPU),
// is in the position its kind requires, and is still selected by
// req.Applies, when set, on the key as the transaction reads it. The
// checks and the change, with its meta-log events, are applied in one
// write transaction, committed together with the deletes other callers
// made meanwhile (see groupCommit) and durable before LifecycleDelete
// returns. Refusals are outcomes; the error is non-nil only for I/O
// failures and a cancelled ctx. Per kind:
//
//   - ExpirationDays, ExpirationDate: the latest version, not a delete
//     marker. Enabled adds a delete marker and demotes the old latest;
//     Suspended replaces the null version with a null delete marker
//     (demoting a non-null latest); Off deletes the object.
//   - NoncurrentDays, NewerNoncurrent: a noncurrent version, deleted
//     permanently.
//   - ExpiredDeleteMarker: a delete marker that is the key's only version.
//   - AbortMPU: the upload Expected.UploadID of Key.
//
// A stale or missing target is NOOP_RESOLVED. A permanent delete of a version
// under legal hold or unexpired retention is SKIPPED_OBJECT_LOCK (adding a
// delete marker is allowed, as in S3). An unknown kind or versioning state is
// BLOCKED: fail closed.
func (f *Filer) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if f.hook != nil {
		if out, err, handled := f.hook(req); handled {
			return out, err
		}
	}
	if !knownKind(req.Kind) {
		return filer.OutcomeBlocked, nil
	}
	return f.deletes.submit(ctx, req)
}

func knownKind(k lifecycle.ActionKind) bool {
	switch k {
	case lifecycle.ExpirationDays, lifecycle.ExpirationDate, lifecycle.NoncurrentDays,
		lifecycle.NewerNoncurrent, lifecycle.AbortMPU, lifecycle.ExpiredDeleteMarker:
		return true
	}
	return false
}

// mutation is one LifecycleDelete inside its write transaction. Nothing is
// written unless the outcome is DONE.
type mutation struct {
	tx     *bolt.Tx
	now    time.Time
	bucket string
	key    string
	// buckets caches the bucket records this transaction read (a group
	// commit applies many deletes in one; nothing in it changes a bucket
	// record); nil reads every time.
	buckets map[string]bucketRecord
}

func (m *mutation) apply(req filer.DeleteRequest) (filer.Outcome, error) {
	b, ok, err := m.bucketRecord(req.Bucket)
	if err != nil || !ok {
		return filer.OutcomeNoopResolved, err // a deleted bucket has nothing left to expire
	}
	if req.Kind == lifecycle.AbortMPU {
		return m.abortUpload(req.Expected.UploadID)
	}
	obj, err := m.load()
	if err != nil || len(obj.Versions) == 0 {
		return filer.OutcomeNoopResolved, err
	}
	switch req.Kind {
	case lifecycle.ExpirationDays, lifecycle.ExpirationDate:
		return m.expireLatest(b.Versioning, obj, req)
	case lifecycle.NoncurrentDays, lifecycle.NewerNoncurrent:
		return m.expireNoncurrent(obj, req)
	case lifecycle.ExpiredDeleteMarker:
		return m.removeLoneDeleteMarker(obj, req)
	}
	return filer.OutcomeBlocked, nil
}

func (m *mutation) expireLatest(vs filer.Versioning, obj objectRecord, req filer.DeleteRequest) (filer.Outcome, error) {
	latest := obj.Versions[0]
	if latest.DeleteMarker || !latest.matches(req.Expected) || !m.applies(req, obj, 0) {
		return filer.OutcomeNoopResolved, nil
	}
	switch vs {
	case filer.VersioningEnabled:
		return m.pushDeleteMarker(obj, m.freshVersionID(obj), true)
	case filer.VersioningSuspended:
		// S3: a delete under Suspended writes a null delete marker, which
		// replaces any existing null version permanently.
		i := slices.IndexFunc(obj.Versions, func(v versionRecord) bool { return v.VersionID == filer.NullVersionID })
		if i >= 0 {
			if obj.Versions[i].locked(m.now) {
				return filer.OutcomeSkippedObjectLock, nil
			}
			if err := m.removal(filer.NullVersionID, i != 0); err != nil {
				return "", err
			}
			obj.Versions = slices.Delete(obj.Versions, i, i+1)
		}
		// When the null version was the latest it is gone; what now heads
		// the list was already noncurrent and is not demoted again.
		return m.pushDeleteMarker(obj, filer.NullVersionID, i != 0)
	case filer.VersioningOff:
		if latest.locked(m.now) {
			return filer.OutcomeSkippedObjectLock, nil
		}
		return m.removeAt(obj, 0)
	}
	return filer.OutcomeBlocked, nil // unknown versioning state: fail closed
}

// pushDeleteMarker makes a new delete marker the latest version (EventPut)
// and, when demote is set, demotes obj.Versions[0], the previous latest
// (EventDemote, whose TsNs becomes its NoncurrentSinceNs).
func (m *mutation) pushDeleteMarker(obj objectRecord, versionID string, demote bool) (filer.Outcome, error) {
	dm := versionRecord{VersionID: versionID, DeleteMarker: true, MtimeNs: m.now.UnixNano()}
	if err := m.event(filer.EventPut, versionID); err != nil {
		return "", err
	}
	if demote && len(obj.Versions) > 0 {
		ts, err := m.eventTs(filer.EventDemote, obj.Versions[0].VersionID)
		if err != nil {
			return "", err
		}
		obj.Versions[0].NoncurrentSinceNs = ts
	}
	obj.Versions = append([]versionRecord{dm}, obj.Versions...)
	return filer.OutcomeDone, m.store(obj)
}

func (m *mutation) expireNoncurrent(obj objectRecord, req filer.DeleteRequest) (filer.Outcome, error) {
	want := req.Expected
	i := slices.IndexFunc(obj.Versions, func(v versionRecord) bool { return v.VersionID == want.VersionID })
	if i <= 0 || !obj.Versions[i].matches(want) || !m.applies(req, obj, i) {
		return filer.OutcomeNoopResolved, nil // gone, now the latest, changed, or no longer selected
	}
	if obj.Versions[i].locked(m.now) {
		return filer.OutcomeSkippedObjectLock, nil
	}
	return m.removeAt(obj, i)
}

func (m *mutation) removeLoneDeleteMarker(obj objectRecord, req filer.DeleteRequest) (filer.Outcome, error) {
	if len(obj.Versions) != 1 || !obj.Versions[0].DeleteMarker || !obj.Versions[0].matches(req.Expected) || !m.applies(req, obj, 0) {
		return filer.OutcomeNoopResolved, nil
	}
	return m.removeAt(obj, 0)
}

// applies is req.Applies on the key as this transaction holds it, after
// the target's identity and position were checked: the re-decision and
// the delete see the same state, so nothing can change between them. It
// catches what identity and position cannot, a predicate moved by another
// change to the key: a NewerNoncurrentVersions rank lowered by the delete
// of a newer noncurrent version (this pass's own, under another rule, or
// a client's), or a successor replaced (docs/design/daily-run.md#dispatch).
// A request without Applies is decided on identity and position alone.
func (m *mutation) applies(req filer.DeleteRequest, obj objectRecord, idx int) bool {
	if req.Applies == nil {
		return true
	}
	o := obj.toObject(m.key)
	return req.Applies(&o, idx)
}

func (m *mutation) removeAt(obj objectRecord, i int) (filer.Outcome, error) {
	if err := m.removal(obj.Versions[i].VersionID, i != 0); err != nil {
		return "", err
	}
	obj.Versions = slices.Delete(obj.Versions, i, i+1)
	return filer.OutcomeDone, m.store(obj)
}

func (m *mutation) abortUpload(uploadID string) (filer.Outcome, error) {
	b := uploadsOf(m.tx, m.bucket)
	k := uploadKey(m.key, uploadID)
	if uploadID == "" || b == nil || b.Get(k) == nil {
		return filer.OutcomeNoopResolved, nil
	}
	if err := b.Delete(k); err != nil {
		return "", err
	}
	ts := nextTsNs(m.tx, m.now.UnixNano())
	err := putEvent(m.tx, filer.Event{TsNs: ts, Type: filer.EventMPURemove, Bucket: m.bucket, Key: m.key, UploadID: uploadID})
	if err != nil {
		return "", err
	}
	return filer.OutcomeDone, nil
}

// freshVersionID derives a delete marker's version ID from the TsNs its
// EventPut will get, which is unique in the log; the loop only guards
// against a fixture that happened to use the same spelling.
func (m *mutation) freshVersionID(obj objectRecord) string {
	ts := nextTsNs(m.tx, m.now.UnixNano())
	for n := 0; ; n++ {
		id := fmt.Sprintf("dm%016x", ts)
		if n > 0 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		if !slices.ContainsFunc(obj.Versions, func(v versionRecord) bool { return v.VersionID == id }) {
			return id
		}
	}
}

func (m *mutation) load() (objectRecord, error) {
	var obj objectRecord
	b := objectsOf(m.tx, m.bucket)
	if b == nil {
		return obj, nil
	}
	raw := b.Get([]byte(m.key))
	if raw == nil {
		return obj, nil
	}
	return obj, decode("object "+m.bucket+"/"+m.key, raw, &obj)
}

// store writes obj back, deleting the key when no version is left.
func (m *mutation) store(obj objectRecord) error {
	b := objectsOf(m.tx, m.bucket)
	if b == nil {
		return fmt.Errorf("embedded filer: bucket %q has no object index", m.bucket)
	}
	if len(obj.Versions) == 0 {
		return b.Delete([]byte(m.key))
	}
	raw, err := encode(obj)
	if err != nil {
		return err
	}
	return b.Put([]byte(m.key), raw)
}

func (m *mutation) event(t filer.EventType, versionID string) error {
	_, err := m.eventTs(t, versionID)
	return err
}

// removal logs the removal of versionID, which was noncurrent unless it
// was the latest (filer.Event.Noncurrent).
func (m *mutation) removal(versionID string, noncurrent bool) error {
	ts := nextTsNs(m.tx, m.now.UnixNano())
	return putEvent(m.tx, filer.Event{TsNs: ts, Type: filer.EventRemove, Bucket: m.bucket, Key: m.key, VersionID: versionID, Noncurrent: noncurrent})
}

func (m *mutation) eventTs(t filer.EventType, versionID string) (int64, error) {
	ts := nextTsNs(m.tx, m.now.UnixNano())
	ev := filer.Event{TsNs: ts, Type: t, Bucket: m.bucket, Key: m.key, VersionID: versionID}
	return ts, putEvent(m.tx, ev)
}

// bucketRecord is getBucket through m.buckets.
func (m *mutation) bucketRecord(name string) (bucketRecord, bool, error) {
	if b, ok := m.buckets[name]; ok {
		return b, true, nil
	}
	b, ok, err := getBucket(m.tx, name)
	if err == nil && ok && m.buckets != nil {
		m.buckets[name] = b
	}
	return b, ok, err
}
