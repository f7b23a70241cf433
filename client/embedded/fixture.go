package embedded

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// Fixture is the JSON document LoadFixture reads. Unknown fields are
// rejected. Per bucket:
//
//   - versioning: "Enabled", "Suspended", or "Off" / "" (never enabled).
//   - objects[].versions are listed OLDEST first; the last is the latest.
//     mtimes must be strictly increasing within a key.
//   - version_id: omitted → a stable ID derived from bucket, key and index
//     ("null" in an unversioned bucket); JSON null or "null" → the null
//     version. Unique per key.
//   - etag: omitted on an object version → a deterministic 32-hex value
//     derived from bucket, key, version ID and mtime. Delete markers have no
//     etag and size 0.
//   - retain_until / legal_hold: only in buckets with object_lock: true,
//     never on delete markers.
//   - An unversioned bucket holds exactly one null, non-delete-marker
//     version per key.
type Fixture struct {
	Buckets []FixtureBucket `json:"buckets"`
}

// FixtureBucket is one bucket of a Fixture.
type FixtureBucket struct {
	Name         string          `json:"name"`
	Versioning   string          `json:"versioning"`
	ObjectLock   bool            `json:"object_lock"`
	LifecycleXML string          `json:"lifecycle_xml"`
	Objects      []FixtureObject `json:"objects"`
	Uploads      []FixtureUpload `json:"uploads"`
}

// FixtureObject is one key with its versions, oldest first.
type FixtureObject struct {
	Key      string           `json:"key"`
	Versions []FixtureVersion `json:"versions"`
}

// FixtureVersion is one object version or delete marker.
type FixtureVersion struct {
	VersionID    FixtureVersionID  `json:"version_id"`
	Mtime        time.Time         `json:"mtime"`
	Size         int64             `json:"size"`
	ETag         string            `json:"etag"`
	Tags         map[string]string `json:"tags"`
	DeleteMarker bool              `json:"delete_marker"`
	RetainUntil  time.Time         `json:"retain_until"`
	LegalHold    bool              `json:"legal_hold"`
	// InternalMetadata is the version's internal metadata (keys under
	// x-rustfs-internal- or x-minio-internal-), e.g. a transition tuple;
	// never on delete markers. It loads at generation 1.
	InternalMetadata map[string]string `json:"internal_metadata"`
}

// FixtureVersionID tells an omitted version_id (generate one) from JSON
// null (the null version).
type FixtureVersionID struct {
	Set bool   // the field was present
	ID  string // "null" for JSON null
}

// UnmarshalJSON implements json.Unmarshaler; it is called for null too.
func (v *FixtureVersionID) UnmarshalJSON(b []byte) error {
	v.Set = true
	if string(b) == "null" {
		v.ID = filer.NullVersionID
		return nil
	}
	return json.Unmarshal(b, &v.ID)
}

// FixtureUpload is one incomplete multipart upload.
type FixtureUpload struct {
	UploadID  string    `json:"upload_id"`
	Key       string    `json:"key"`
	Initiated time.Time `json:"initiated"`
}

// FixtureSummary counts what LoadFixture wrote.
type FixtureSummary struct {
	Buckets  int
	Objects  int
	Versions int
	Uploads  int
	Events   int
	// Rejected lists, in fixture order, the buckets whose lifecycle_xml
	// the lifecycle parser rejects. Their documents are stored as given,
	// like every other; a pass reports each such bucket and takes no
	// action on it.
	Rejected []RejectedLifecycle
}

// RejectedLifecycle is a bucket whose lifecycle document lifecycle.Parse
// rejects, with its verdict (a *lifecycle.Error).
type RejectedLifecycle struct {
	Bucket string
	Err    error
}

// ErrBucketExists is returned when a fixture names a bucket the filer
// already holds.
var ErrBucketExists = errors.New("bucket already exists")

// LoadFixture decodes a Fixture from r, validates it, and writes its
// buckets, versions, uploads and meta-log history in one transaction: on
// any error the filer is unchanged.
//
// The meta-log gets the history the fixture implies: EventPut at each
// version's mtime, EventDemote of its predecessor at the same instant (the
// demoted version's NoncurrentSinceNs is that event's TsNs) and
// EventMPUInit at each upload's initiated time. Colliding TsNs are bumped
// by 1ns so they stay unique. Load into a fresh filer: events land at their
// mtimes, possibly before events already in the log.
//
// LoadFixture writes into this open filer; Load is what "ilmctl filer
// load" uses, which also creates a new filer all or nothing.
func (f *Filer) LoadFixture(ctx context.Context, r io.Reader) (FixtureSummary, error) {
	p, err := decodeFixture(r)
	if err != nil {
		return FixtureSummary{}, err
	}
	return p.commit(ctx, f.db, nil)
}

// decodeFixture reads and validates a fixture; it touches no disk.
func decodeFixture(r io.Reader) (*fixturePlan, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var fx Fixture
	if err := dec.Decode(&fx); err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("fixture: trailing data after the top-level object: a fixture is one JSON object")
	}
	p, err := planFixture(fx)
	if err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	return p, nil
}

// commit writes the plan into db in one write transaction, so bbolt's
// commit makes it all or nothing, a crash included. hook (a test seam, see
// LoadOptions.Hook) runs after each bucket is written.
func (p *fixturePlan) commit(ctx context.Context, db *bolt.DB, hook func(LoadPoint) error) (FixtureSummary, error) {
	err := db.Update(func(tx *bolt.Tx) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return p.write(tx, hook)
	})
	if err != nil {
		return FixtureSummary{}, fmt.Errorf("fixture: %w", err)
	}
	return p.summary, nil
}

// fixturePlan is a validated fixture ready to write.
type fixturePlan struct {
	buckets []plannedBucket
	events  []plannedEvent
	summary FixtureSummary
}

type plannedBucket struct {
	name    string
	rec     bucketRecord
	objects []plannedObject
	uploads []FixtureUpload
}

type plannedObject struct {
	key string
	rec objectRecord // versions newest first
}

// plannedEvent is a meta-log event wanted at atNs; demoted, when set, gets
// the TsNs finally assigned.
type plannedEvent struct {
	atNs    int64
	seq     int
	ev      filer.Event
	demoted *versionRecord
}

func planFixture(fx Fixture) (*fixturePlan, error) {
	p := &fixturePlan{}
	seen := map[string]bool{}
	for bi, fb := range fx.Buckets {
		if fb.Name == "" {
			return nil, fmt.Errorf("buckets[%d]: name is required", bi)
		}
		if seen[fb.Name] {
			return nil, fmt.Errorf("bucket %q: listed twice", fb.Name)
		}
		seen[fb.Name] = true
		pb, err := p.planBucket(fb)
		if err != nil {
			return nil, fmt.Errorf("bucket %q: %w", fb.Name, err)
		}
		p.buckets = append(p.buckets, pb)
	}
	// Demote pointers stay valid: every objects slice is complete before
	// its events are planned, and none is appended to afterwards.
	p.summary.Buckets = len(p.buckets)
	p.summary.Events = len(p.events)
	return p, nil
}

func (p *fixturePlan) planBucket(fb FixtureBucket) (plannedBucket, error) {
	pb := plannedBucket{name: fb.Name, rec: bucketRecord{ObjectLock: fb.ObjectLock, LifecycleXML: fb.LifecycleXML}}
	switch fb.Versioning {
	case "", "Off":
		pb.rec.Versioning = filer.VersioningOff
	case "Enabled":
		pb.rec.Versioning = filer.VersioningEnabled
	case "Suspended":
		pb.rec.Versioning = filer.VersioningSuspended
	default:
		return pb, fmt.Errorf("versioning %q: use \"Enabled\", \"Suspended\" or \"Off\"", fb.Versioning)
	}
	if err := lifecycleVerdict(fb.LifecycleXML); err != nil {
		p.summary.Rejected = append(p.summary.Rejected, RejectedLifecycle{Bucket: fb.Name, Err: err})
	}
	keys := map[string]bool{}
	pb.objects = make([]plannedObject, len(fb.Objects))
	for i, fo := range fb.Objects {
		if fo.Key == "" {
			return pb, fmt.Errorf("objects[%d]: key is required", i)
		}
		if keys[fo.Key] {
			return pb, fmt.Errorf("object %q: listed twice", fo.Key)
		}
		keys[fo.Key] = true
		rec, err := planVersions(fb, fo)
		if err != nil {
			return pb, fmt.Errorf("object %q: %w", fo.Key, err)
		}
		pb.objects[i] = plannedObject{key: fo.Key, rec: rec}
		p.summary.Objects++
		p.summary.Versions += len(rec.Versions)
	}
	for i := range pb.objects {
		p.planVersionEvents(fb.Name, &pb.objects[i])
	}
	ups := map[string]bool{}
	for i, u := range fb.Uploads {
		switch {
		case u.Key == "":
			return pb, fmt.Errorf("uploads[%d]: key is required", i)
		case u.UploadID == "":
			return pb, fmt.Errorf("upload of %q: upload_id is required", u.Key)
		case u.Initiated.IsZero():
			return pb, fmt.Errorf("upload %q of %q: initiated is required (RFC3339)", u.UploadID, u.Key)
		case ups[u.Key+"\x00"+u.UploadID]:
			return pb, fmt.Errorf("upload %q of %q: listed twice", u.UploadID, u.Key)
		}
		if err := filer.CheckTime("initiated", u.Initiated); err != nil {
			return pb, fmt.Errorf("upload %q of %q: %w", u.UploadID, u.Key, err)
		}
		ups[u.Key+"\x00"+u.UploadID] = true
		p.add(u.Initiated.UnixNano(), filer.Event{Type: filer.EventMPUInit, Bucket: fb.Name, Key: u.Key, UploadID: u.UploadID}, nil)
	}
	pb.uploads = fb.Uploads
	p.summary.Uploads += len(fb.Uploads)
	return pb, nil
}

// planVersions validates one key's versions (oldest first) and returns them
// newest first.
func planVersions(fb FixtureBucket, fo FixtureObject) (objectRecord, error) {
	n := len(fo.Versions)
	if n == 0 {
		return objectRecord{}, errors.New("versions: at least one version is required")
	}
	unversioned := fb.Versioning == "" || fb.Versioning == "Off"
	if unversioned && n != 1 {
		return objectRecord{}, fmt.Errorf("versions: an unversioned bucket holds one version per key, got %d", n)
	}
	rec := objectRecord{Versions: make([]versionRecord, n)}
	ids := map[string]bool{}
	for i, fv := range fo.Versions {
		where := fmt.Sprintf("versions[%d]", i)
		if fv.Mtime.IsZero() {
			return rec, fmt.Errorf("%s: mtime is required (RFC3339)", where)
		}
		if err := filer.CheckTime("mtime", fv.Mtime); err != nil {
			return rec, fmt.Errorf("%s: %w", where, err)
		}
		if i > 0 && !fv.Mtime.After(fo.Versions[i-1].Mtime) {
			return rec, fmt.Errorf("%s: mtime %s is not after the previous version's %s: list versions oldest first with strictly increasing mtimes",
				where, fv.Mtime.Format(time.RFC3339Nano), fo.Versions[i-1].Mtime.Format(time.RFC3339Nano))
		}
		id := fv.VersionID.ID
		switch {
		case !fv.VersionID.Set && unversioned:
			id = filer.NullVersionID
		case !fv.VersionID.Set:
			id = derive(fb.Name, fo.Key, strconv.Itoa(i))[:16]
		case id == "":
			return rec, fmt.Errorf("%s: version_id is empty: omit it, or use null for the null version", where)
		}
		if unversioned && id != filer.NullVersionID {
			return rec, fmt.Errorf("%s: version_id %q in an unversioned bucket: omit it or use null", where, id)
		}
		if ids[id] {
			return rec, fmt.Errorf("%s: version_id %q is used twice", where, id)
		}
		ids[id] = true
		v := versionRecord{
			VersionID:    id,
			DeleteMarker: fv.DeleteMarker,
			MtimeNs:      fv.Mtime.UnixNano(),
			Size:         fv.Size,
			ETag:         fv.ETag,
			Tags:         fv.Tags,
			RetainUntil:  fv.RetainUntil.UTC(),
			LegalHold:    fv.LegalHold,
		}
		if fv.RetainUntil.IsZero() {
			v.RetainUntil = time.Time{}
		}
		if err := planInternalMetadata(&v, fv.InternalMetadata); err != nil {
			return rec, fmt.Errorf("%s (%s): %w", where, id, err)
		}
		if err := checkVersion(fb, v); err != nil {
			return rec, fmt.Errorf("%s (%s): %w", where, id, err)
		}
		if !v.DeleteMarker && v.ETag == "" {
			v.ETag = derive(fb.Name, fo.Key, id, strconv.FormatInt(v.MtimeNs, 10))[:32]
		}
		rec.Versions[n-1-i] = v
	}
	return rec, nil
}

func checkVersion(fb FixtureBucket, v versionRecord) error {
	locked := v.LegalHold || !v.RetainUntil.IsZero()
	switch {
	case v.Size < 0:
		return fmt.Errorf("size %d is negative", v.Size)
	case v.DeleteMarker && (v.Size != 0 || v.ETag != "" || len(v.Tags) > 0):
		return errors.New("a delete marker has no size, etag or tags")
	case v.DeleteMarker && locked:
		return errors.New("a delete marker cannot carry retain_until or legal_hold")
	case v.DeleteMarker && (fb.Versioning == "" || fb.Versioning == "Off"):
		return errors.New("an unversioned bucket has no delete markers")
	case locked && !fb.ObjectLock:
		return errors.New("retain_until/legal_hold need \"object_lock\": true on the bucket")
	}
	for k := range v.Tags {
		if k == "" {
			return errors.New("tags: empty tag key")
		}
	}
	return nil
}

// planVersionEvents plans EventPut for every version at its mtime and
// EventDemote for its predecessor at the same instant, ordered after the
// put. obj's versions are newest first.
func (p *fixturePlan) planVersionEvents(bucket string, obj *plannedObject) {
	vs := obj.rec.Versions
	for i := len(vs) - 1; i >= 0; i-- {
		v := &vs[i]
		p.add(v.MtimeNs, filer.Event{Type: filer.EventPut, Bucket: bucket, Key: obj.key, VersionID: v.VersionID}, nil)
		if i+1 < len(vs) {
			prev := &vs[i+1]
			p.add(v.MtimeNs, filer.Event{Type: filer.EventDemote, Bucket: bucket, Key: obj.key, VersionID: prev.VersionID}, prev)
		}
	}
}

func (p *fixturePlan) add(atNs int64, ev filer.Event, demoted *versionRecord) {
	p.events = append(p.events, plannedEvent{atNs: atNs, seq: len(p.events), ev: ev, demoted: demoted})
}

func (p *fixturePlan) write(tx *bolt.Tx, hook func(LoadPoint) error) error {
	for _, pb := range p.buckets {
		if _, exists, err := getBucket(tx, pb.name); err != nil {
			return err
		} else if exists {
			return hint.With(fmt.Errorf("bucket %q: %w", pb.name, ErrBucketExists), "load into a fresh --filer directory")
		}
	}
	if err := p.assignTsNs(tx.Bucket(bktMetalog)); err != nil {
		return err
	}
	for i, pb := range p.buckets {
		if err := pb.write(tx); err != nil {
			return fmt.Errorf("bucket %q: %w", pb.name, err)
		}
		if hook != nil {
			if err := hook(LoadPoint{Buckets: i + 1}); err != nil {
				return err
			}
		}
	}
	for _, pe := range p.events {
		if err := putEvent(tx, pe.ev); err != nil {
			return err
		}
	}
	return nil
}

// assignTsNs gives every planned event a unique TsNs: its wanted time, or
// 1ns past the previous event when they collide, skipping slots already
// taken in the log.
func (p *fixturePlan) assignTsNs(log *bolt.Bucket) error {
	sort.SliceStable(p.events, func(i, j int) bool {
		a, b := p.events[i], p.events[j]
		if a.atNs != b.atNs {
			return a.atNs < b.atNs
		}
		return a.seq < b.seq
	})
	prev := int64(math.MinInt64)
	for i := range p.events {
		pe := &p.events[i]
		ts := max(pe.atNs, prev+1)
		if ts < 0 {
			return fmt.Errorf("event %s %s/%s at %d: times before 1970 are not supported", pe.ev.Type, pe.ev.Bucket, pe.ev.Key, pe.atNs)
		}
		for log.Get(tsKey(ts)) != nil {
			ts++
		}
		pe.ev.TsNs, prev = ts, ts
		if pe.demoted != nil {
			pe.demoted.NoncurrentSinceNs = ts
		}
	}
	return nil
}

func (pb plannedBucket) write(tx *bolt.Tx) error {
	raw, err := json.Marshal(pb.rec)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bktBuckets).Put([]byte(pb.name), raw); err != nil {
		return err
	}
	objs, err := tx.Bucket(bktObjects).CreateBucket([]byte(pb.name))
	if err != nil {
		return fmt.Errorf("object index: %w", err)
	}
	for _, o := range pb.objects {
		raw, err := json.Marshal(o.rec)
		if err != nil {
			return err
		}
		if err := objs.Put([]byte(o.key), raw); err != nil {
			return err
		}
	}
	ups, err := tx.Bucket(bktUploads).CreateBucket([]byte(pb.name))
	if err != nil {
		return fmt.Errorf("upload index: %w", err)
	}
	for _, u := range pb.uploads {
		raw, err := json.Marshal(uploadRecord{InitiatedNs: u.Initiated.UnixNano()})
		if err != nil {
			return err
		}
		if err := ups.Put(uploadKey(u.Key, u.UploadID), raw); err != nil {
			return err
		}
	}
	return nil
}

// lifecycleVerdict is the lifecycle parser's verdict on a bucket's
// lifecycle document, nil when the bucket has none (""). A load and every
// pass judge a document by this one function, so a fixture cannot hold a
// document the loader accepts and a pass refuses, or the reverse.
func lifecycleVerdict(doc string) error {
	if doc == "" {
		return nil
	}
	_, err := lifecycle.Parse([]byte(doc))
	return err
}

// derive is a deterministic hex digest of parts, for generated version IDs
// and ETags.
func derive(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}
