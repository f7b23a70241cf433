package seaweedfs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/seaweedfs/seaweedfs/weed/pb/s3_lifecycle_pb"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// kinds maps ilmctl's action-kind spellings (docs/design/daily-run.md#action-kinds)
// to the wire enum
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

// ErrNoAnswer is filer.ErrNoAnswer: a LifecycleDelete the server did not
// answer within filer.DeleteTimeout. (The first BENCH_SCALE=4 runs of
// scripts/bench-vs-seaweedfs.sh saw 128 calls wait 27 minutes on a weed
// server whose filer could not allocate a volume.)
var ErrNoAnswer = filer.ErrNoAnswer

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
// The identity sent is the one the version had when it was listed or
// looked up: req.Expected's MtimeNs and Size, and the head fid and
// Extended hash from its StoreToken. Nothing is re-read, so any change
// after the listing — an overwrite, or tags or retention alone — makes the
// server answer NOOP_RESOLVED. The ETag is not sent: the server does not
// compare it, and it is either in the Extended map or derived from the
// chunks, which the hash and the head fid pin.
//
// The server re-checks identity and position only. For the noncurrent
// kinds that is not all a rule reads: a version's NewerNoncurrentVersions
// rank falls when a newer version goes, its identity unchanged. So for
// NoncurrentDays and NewerNoncurrent with req.Applies set, the key is
// looked up through the filer first and req.Applies re-decides the rule on
// that fresh read (under the same filer.DeleteTimeout as the call); false
// (or the version gone or changed, or the key's layout ambiguous) is
// NOOP_RESOLVED without a call. The current-version
// kinds skip the read: everything their rule reads (tags, size, mtime,
// being the latest or the lone marker) is pinned by the identity and
// position the server checks, so Applies could only answer as it did
// (docs/design/daily-run.md#dispatch).
//
// An unknown kind, a version kind without a version ID and an identity
// without a token this package issued (ErrBadStoreToken: the version was
// not read through a seaweedfs Store, so there is nothing sound to compare)
// are BLOCKED without a call; an outcome outside the five known ones is an
// error, as is every transport failure.
//
// A call the server does not answer within filer.DeleteTimeout fails
// with ErrNoAnswer, so a server that stopped answering halts the shards
// that wait on it (after the pass's retries) instead of holding the pass
// until -runtime ends it. Whether such a delete was applied is unknown;
// the next pass decides the key again and the identity check makes a
// repeat NOOP_RESOLVED.
func (s *Store) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	kind, ok := kinds[req.Kind]
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
		extHash, headFid, err := parseStoreToken(req.Expected.StoreToken)
		if err != nil {
			return filer.OutcomeBlocked, nil
		}
		if req.Applies != nil && (kind == s3_lifecycle_pb.ActionKind_NONCURRENT_DAYS || kind == s3_lifecycle_pb.ActionKind_NEWER_NONCURRENT) {
			still, err := filer.WithDeleteDeadline(ctx, s.deleteTimeout, fmt.Sprintf("re-read %s/%s", req.Bucket, req.Key), func(cctx context.Context) (bool, error) {
				return s.stillApplies(cctx, req)
			})
			if err != nil {
				return "", err
			}
			if !still {
				return filer.OutcomeNoopResolved, nil
			}
		}
		pb.VersionId = req.Expected.VersionID
		pb.ExpectedIdentity = &s3_lifecycle_pb.EntryIdentity{
			MtimeNs: req.Expected.MtimeNs, Size: req.Expected.Size, HeadFid: headFid, ExtendedHash: extHash,
		}
	}
	actx, err := s.auth.outgoing(ctx)
	if err != nil {
		return "", err
	}
	what := fmt.Sprintf("LifecycleDelete %s/%s", req.Bucket, req.Key)
	resp, err := filer.WithDeleteDeadline(actx, s.deleteTimeout, what, func(cctx context.Context) (*s3_lifecycle_pb.LifecycleDeleteResponse, error) {
		return s.lc.LifecycleDelete(cctx, pb)
	})
	if errors.Is(err, ErrNoAnswer) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	out, ok := outcomes[resp.GetOutcome()]
	if !ok {
		return "", fmt.Errorf("LifecycleDelete %s/%s: unknown outcome %v (%s)", req.Bucket, req.Key, resp.GetOutcome(), resp.GetReason())
	}
	return out, nil
}

// stillApplies re-reads req's key through the filer and reports whether
// the expected version is still there, unchanged, and selected by
// req.Applies on that read. A read error is returned (the pass retries);
// an ambiguous layout is not selected: which entry the version ID names is
// unknown.
func (s *Store) stillApplies(ctx context.Context, req filer.DeleteRequest) (bool, error) {
	obj, found, err := s.LookupObject(ctx, req.Bucket, req.Key)
	if errors.Is(err, filer.ErrAmbiguousLayout) {
		return false, nil
	}
	if err != nil || !found {
		return false, err
	}
	i := slices.IndexFunc(obj.Versions, func(v filer.Version) bool { return v.VersionID == req.Expected.VersionID })
	if i < 0 || obj.Versions[i].Identity() != req.Expected {
		return false, nil
	}
	return req.Applies(&obj, i), nil
}
