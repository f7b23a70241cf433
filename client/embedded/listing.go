package embedded

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// ListBuckets returns every bucket sorted by name (bbolt key order).
func (f *Filer) ListBuckets(ctx context.Context) ([]filer.Bucket, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []filer.Bucket
	err := f.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bktBuckets).ForEach(func(k, v []byte) error {
			var rec bucketRecord
			if err := decode("bucket "+string(k), v, &rec); err != nil {
				return err
			}
			out = append(out, filer.Bucket{
				Name:         string(k),
				Versioning:   rec.Versioning,
				ObjectLock:   rec.ObjectLock,
				LifecycleXML: rec.LifecycleXML,
			})
			return nil
		})
	})
	return out, err
}

// ListObjects returns up to limit objects with key > startAfter in key
// order; next is the last key returned when more remain. limit must be
// positive.
func (f *Filer) ListObjects(ctx context.Context, bucket, startAfter string, limit int) ([]filer.Object, string, error) {
	if err := checkPage(ctx, limit); err != nil {
		return nil, "", err
	}
	var (
		objs []filer.Object
		next string
	)
	err := f.db.View(func(tx *bolt.Tx) error {
		b := objectsOf(tx, bucket)
		if b == nil {
			return noSuchBucket(bucket)
		}
		c := b.Cursor()
		k, v := c.Seek([]byte(startAfter))
		if k != nil && string(k) == startAfter {
			k, v = c.Next()
		}
		for ; k != nil; k, v = c.Next() {
			if len(objs) == limit {
				next = objs[len(objs)-1].Key
				return nil
			}
			var rec objectRecord
			if err := decode("object "+bucket+"/"+string(k), v, &rec); err != nil {
				// One unreadable record halts its key's shard, not the page.
				objs = append(objs, filer.Object{Key: string(k), Err: &filer.KeyError{Bucket: bucket, Key: string(k), Err: err}})
				continue
			}
			objs = append(objs, rec.toObject(string(k)))
		}
		return nil
	})
	f.afterRead()
	if err != nil {
		return nil, "", err
	}
	return objs, next, nil
}

// LookupObject returns one key's versions, newest first.
func (f *Filer) LookupObject(ctx context.Context, bucket, key string) (filer.Object, bool, error) {
	if err := ctx.Err(); err != nil {
		return filer.Object{}, false, err
	}
	var (
		obj   filer.Object
		found bool
	)
	err := f.db.View(func(tx *bolt.Tx) error {
		b := objectsOf(tx, bucket)
		if b == nil {
			return noSuchBucket(bucket)
		}
		raw := b.Get([]byte(key))
		if raw == nil {
			return nil
		}
		var rec objectRecord
		if err := decode("object "+bucket+"/"+key, raw, &rec); err != nil {
			return &filer.KeyError{Bucket: bucket, Key: key, Err: err}
		}
		obj, found = rec.toObject(key), len(rec.Versions) > 0
		return nil
	})
	f.afterRead()
	return obj, found, err
}

// ListUploads returns up to limit uploads ordered by (key, upload ID) after
// the opaque marker startAfter ("" for the first page). Markers are
// base64url of the internal (key, upload ID) key.
func (f *Filer) ListUploads(ctx context.Context, bucket, startAfter string, limit int) ([]filer.Upload, string, error) {
	if err := checkPage(ctx, limit); err != nil {
		return nil, "", err
	}
	after, err := base64.RawURLEncoding.DecodeString(startAfter)
	if err != nil {
		return nil, "", fmt.Errorf("bucket %q: bad upload marker %q: pass the next marker ListUploads returned", bucket, startAfter)
	}
	var (
		ups  []filer.Upload
		next string
	)
	err = f.db.View(func(tx *bolt.Tx) error {
		b := uploadsOf(tx, bucket)
		if b == nil {
			return noSuchBucket(bucket)
		}
		c := b.Cursor()
		var k, v []byte
		if len(after) == 0 {
			k, v = c.First()
		} else {
			k, v = c.Seek(after)
			if k != nil && bytes.Equal(k, after) {
				k, v = c.Next()
			}
		}
		var lastKey []byte
		for ; k != nil; k, v = c.Next() {
			if len(ups) == limit {
				next = base64.RawURLEncoding.EncodeToString(lastKey)
				return nil
			}
			key, id, ok := strings.Cut(string(k), "\x00")
			if !ok {
				return fmt.Errorf("embedded filer: corrupt upload key %q in bucket %q", k, bucket)
			}
			var rec uploadRecord
			if err := decode("upload "+bucket+"/"+key, v, &rec); err != nil {
				return err
			}
			ups = append(ups, filer.Upload{Key: key, UploadID: id, Initiated: time.Unix(0, rec.InitiatedNs).UTC()})
			lastKey = append(lastKey[:0], k...)
		}
		return nil
	})
	f.afterRead()
	if err != nil {
		return nil, "", err
	}
	return ups, next, nil
}

func checkPage(ctx context.Context, limit int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if limit <= 0 {
		return fmt.Errorf("embedded filer: page limit %d must be positive", limit)
	}
	return nil
}
