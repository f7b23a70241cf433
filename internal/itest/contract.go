package itest

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/filer/filertest"
)

// WriteContract writes a store contract scenario's buckets through the S3
// API, each under a fresh UniqueName removed when t ends, and returns the
// names and IDs the server gave them, for a filertest.Subject. Versions
// are written oldest first: a real version as a PUT of Size bytes (with
// Versioning Enabled, or Suspended for the null version), a delete marker
// as a DELETE without version ID (over a version written for it and then
// removed, when the marker is the key's first: MinIO writes no marker on
// a key without versions, AWS does), a legal hold with
// PutObjectLegalHold, a retention with PutObjectRetention in GOVERNANCE
// mode (which RemoveBucket bypasses). The bucket ends in the scenario's
// versioning state. Uploads are initiated in the scenario's order. The
// server stamps everything with its own clock: Mtime and Initiated are
// not written.
func (s *S3) WriteContract(t *testing.T, buckets []filertest.Bucket) (names, ids map[string]string) {
	t.Helper()
	names, ids = map[string]string{}, map[string]string{}
	var fs *seaweedfs.Store
	if ServerEnv(t) == SeaweedFS && os.Getenv(EnvFiler) != "" {
		fs = OpenFiler(t, FilerEnv(t))
	}
	for _, b := range buckets {
		var name string
		if fs != nil {
			// Registered before CreateBucket's cleanup, so run after it:
			// SeaweedFS keeps some buckets S3 has emptied (a null delete
			// marker it will not remove), and every pass of a later test
			// would walk them.
			t.Cleanup(func() { purgeIfLeft(t, fs, name) })
		}
		if b.ObjectLock {
			name = s.CreateLockedBucket(t, "contract")
		} else {
			name = s.CreateBucket(t, "contract")
		}
		names[b.Name] = name
		state := filer.VersioningOff
		if b.ObjectLock {
			state = filer.VersioningEnabled
		}
		set := func(want filer.Versioning) {
			if state != want {
				s.PutVersioning(t, name, string(want))
				state = want
			}
		}
		for _, o := range b.Objects {
			for i, v := range o.Versions {
				if b.Versioning != filer.VersioningOff {
					if v.ID == filer.NullVersionID {
						set(filer.VersioningSuspended)
					} else {
						set(filer.VersioningEnabled)
					}
				}
				var id string
				switch {
				case v.DeleteMarker && i == 0:
					id = s.loneMarker(t, name, o.Key)
				case v.DeleteMarker:
					id = s.DeleteObject(t, name, o.Key)
				default:
					id, _ = s.PutObject(t, name, o.Key, strings.Repeat("x", int(v.Size)), nil)
				}
				if id == "" {
					id = filer.NullVersionID
				}
				if v.ID == filer.NullVersionID && id != filer.NullVersionID {
					t.Fatalf("contract: %s/%s written under Suspended versioning got version ID %q, want %q", name, o.Key, id, filer.NullVersionID)
				}
				ids[v.ID] = id
				if v.LegalHold {
					s.PutLegalHold(t, name, o.Key, id, true)
				}
				if !v.RetainUntil.IsZero() {
					s.PutRetention(t, name, o.Key, id, "GOVERNANCE", v.RetainUntil)
				}
			}
		}
		if b.Versioning != filer.VersioningOff {
			set(b.Versioning)
		}
		for _, u := range b.Uploads {
			ids[u.UploadID] = s.CreateMultipartUpload(t, name, u.Key)
		}
	}
	return names, ids
}

// loneMarker writes a delete marker on key as its only version: a PUT,
// a DELETE over it, and (unless the marker is null and so replaced the
// null version) a permanent DELETE of the PUT's version. It returns the
// marker's version ID.
func (s *S3) loneMarker(t *testing.T, bucket, key string) string {
	t.Helper()
	put, _ := s.PutObject(t, bucket, key, "", nil)
	marker := s.DeleteObject(t, bucket, key)
	if put == "" || put == filer.NullVersionID || marker == "" || marker == filer.NullVersionID {
		return filer.NullVersionID // under Suspended the null marker replaced the null version
	}
	_, err := s.C.DeleteObject(ctx(t), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(put)})
	if err != nil {
		t.Fatalf("contract: delete %s/%s@%s under its marker: %v", bucket, key, put, err)
	}
	return marker
}

// purgeIfLeft removes bucket through the filer when it is still there.
func purgeIfLeft(t *testing.T, fs *seaweedfs.Store, bucket string) {
	bs, err := fs.ListBuckets(context.Background())
	if err != nil {
		t.Logf("cleanup %s: list buckets: %v", bucket, err)
		return
	}
	if slices.ContainsFunc(bs, func(b filer.Bucket) bool { return b.Name == bucket }) {
		if err := fs.DeleteBucketDir(context.Background(), bucket); err != nil {
			t.Logf("cleanup %s: %v", bucket, err)
		}
	}
}
