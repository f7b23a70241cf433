package seaweedfs

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/seaweedfs/seaweedfs/weed/pb/s3_lifecycle_pb"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// kinds maps the design's action-kind spellings to the wire enum
// (weed/pb/s3_lifecycle.proto ActionKind).
var kinds = map[lifecycle.ActionKind]s3_lifecycle_pb.ActionKind{
	lifecycle.ExpirationDays:      s3_lifecycle_pb.ActionKind_EXPIRATION_DAYS,
	lifecycle.ExpirationDate:      s3_lifecycle_pb.ActionKind_EXPIRATION_DATE,
	lifecycle.NoncurrentDays:      s3_lifecycle_pb.ActionKind_NONCURRENT_DAYS,
	lifecycle.NewerNoncurrent:     s3_lifecycle_pb.ActionKind_NEWER_NONCURRENT,
	lifecycle.AbortMPU:            s3_lifecycle_pb.ActionKind_ABORT_MPU,
	lifecycle.ExpiredDeleteMarker: s3_lifecycle_pb.ActionKind_EXPIRED_DELETE_MARKER,
}

// outcomes maps the wire outcome one to one; UNSPECIFIED and any value
// this version does not know are not in it.
var outcomes = map[s3_lifecycle_pb.LifecycleDeleteOutcome]filer.Outcome{
	s3_lifecycle_pb.LifecycleDeleteOutcome_DONE:                filer.OutcomeDone,
	s3_lifecycle_pb.LifecycleDeleteOutcome_NOOP_RESOLVED:       filer.OutcomeNoopResolved,
	s3_lifecycle_pb.LifecycleDeleteOutcome_SKIPPED_OBJECT_LOCK: filer.OutcomeSkippedObjectLock,
	s3_lifecycle_pb.LifecycleDeleteOutcome_RETRY_LATER:         filer.OutcomeRetryLater,
	s3_lifecycle_pb.LifecycleDeleteOutcome_BLOCKED:             filer.OutcomeBlocked,
}

// LifecycleDelete sends one LifecycleDelete to the S3 gateway, which
// re-fetches the target, compares the EntryIdentity (mtime_ns, size,
// head_fid, extended_hash), checks Object Lock and deletes
// (weed/s3api/s3api_internal_lifecycle.go).
//
// The request carries the version ID for every version kind (the server
// then also checks a current-version expiration still targets the
// latest), object_path ".uploads/<id>" for AbortMPU as SeaweedFS's router
// sends it, and no rule hash (the server does not read it).
//
// The identity is the witness recorded when the version was last listed or
// looked up through this Store, if its mtime, size and ETag equal
// req.Expected. Otherwise (evicted, or never listed here) the live entry is
// read: if it no longer has the expected mtime, size and ETag the result is
// NOOP_RESOLVED without a call, else its witness is sent. In that fallback a
// change to the Extended map alone (tags, retention) between the listing
// and this call is not detected; filer.Identity has no field to carry the
// head fid and Extended hash from the listing (see the package report).
//
// An unknown kind is BLOCKED without a call; an outcome outside the five
// known ones is an error, as is every transport failure.
func (s *Store) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	kind, ok := kinds[lifecycle.ActionKind(req.Kind)]
	if !ok {
		return filer.OutcomeBlocked, nil
	}
	pb := &s3_lifecycle_pb.LifecycleDeleteRequest{Bucket: req.Bucket, ObjectPath: req.Key, ActionKind: kind}
	if kind == s3_lifecycle_pb.ActionKind_ABORT_MPU {
		id := req.Expected.UploadID
		if id == "" || id == "." || id == ".." || strings.Contains(id, "/") {
			return filer.OutcomeBlocked, nil
		}
		// The server aborts by upload ID alone; make sure it is still the
		// upload of req.Key.
		up, err := s.lookup(ctx, s.bucketDir(req.Bucket)+"/"+uploadsDir, id)
		if err != nil {
			return "", err
		}
		if up == nil || string(up.Extended[extMultipartObjectKey]) != req.Key {
			return filer.OutcomeNoopResolved, nil
		}
		pb.ObjectPath = uploadsDir + "/" + id
	} else {
		if req.Expected.VersionID == "" {
			return filer.OutcomeBlocked, nil
		}
		w, found, err := s.witnessFor(ctx, req)
		if err != nil {
			return "", err
		}
		if !found {
			return filer.OutcomeNoopResolved, nil
		}
		pb.VersionId = req.Expected.VersionID
		pb.ExpectedIdentity = &s3_lifecycle_pb.EntryIdentity{
			MtimeNs: w.id.MtimeNs, Size: w.id.Size, HeadFid: w.headFid, ExtendedHash: w.extHash,
		}
	}
	actx, err := s.auth.outgoing(ctx)
	if err != nil {
		return "", err
	}
	resp, err := s.lc.LifecycleDelete(actx, pb)
	if err != nil {
		return "", fmt.Errorf("LifecycleDelete %s/%s: %w", req.Bucket, req.Key, err)
	}
	out, ok := outcomes[resp.GetOutcome()]
	if !ok {
		return "", fmt.Errorf("LifecycleDelete %s/%s: unknown outcome %v (%s)", req.Bucket, req.Key, resp.GetOutcome(), resp.GetReason())
	}
	return out, nil
}

// witnessFor returns the CAS witness for req's version; found is false
// when the live version no longer matches req.Expected.
func (s *Store) witnessFor(ctx context.Context, req filer.DeleteRequest) (witness, bool, error) {
	if w, ok := s.witnesses.get(req.Bucket, req.Key, req.Expected.VersionID); ok && sameIdentity(w.id, req.Expected) {
		return w, true, nil
	}
	dir, name := path.Split(s.bucketDir(req.Bucket) + "/" + strings.TrimSuffix(req.Key, "/"))
	dir = strings.TrimSuffix(dir, "/")
	if req.Expected.VersionID != filer.NullVersionID {
		dir, name = dir+"/"+name+versionsSuffix, versionFileName(req.Expected.VersionID)
	}
	e, err := s.lookup(ctx, dir, name)
	if err != nil || e == nil {
		return witness{}, false, err
	}
	w := witnessOf(e, req.Expected.VersionID)
	if !sameIdentity(w.id, req.Expected) {
		return witness{}, false, nil
	}
	return w, true, nil
}

func sameIdentity(a, b filer.Identity) bool {
	return a.VersionID == b.VersionID && a.MtimeNs == b.MtimeNs && a.Size == b.Size && a.ETag == b.ETag
}

// witnessCache keeps the witnesses of recently listed versions, bounded by
// two generations: when the current one fills it becomes the previous and
// the older is dropped. A dispatch follows its listing page or lookup
// closely, so a recent witness is what it needs.
type witnessCache struct {
	mu        sync.Mutex
	limit     int
	cur, prev map[witnessKey]witness
}

type witnessKey struct{ bucket, key, versionID string }

func newWitnessCache(limit int) *witnessCache {
	return &witnessCache{limit: max(limit/2, 1), cur: map[witnessKey]witness{}}
}

func (c *witnessCache) put(bucket, key string, w witness) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cur) >= c.limit {
		c.prev, c.cur = c.cur, make(map[witnessKey]witness, c.limit)
	}
	c.cur[witnessKey{bucket, key, w.id.VersionID}] = w
}

func (c *witnessCache) get(bucket, key, versionID string) (witness, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := witnessKey{bucket, key, versionID}
	if w, ok := c.cur[k]; ok {
		return w, true
	}
	w, ok := c.prev[k]
	return w, ok
}
