package embedded

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
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
// already holds with another versioning, object lock or lifecycle
// configuration (one that repeats them adds its objects to the bucket).
var ErrBucketExists = errors.New("bucket already exists")

// LoadFixture decodes a Fixture from r, validates it, and writes its
// buckets, versions, uploads and meta-log history in one transaction: on
// any error the filer is unchanged.
//
// The meta-log gets the history the fixture implies: EventPut at each
// version's mtime, EventDemote of its predecessor at the same instant (the
// demoted version's NoncurrentSinceNs is that event's TsNs, exactly) and
// EventMPUInit at each upload's initiated time. TsNs are unique: the
// events are taken in order of (instant, fixture order), fixture order
// being a key's versions oldest first, each put before the demotion of
// its predecessor, then the bucket's uploads; each gets its instant or
// the previous event's TsNs + 1, whichever is later, and then the first
// TsNs after that the filer does not already hold. A demotion therefore
// lands at least 1ns after its successor's put. Events land at their
// instants, possibly before events already in the log.
//
// The fixture is decoded as a stream (see fixtureStream), and the events
// are sorted outside memory (fixture_events.go): memory does not grow
// with the fixture, but one transaction holds every page it changes until
// the commit. Load into a new filer commits in batches instead.
//
// LoadFixture writes into this open filer; Load is what "ilmctl filer
// load" uses, which also creates a new filer all or nothing.
func (f *Filer) LoadFixture(ctx context.Context, r io.Reader) (FixtureSummary, error) {
	return loadStream(ctx, f.db, f.dir, r, false, nil)
}

// errNeedObjectLock refuses retention on a version of a bucket without
// Object Lock.
var errNeedObjectLock = errors.New("retain_until/legal_hold need \"object_lock\": true on the bucket")

// versionErr is a fault in the i'th version of a key (fixture order).
type versionErr struct {
	i     int
	label string // as FixtureError.Version
	err   error
}

func (e *versionErr) Error() string { return e.label + ": " + e.err.Error() }
func (e *versionErr) Unwrap() error { return e.err }

// versionLabel names the i'th version of a key for an error: by the
// version_id the fixture gives it, else by its index.
func versionLabel(i int, id FixtureVersionID) string {
	if id.Set && id.ID != "" {
		return "version " + id.ID
	}
	return fmt.Sprintf("versions[%d]", i)
}

// planVersions validates one key's versions (oldest first) and returns them
// newest first. A fault in one version is a *versionErr.
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
		bad := func(err error) error { return &versionErr{i: i, label: versionLabel(i, fv.VersionID), err: err} }
		if fv.Mtime.IsZero() {
			return rec, bad(errors.New("mtime is required (RFC3339)"))
		}
		if err := filer.CheckTime("mtime", fv.Mtime); err != nil {
			return rec, bad(err)
		}
		if i > 0 && !fv.Mtime.After(fo.Versions[i-1].Mtime) {
			return rec, bad(fmt.Errorf("mtime %s is not after the previous version's %s: list versions oldest first with strictly increasing mtimes",
				fv.Mtime.Format(time.RFC3339Nano), fo.Versions[i-1].Mtime.Format(time.RFC3339Nano)))
		}
		id := fv.VersionID.ID
		switch {
		case !fv.VersionID.Set && unversioned:
			id = filer.NullVersionID
		case !fv.VersionID.Set:
			id = derive(fb.Name, fo.Key, strconv.Itoa(i))[:16]
		case id == "":
			return rec, bad(errors.New("version_id is empty: omit it, or use null for the null version"))
		}
		if unversioned && id != filer.NullVersionID {
			return rec, bad(fmt.Errorf("version_id %q in an unversioned bucket: omit it or use null", id))
		}
		if ids[id] {
			return rec, bad(fmt.Errorf("version_id %q is used twice", id))
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
			return rec, bad(err)
		}
		if err := checkVersion(fb, v); err != nil {
			return rec, bad(err)
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
		return errNeedObjectLock
	}
	for k := range v.Tags {
		if k == "" {
			return errors.New("tags: empty tag key")
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
