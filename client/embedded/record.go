package embedded

import (
	"encoding/binary"
	"fmt"
	"time"

	gojson "github.com/goccy/go-json"
	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// bucketRecord is a bucket's persisted settings (value under "buckets").
type bucketRecord struct {
	Versioning   filer.Versioning `json:"versioning"`
	ObjectLock   bool             `json:"object_lock,omitempty"`
	LifecycleXML string           `json:"lifecycle_xml,omitempty"`
}

// objectRecord is one key's versions, newest first. IsLatest is not stored:
// Versions[0] is the latest, so the two can never disagree.
type objectRecord struct {
	Versions []versionRecord `json:"versions"`
}

type versionRecord struct {
	VersionID         string            `json:"version_id"`
	DeleteMarker      bool              `json:"delete_marker,omitempty"`
	MtimeNs           int64             `json:"mtime_ns"`
	Size              int64             `json:"size,omitempty"`
	ETag              string            `json:"etag,omitempty"`
	Tags              map[string]string `json:"tags,omitempty"`
	NoncurrentSinceNs int64             `json:"noncurrent_since_ns,omitempty"`
	RetainUntil       time.Time         `json:"retain_until,omitzero"`
	LegalHold         bool              `json:"legal_hold,omitempty"`
	// InternalMetadata is the version's internal (x-rustfs-internal-*,
	// x-minio-internal-*) metadata, as RustFS keeps it in xl.meta; see
	// internalmeta.go.
	InternalMetadata map[string]string `json:"internal_metadata,omitempty"`
	// MetaGeneration counts writes of InternalMetadata: 1 once loaded,
	// +1 per UpdateInternalMetadata; 0 when the version has none.
	MetaGeneration uint64 `json:"meta_generation,omitempty"`
}

type uploadRecord struct {
	InitiatedNs int64 `json:"initiated_ns"`
}

// eventRecord is a meta-log event without its TsNs, which is the key.
type eventRecord struct {
	Type      filer.EventType `json:"type"`
	Bucket    string          `json:"bucket"`
	Key       string          `json:"key,omitempty"`
	VersionID string          `json:"version_id,omitempty"`
	UploadID  string          `json:"upload_id,omitempty"`
	// Noncurrent is filer.Event.Noncurrent: a removal of a version that
	// was not the latest.
	Noncurrent bool `json:"noncurrent,omitempty"`
}

func (v versionRecord) identity() filer.Identity {
	return filer.Identity{VersionID: v.VersionID, MtimeNs: v.MtimeNs, Size: v.Size, ETag: v.ETag}
}

// matches compares the version identity; Expected.UploadID is ignored.
func (v versionRecord) matches(want filer.Identity) bool {
	want.UploadID = ""
	return v.identity() == want
}

// locked reports whether S3 Object Lock forbids permanently deleting v at
// now: a legal hold, or a retention date still in the future.
func (v versionRecord) locked(now time.Time) bool {
	return v.LegalHold || v.RetainUntil.After(now)
}

func (v versionRecord) toVersion(latest bool) filer.Version {
	return filer.Version{
		VersionID:         v.VersionID,
		IsLatest:          latest,
		DeleteMarker:      v.DeleteMarker,
		MtimeNs:           v.MtimeNs,
		Size:              v.Size,
		ETag:              v.ETag,
		Tags:              v.Tags,
		NoncurrentSinceNs: v.NoncurrentSinceNs,
		RetainUntil:       v.RetainUntil,
		LegalHold:         v.LegalHold,
	}
}

func (o objectRecord) toObject(key string) filer.Object {
	obj := filer.Object{Key: key, Versions: make([]filer.Version, len(o.Versions))}
	for i, v := range o.Versions {
		obj.Versions[i] = v.toVersion(i == 0)
	}
	return obj
}

// Records are read and written with github.com/goccy/go-json rather than
// encoding/json: it reads and writes the same JSON for these types
// (TestRecordCodecMatchesStdlib) about four times faster, and decoding
// records was the largest single cost of a pass over the embedded filer.

// decode reads one record into v; the error names what (e.g. "object
// bucket/key") and wraps the decoder's.
func decode(what string, raw []byte, v any) error {
	if err := gojson.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("embedded filer: corrupt %s record: %w", what, err)
	}
	return nil
}

// encode writes one record as compact JSON, byte for byte what
// encoding/json.Marshal writes for it.
func encode(v any) ([]byte, error) { return gojson.Marshal(v) }

func tsKey(tsNs int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(tsNs))
	return b[:]
}

func tsFromKey(k []byte) int64 { return int64(binary.BigEndian.Uint64(k)) }

// uploadKey orders uploads by (key, upload ID): 0x00 sorts below every byte
// an object key can contain.
func uploadKey(key, uploadID string) []byte {
	return []byte(key + "\x00" + uploadID)
}

// getBucket reads a bucket's settings; ok is false when it does not exist.
func getBucket(tx *bolt.Tx, name string) (bucketRecord, bool, error) {
	raw := tx.Bucket(bktBuckets).Get([]byte(name))
	if raw == nil {
		return bucketRecord{}, false, nil
	}
	var rec bucketRecord
	return rec, true, decode("bucket "+name, raw, &rec)
}

func noSuchBucket(name string) error {
	return fmt.Errorf("bucket %q: %w", name, ErrNoSuchBucket)
}

// objectsOf returns the nested bucket holding bucket's objects.
func objectsOf(tx *bolt.Tx, bucket string) *bolt.Bucket {
	return tx.Bucket(bktObjects).Bucket([]byte(bucket))
}

func uploadsOf(tx *bolt.Tx, bucket string) *bolt.Bucket {
	return tx.Bucket(bktUploads).Bucket([]byte(bucket))
}
