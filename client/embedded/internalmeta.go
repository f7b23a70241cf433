package embedded

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Internal metadata: each object version may carry the internal keys
// RustFS keeps in xl.meta (transition-status, transition-tier,
// transitioned-versionID, …, under x-rustfs-internal- and
// x-minio-internal-), with a generation for conditional updates: a write
// names the generation it read, and any other generation fails it with
// nothing changed (docs/design/reconcile.md#sets). Updates write no
// meta-log event: no lifecycle decision reads internal metadata.

// Internal metadata key prefixes a fixture may use.
var internalPrefixes = []string{"x-rustfs-internal-", "x-minio-internal-"}

var (
	// ErrNoSuchVersion: the bucket, key or version does not exist.
	ErrNoSuchVersion = errors.New("no such version")
	// ErrGenerationMismatch: a conditional update named a generation that
	// is not the current one; nothing was written.
	ErrGenerationMismatch = errors.New("internal metadata generation mismatch")
)

// InternalVersion is one version's identity with its internal metadata
// and generation.
type InternalVersion struct {
	VersionID    string
	DeleteMarker bool
	MtimeNs      int64 // Unix nanoseconds
	Size         int64 // bytes
	ETag         string
	Metadata     map[string]string // a copy; nil when the version has none
	Generation   uint64
}

func planInternalMetadata(v *versionRecord, md map[string]string) error {
	if md == nil {
		return nil
	}
	if v.DeleteMarker {
		return errors.New("a delete marker has no internal_metadata")
	}
	for k := range md {
		if !hasInternalPrefix(k) {
			return fmt.Errorf("internal_metadata key %q: internal keys start with %s", k, strings.Join(internalPrefixes, " or "))
		}
	}
	v.InternalMetadata = maps.Clone(md)
	v.MetaGeneration = 1
	return nil
}

func hasInternalPrefix(k string) bool {
	for _, p := range internalPrefixes {
		if len(k) > len(p) && strings.EqualFold(k[:len(p)], p) {
			return true
		}
	}
	return false
}

// InternalMetadata reads one version with its internal metadata in one
// read transaction. A missing bucket, key or version is ErrNoSuchVersion.
func (f *Filer) InternalMetadata(ctx context.Context, bucket, key, versionID string) (InternalVersion, error) {
	if err := ctx.Err(); err != nil {
		return InternalVersion{}, err
	}
	var out InternalVersion
	err := f.db.View(func(tx *bolt.Tx) error {
		_, i, rec, err := findVersion(tx, bucket, key, versionID)
		if err != nil {
			return err
		}
		v := rec.Versions[i]
		out = InternalVersion{VersionID: v.VersionID, DeleteMarker: v.DeleteMarker, MtimeNs: v.MtimeNs, Size: v.Size, ETag: v.ETag,
			Metadata: maps.Clone(v.InternalMetadata), Generation: v.MetaGeneration}
		return nil
	})
	return out, err
}

// UpdateInternalMetadata sets keys in one version's internal metadata, in
// one write transaction, if its generation is still generation, and
// returns the new generation. Any other generation is
// ErrGenerationMismatch and nothing changes. Keys must be internal keys.
func (f *Filer) UpdateInternalMetadata(ctx context.Context, bucket, key, versionID string, generation uint64, set map[string]string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	for k := range set {
		if !hasInternalPrefix(k) {
			return 0, fmt.Errorf("embedded filer: %q is not an internal metadata key", k)
		}
	}
	var next uint64
	err := f.db.Update(func(tx *bolt.Tx) error {
		objs, i, rec, err := findVersion(tx, bucket, key, versionID)
		if err != nil {
			return err
		}
		v := &rec.Versions[i]
		if v.DeleteMarker {
			return fmt.Errorf("%s/%s version %s is a delete marker: %w", bucket, key, versionID, ErrNoSuchVersion)
		}
		if v.MetaGeneration != generation {
			return fmt.Errorf("%s/%s version %s is at generation %d, not %d: %w", bucket, key, versionID, v.MetaGeneration, generation, ErrGenerationMismatch)
		}
		if v.InternalMetadata == nil {
			v.InternalMetadata = map[string]string{}
		}
		maps.Copy(v.InternalMetadata, set)
		v.MetaGeneration++
		next = v.MetaGeneration
		raw, err := encode(rec)
		if err != nil {
			return err
		}
		return objs.Put([]byte(key), raw)
	})
	return next, err
}

// findVersion locates a version; objs is the bucket's object index.
func findVersion(tx *bolt.Tx, bucket, key, versionID string) (*bolt.Bucket, int, objectRecord, error) {
	objs := objectsOf(tx, bucket)
	if objs == nil {
		return nil, 0, objectRecord{}, fmt.Errorf("bucket %q: %w", bucket, ErrNoSuchVersion)
	}
	raw := objs.Get([]byte(key))
	if raw == nil {
		return nil, 0, objectRecord{}, fmt.Errorf("%s/%s: %w", bucket, key, ErrNoSuchVersion)
	}
	var rec objectRecord
	if err := decode("object "+bucket+"/"+key, raw, &rec); err != nil {
		return nil, 0, rec, err
	}
	for i, v := range rec.Versions {
		if v.VersionID == versionID {
			return objs, i, rec, nil
		}
	}
	return nil, 0, rec, fmt.Errorf("%s/%s version %s: %w", bucket, key, versionID, ErrNoSuchVersion)
}
