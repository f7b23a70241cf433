package dailyrun

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// fakeStore is an in-memory filer.Store for unit tests of the pass alone.
// Deletes record the request, re-check what the embedded filer re-checks
// (identity, position, Applies: stillDue) and apply what the embedded
// filer applies (apply: delete markers, null versions, Object Lock at
// clockNs); outcomes and transport errors can be scripted. Uploads list in
// (key, upload ID) order. It passes the store contract the embedded
// filer passes (TestFakeStoreContract). Unlike a filer it logs none of
// the pass's own deletes as meta-log events; loggedStore does.
type fakeStore struct {
	mu      sync.Mutex
	buckets []filer.Bucket
	objects map[string]map[string]*filer.Object // bucket -> key -> object
	uploads map[string][]filer.Upload
	events  []filer.Event
	files   map[string][]byte

	deletes []filer.DeleteRequest
	// script returns a forced outcome/error for a request; ok=false lets
	// the default apply.
	script func(req filer.DeleteRequest, attempt int) (filer.Outcome, error, bool)
	tries  map[string]int
	// subscribed records each SubscribeMetadata (since, until).
	subscribed [][2]int64
	// listings counts ListObjects calls that start a bucket listing.
	listings int
	// listed records every key ListObjects returned, in order.
	listed []string
	// lookups counts LookupObject calls, lookedUp records their keys
	// (bucket/key).
	lookups  int
	lookedUp []string
	// keyErrs makes a key unreadable: ListObjects returns it with Err set
	// and LookupObject returns the error (bucket/key -> error).
	keyErrs map[string]error
	// listErrs makes every ListObjects of a bucket fail.
	listErrs map[string]error
	// beforeDelete runs inside LifecycleDelete, under the lock, before the
	// target is evaluated: a change made "between listing and delete".
	beforeDelete func(f *fakeStore, req filer.DeleteRequest)
	// pathEvents delivers version events as SeaweedFS's meta-log does, by
	// filer path: a put or removal at <key>.versions/v_<id>, and a demotion
	// twice, as the move of the <key>.versions pointer and as the
	// version's own noncurrent stamp, so one version's events reach
	// several shards (EventShard).
	pathEvents bool
	// clockNs is the store's clock: Object Lock retention is judged, and
	// the delete markers an expiration writes are stamped, at it.
	clockNs int64
}

func (f *fakeStore) keyErr(bucket, key string) error {
	if err := f.keyErrs[bucket+"/"+key]; err != nil {
		return &filer.KeyError{Bucket: bucket, Key: key, Err: err}
	}
	return nil
}

func newFakeStore() *fakeStore {
	return &fakeStore{objects: map[string]map[string]*filer.Object{}, uploads: map[string][]filer.Upload{},
		files: map[string][]byte{}, tries: map[string]int{}}
}

func (f *fakeStore) addBucket(name string, v filer.Versioning) {
	f.buckets = append(f.buckets, filer.Bucket{Name: name, Versioning: v})
	f.objects[name] = map[string]*filer.Object{}
}

// put adds a new latest version at mtime and logs its events (demotion of
// the previous latest at the same time).
func (f *fakeStore) put(bucket, key, vid string, mtime time.Time, size int64) {
	ns := mtime.UnixNano()
	obj := f.objects[bucket][key]
	if obj == nil {
		obj = &filer.Object{Key: key}
		f.objects[bucket][key] = obj
	}
	if len(obj.Versions) > 0 {
		obj.Versions[0].IsLatest = false
		obj.Versions[0].NoncurrentSinceNs = ns
		f.events = append(f.events, filer.Event{TsNs: ns, Type: filer.EventDemote, Bucket: bucket, Key: key, VersionID: obj.Versions[0].VersionID})
		ns++
	}
	v := filer.Version{VersionID: vid, IsLatest: true, MtimeNs: mtime.UnixNano(), Size: size, ETag: "etag-" + vid}
	obj.Versions = append([]filer.Version{v}, obj.Versions...)
	f.events = append(f.events, filer.Event{TsNs: ns, Type: filer.EventPut, Bucket: bucket, Key: key, VersionID: vid})
}

func (f *fakeStore) ListBuckets(context.Context) ([]filer.Bucket, error) { return f.buckets, nil }

func (f *fakeStore) ListObjects(_ context.Context, bucket, after string, limit int) ([]filer.Object, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if after == "" {
		f.listings++
	}
	if err := f.listErrs[bucket]; err != nil {
		return nil, "", err
	}
	var keys []string
	for k := range f.objects[bucket] {
		if k > after {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	next := ""
	if len(keys) > limit {
		keys = keys[:limit]
		next = keys[limit-1]
	}
	var out []filer.Object
	for _, k := range keys {
		if err := f.keyErr(bucket, k); err != nil {
			out = append(out, filer.Object{Key: k, Err: err})
			continue
		}
		f.listed = append(f.listed, k)
		o := *f.objects[bucket][k]
		o.Versions = append([]filer.Version(nil), o.Versions...)
		out = append(out, o)
	}
	return out, next, nil
}

func (f *fakeStore) LookupObject(_ context.Context, bucket, key string) (filer.Object, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	f.lookedUp = append(f.lookedUp, bucket+"/"+key)
	if err := f.keyErr(bucket, key); err != nil {
		return filer.Object{}, false, err
	}
	o, ok := f.objects[bucket][key]
	if !ok || len(o.Versions) == 0 {
		return filer.Object{}, false, nil
	}
	c := *o
	c.Versions = append([]filer.Version(nil), o.Versions...)
	return c, true, nil
}

func (f *fakeStore) ListUploads(_ context.Context, bucket, after string, limit int) ([]filer.Upload, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// Ordered by (key, upload ID), as the Store contract says and the
	// embedded filer lists: a marker is a position in that order.
	var out []filer.Upload
	for _, u := range f.uploads[bucket] {
		if u.Key+"\x00"+u.UploadID > after {
			out = append(out, u)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].UploadID < out[j].UploadID
	})
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].Key + "\x00" + out[limit-1].UploadID
	}
	return out, next, nil
}

func (f *fakeStore) SubscribeMetadata(ctx context.Context, since, until int64, fn func(filer.Event) error) error {
	f.mu.Lock()
	f.subscribed = append(f.subscribed, [2]int64{since, until})
	evs := append([]filer.Event(nil), f.events...)
	f.mu.Unlock()
	sort.Slice(evs, func(i, j int) bool { return evs[i].TsNs < evs[j].TsNs })
	for _, ev := range evs {
		if ev.TsNs <= since || ev.TsNs > until {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, e := range f.delivered(ev) {
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// delivered is ev as the store's meta-log delivers it (see pathEvents).
func (f *fakeStore) delivered(ev filer.Event) []filer.Event {
	if !f.pathEvents || ev.VersionID == "" || ev.Path != "" {
		return []filer.Event{ev}
	}
	own := ev
	own.Path = ev.Key + ".versions/v_" + ev.VersionID
	if ev.Type != filer.EventDemote {
		return []filer.Event{own}
	}
	pointer := ev
	pointer.Path = ev.Key + ".versions"
	return []filer.Event{pointer, own}
}

func (f *fakeStore) LifecycleDelete(_ context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := req.Bucket + "/" + req.Key + "/" + req.Expected.VersionID + req.Expected.UploadID
	f.tries[id]++
	if f.script != nil {
		if out, err, ok := f.script(req, f.tries[id]); ok {
			return out, err
		}
	}
	if f.beforeDelete != nil {
		f.beforeDelete(f, req)
	}
	f.deletes = append(f.deletes, req)
	if req.Expected.UploadID != "" {
		ups := f.uploads[req.Bucket]
		for i, u := range ups {
			if u.UploadID == req.Expected.UploadID {
				f.uploads[req.Bucket] = append(ups[:i:i], ups[i+1:]...)
				return filer.OutcomeDone, nil
			}
		}
		return filer.OutcomeNoopResolved, nil
	}
	o := f.objects[req.Bucket][req.Key]
	if o == nil {
		return filer.OutcomeNoopResolved, nil
	}
	i := slices.IndexFunc(o.Versions, func(v filer.Version) bool { return v.Identity() == req.Expected })
	if i < 0 || !stillDue(req, o, i) {
		return filer.OutcomeNoopResolved, nil
	}
	return f.apply(req, o, i, func() int64 { return f.clockNs }, nil), nil
}

// apply applies a delete of o.Versions[i] that passed its re-checks, as
// the embedded filer and S3 do: Expiration of the latest version in a
// versioned bucket writes a delete marker above it (under Suspended a
// null one, replacing the null version), any other delete removes the
// version, and when that was the latest the one beneath is latest again.
// A permanent delete Object Lock forbids at clockNs is
// SKIPPED_OBJECT_LOCK. stamp is the time of each change in turn; log, when
// set, records each change as the meta-log event a filer would write.
func (f *fakeStore) apply(req filer.DeleteRequest, o *filer.Object, i int, stamp func() int64, log func(filer.Event)) filer.Outcome {
	if log == nil {
		log = func(filer.Event) {}
	}
	vs := f.versioning(req.Bucket)
	v := o.Versions[i]
	expire := req.Kind == lifecycle.ExpirationDays || req.Kind == lifecycle.ExpirationDate
	if expire && v.IsLatest && !v.DeleteMarker && vs != filer.VersioningOff {
		markerID := "dm-" + v.VersionID // the same in every world that expires v
		if vs == filer.VersioningSuspended {
			markerID = filer.NullVersionID
			if n := slices.IndexFunc(o.Versions, func(v filer.Version) bool { return v.VersionID == filer.NullVersionID }); n >= 0 {
				if f.locked(o.Versions[n]) {
					return filer.OutcomeSkippedObjectLock
				}
				log(filer.Event{TsNs: stamp(), Type: filer.EventRemove, Bucket: req.Bucket, Key: req.Key,
					VersionID: filer.NullVersionID, Noncurrent: n != 0})
				o.Versions = slices.Delete(o.Versions, n, n+1)
			}
		}
		if len(o.Versions) > 0 && o.Versions[0].IsLatest {
			ts := stamp()
			o.Versions[0].IsLatest, o.Versions[0].NoncurrentSinceNs = false, ts
			log(filer.Event{TsNs: ts, Type: filer.EventDemote, Bucket: req.Bucket, Key: req.Key, VersionID: o.Versions[0].VersionID})
		}
		ts := stamp()
		dm := filer.Version{VersionID: markerID, IsLatest: true, DeleteMarker: true, MtimeNs: ts}
		o.Versions = append([]filer.Version{dm}, o.Versions...)
		log(filer.Event{TsNs: ts, Type: filer.EventPut, Bucket: req.Bucket, Key: req.Key, VersionID: markerID})
		return filer.OutcomeDone
	}
	if f.locked(v) {
		return filer.OutcomeSkippedObjectLock
	}
	log(filer.Event{TsNs: stamp(), Type: filer.EventRemove, Bucket: req.Bucket, Key: req.Key,
		VersionID: v.VersionID, Noncurrent: !v.IsLatest})
	o.Versions = slices.Delete(o.Versions, i, i+1)
	switch {
	case len(o.Versions) == 0:
		delete(f.objects[req.Bucket], req.Key)
	case v.IsLatest:
		o.Versions[0].IsLatest, o.Versions[0].NoncurrentSinceNs = true, 0
	}
	return filer.OutcomeDone
}

// locked reports whether Object Lock forbids permanently deleting v at
// the store's clock, as the embedded filer judges it.
func (f *fakeStore) locked(v filer.Version) bool {
	return v.LegalHold || v.RetainUntil.After(time.Unix(0, f.clockNs))
}

// versioning is bucket's versioning state.
func (f *fakeStore) versioning(bucket string) filer.Versioning {
	for _, b := range f.buckets {
		if b.Name == bucket {
			return b.Versioning
		}
	}
	return filer.VersioningOff
}

// stillDue re-checks a delete of o.Versions[i], which has the expected
// identity, as the embedded filer does in its transaction: the target in
// the position its kind requires (the latest, not a marker, for
// Expiration; noncurrent for NoncurrentDays and NewerNoncurrent; a lone
// marker for ExpiredDeleteMarker), then req.Applies on the key as held
// now (docs/design/daily-run.md#dispatch).
func stillDue(req filer.DeleteRequest, o *filer.Object, i int) bool {
	switch req.Kind {
	case lifecycle.ExpirationDays, lifecycle.ExpirationDate:
		if i != 0 || o.Versions[0].DeleteMarker {
			return false
		}
	case lifecycle.NoncurrentDays, lifecycle.NewerNoncurrent:
		if i == 0 {
			return false
		}
	case lifecycle.ExpiredDeleteMarker:
		if len(o.Versions) != 1 || !o.Versions[0].DeleteMarker {
			return false
		}
	default:
		return false
	}
	if req.Applies == nil {
		return true
	}
	c := *o
	c.Versions = append([]filer.Version(nil), o.Versions...)
	return req.Applies(&c, i)
}

func (f *fakeStore) ReadFile(_ context.Context, path string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[path]
	if !ok {
		return nil, filer.ErrNotFound
	}
	return b, nil
}

func (f *fakeStore) WriteFile(ctx context.Context, path string, data []byte) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = append([]byte(nil), data...)
	return nil
}

// remaining lists "bucket/key@version" for every version left, sorted.
func (f *fakeStore) remaining() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for b, objs := range f.objects {
		for k, o := range objs {
			for _, v := range o.Versions {
				out = append(out, b+"/"+k+"@"+v.VersionID)
			}
		}
	}
	for b, ups := range f.uploads {
		for _, u := range ups {
			out = append(out, b+"/"+u.Key+"#"+u.UploadID)
		}
	}
	sort.Strings(out)
	return out
}

func (f *fakeStore) deleted() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, d := range f.deletes {
		out = append(out, string(d.Kind)+":"+d.Key)
	}
	return strings.Join(out, ",")
}

var errTransport = errors.New("connection reset")
