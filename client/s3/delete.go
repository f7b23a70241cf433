package s3

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// LifecycleDelete applies one lifecycle action over S3.
// S3 checks nothing but an ETag condition on a delete, so every predicate
// the action was chosen on is re-established from fresh reads first.
// Outside Object Lock buckets the action joins a batch of its bucket
// (batch.go: steps 1-2 on a shared listing, then one DeleteObjects, no
// HEAD); a target the batch's DeleteObjects refused, and every target in
// an Object Lock bucket, is decided on its own (deleteOne):
//
//  1. The key is listed again (ListObjectVersions) and the target must
//     still be there with the expected version ID, ETag, size and
//     LastModified (compared to the second: S3 timestamps carry no more),
//     in the position the kind requires: the latest non-marker version
//     for ExpirationDays/ExpirationDate, a noncurrent one for
//     NoncurrentDays/NewerNoncurrent, the key's only version, a delete
//     marker, for ExpiredDeleteMarker. Anything else is NOOP_RESOLVED.
//  2. When req.Applies is set, the target's tags are read again
//     (GetObjectTagging of that version, when a tag rule of the bucket
//     could select it) and Applies re-decides the whole rule on this
//     fresh read: filter, position, successor time, NewerNoncurrentVersions
//     count, due time. False is NOOP_RESOLVED; tags that cannot be read
//     delete nothing (a transport error).
//  3. HeadObject of the exact version must report the listed size and
//     LastModified second, else NOOP_RESOLVED; its ETag, not the listing's,
//     goes into If-Match, since a listing may spell a multipart ETag
//     differently from the object (SeaweedFS, see
//     docs/s3.md). Delete markers have no ETag and get no HEAD.
//  4. For a permanent delete on an Object Lock bucket, a legal hold or
//     retention beyond the store clock (GetObjectLegalHold,
//     GetObjectRetention) is SKIPPED_OBJECT_LOCK without a delete; so is
//     an AccessDenied on such a delete when the version is held or
//     retained by the wall clock.
//  5. DeleteObject carries If-Match with that ETag, and a VersionId for
//     the permanent kinds; Expiration kinds omit it so versioned buckets
//     get a delete marker, as AWS does.
//
// Responses map to outcomes: 404 (NoSuchKey, NoSuchVersion, NoSuchUpload,
// NoSuchBucket) NOOP_RESOLVED; an Object Lock refusal SKIPPED_OBJECT_LOCK;
// 503 SlowDown RETRY_LATER; anything else is a transport error (an
// *APIError) the caller retries. A 412 is followed by steps 1-3 again:
// when they show the same version, still in place, still selected, with
// the same HEAD ETag, nobody else resolved it and the same request would
// be refused on every pass, so the outcome is STUCK; otherwise
// NOOP_RESOLVED. A permanent delete of the null version that the server
// answers with success is checked with one more listing: still there,
// unchanged, it is STUCK (SeaweedFS keeps a null delete marker so).
// AbortMPU is AbortMultipartUpload of Expected.UploadID,
// after a ListParts of it (NoSuchUpload there is NOOP_RESOLVED too). An
// unknown kind is BLOCKED. A delete the server leaves unanswered for
// filer.DeleteTimeout fails with filer.ErrNoAnswer.
func (s *Store) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	// The SDK's HTTP client sets no deadline of its own on a request whose
	// connection is open: without this, a server that stops answering
	// would hold the shard until -runtime ends the pass.
	what := fmt.Sprintf("delete %s/%s@%s", req.Bucket, req.Key, req.Expected.VersionID+req.Expected.UploadID)
	return filer.WithDeleteDeadline(ctx, s.deleteTimeout, what, func(cctx context.Context) (filer.Outcome, error) {
		return s.lifecycleDelete(cctx, req)
	})
}

func (s *Store) lifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	kind := req.Kind
	switch kind {
	case lifecycle.AbortMPU:
		return s.abortUpload(ctx, req)
	case lifecycle.ExpirationDays, lifecycle.ExpirationDate, lifecycle.NoncurrentDays,
		lifecycle.NewerNoncurrent, lifecycle.ExpiredDeleteMarker:
	default:
		return filer.OutcomeBlocked, nil
	}
	target := req.Bucket + "/" + req.Key + "@" + req.Expected.VersionID
	b, err := s.bucket(ctx, req.Bucket)
	if err != nil {
		return outcomeOf(err, "DescribeBucket", target)
	}
	if b.objectLock || s.oneByOne {
		// Each permanent delete there needs its own hold and retention
		// reads, and the server's refusal is told apart per version.
		return s.deleteOne(ctx, req, kind, b, target)
	}
	return s.deleteBatched(ctx, req, kind, b, target)
}

// deleteOne is LifecycleDelete of one target on its own: steps 1-5 with
// HeadObject, and the 412 follow-up. Object Lock buckets take it, and so
// does a batched delete the server refused (a 412), whose HEAD tells a
// changed object from an ETag the listing spells differently.
func (s *Store) deleteOne(ctx context.Context, req filer.DeleteRequest, kind lifecycle.ActionKind, b *bucketInfo, target string) (filer.Outcome, error) {
	first, out, err := s.reread(ctx, req, kind, b, target)
	if first == nil {
		return out, err
	}
	v := first.version
	in := &s3api.DeleteObjectInput{Bucket: aws.String(req.Bucket), Key: aws.String(req.Key)}
	if permanent(kind) {
		in.VersionId = aws.String(v.VersionID)
		if b.objectLock && !v.DeleteMarker {
			locked, err := s.locked(ctx, req.Bucket, req.Key, v.VersionID)
			if err != nil {
				return outcomeOf(err, "GetObjectRetention", target)
			}
			if locked {
				return filer.OutcomeSkippedObjectLock, nil
			}
		}
	}
	if first.etag != "" {
		in.IfMatch = aws.String(`"` + first.etag + `"`)
	}
	_, err = s.c.DeleteObject(ctx, in)
	if err != nil && permanent(kind) && b.objectLock && !v.DeleteMarker && isCode(err, "AccessDenied") {
		// Some servers (SeaweedFS) refuse a retained version with a bare
		// "Access Denied". It is a lock refusal when the version is held or
		// retained by the server's clock, approximated by the wall clock
		// (the store clock may be pinned to a future --now).
		held, lerr := s.lockedAt(ctx, req.Bucket, req.Key, v.VersionID, s.wall())
		if lerr == nil && held {
			return filer.OutcomeSkippedObjectLock, nil
		}
	}
	if first.etag != "" && preconditionFailed(err) {
		return s.afterRefusal(ctx, req, kind, b, target, first)
	}
	if err == nil && permanent(kind) && v.VersionID == filer.NullVersionID && s.stillThere(ctx, req.Bucket, req.Key, v) {
		// SeaweedFS's gateway answers a delete of a null delete marker
		// with success and keeps it: every pass would count it DONE.
		return filer.OutcomeStuck, nil
	}
	return outcomeOf(err, "DeleteObject", target)
}

// stillThere reports whether a fresh listing of key still shows version v
// with its identity. A listing that fails says nothing: false.
func (s *Store) stillThere(ctx context.Context, bucket, key string, v filer.Version) bool {
	obj, found, err := s.lookup(ctx, bucket, key)
	if err != nil || !found {
		return false
	}
	i := slices.IndexFunc(obj.Versions, func(w filer.Version) bool { return w.VersionID == v.VersionID })
	return i >= 0 && sameIdentity(obj.Versions[i].Identity(), v.Identity())
}

// fresh is the target of a delete as reread just before sending it.
type fresh struct {
	version filer.Version // as the fresh listing shows it
	etag    string        // HeadObject's ETag, unquoted; "" for delete markers
}

// reread performs steps 1-3 of LifecycleDelete. It returns the target
// when the action still applies, else nil and the outcome (NOOP_RESOLVED)
// or transport error to return.
func (s *Store) reread(ctx context.Context, req filer.DeleteRequest, kind lifecycle.ActionKind, b *bucketInfo, target string) (*fresh, filer.Outcome, error) {
	obj, found, err := s.lookup(ctx, req.Bucket, req.Key)
	if errors.Is(err, filer.ErrAmbiguousLayout) {
		// Which entry the version ID names is unknown now: nothing is sent.
		return nil, filer.OutcomeNoopResolved, nil
	}
	if err != nil {
		out, err := outcomeOf(err, "ListObjectVersions", target)
		return nil, out, err
	}
	if !found {
		return nil, filer.OutcomeNoopResolved, nil
	}
	idx := slices.IndexFunc(obj.Versions, func(v filer.Version) bool { return v.VersionID == req.Expected.VersionID })
	if idx < 0 || !sameIdentity(obj.Versions[idx].Identity(), req.Expected) || !inPlace(kind, &obj, idx) {
		return nil, filer.OutcomeNoopResolved, nil
	}
	v := &obj.Versions[idx]
	if req.Applies != nil {
		if b.needsTags(obj.Key, v) {
			tags, found, err := s.versionTags(ctx, req.Bucket, b, req.Key, v.VersionID)
			if err != nil {
				return nil, "", err
			}
			if !found {
				return nil, filer.OutcomeNoopResolved, nil
			}
			v.Tags = tags
		}
		if !req.Applies(&obj, idx) {
			return nil, filer.OutcomeNoopResolved, nil
		}
	}
	f := &fresh{version: *v}
	if v.DeleteMarker {
		return f, "", nil
	}
	etag, same, err := s.head(ctx, req.Bucket, b, req.Key, v)
	if err != nil {
		return nil, "", err
	}
	if !same {
		return nil, filer.OutcomeNoopResolved, nil
	}
	f.etag = etag
	if f.etag == "" {
		f.etag = v.ETag // a HEAD without ETag: keep the listing's If-Match
	}
	return f, "", nil
}

// head reads version v of key with HeadObject (naming the version unless
// the bucket never had versioning) and reports whether it is still v: same
// version ID when the server names one, same size, same LastModified
// second. etag is the object's own ETag, unquoted. A version that is gone
// is not the same; other failures are an *APIError.
func (s *Store) head(ctx context.Context, bucket string, b *bucketInfo, key string, v *filer.Version) (etag string, same bool, err error) {
	in := &s3api.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if b.versioning != filer.VersioningOff {
		in.VersionId = aws.String(v.VersionID)
	}
	h, err := s.c.HeadObject(ctx, in)
	if httpStatus(err) == 404 || isCode(err, "NotFound", "NoSuchKey", "NoSuchVersion") {
		return "", false, nil
	}
	if err != nil {
		return "", false, apiErr("HeadObject", bucket+"/"+key+"@"+v.VersionID, err)
	}
	if id := aws.ToString(h.VersionId); id != "" && b.versioning != filer.VersioningOff && id != v.VersionID {
		return "", false, nil
	}
	if h.ContentLength == nil || *h.ContentLength != v.Size || h.LastModified == nil ||
		h.LastModified.Unix() != time.Unix(0, v.MtimeNs).Unix() || aws.ToBool(h.DeleteMarker) {
		return "", false, nil
	}
	return strings.Trim(aws.ToString(h.ETag), `"`), true, nil
}

// afterRefusal decides a 412 to a DeleteObject whose If-Match carried
// first.etag: when a second reread still shows the same target, in place,
// selected and with the same HEAD ETag, nothing changed that could explain
// the refusal, and the delete is STUCK rather than resolved.
func (s *Store) afterRefusal(ctx context.Context, req filer.DeleteRequest, kind lifecycle.ActionKind, b *bucketInfo, target string, first *fresh) (filer.Outcome, error) {
	again, out, err := s.reread(ctx, req, kind, b, target)
	if again == nil {
		return out, err
	}
	if again.etag != first.etag {
		return filer.OutcomeNoopResolved, nil
	}
	return filer.OutcomeStuck, nil
}

// preconditionFailed reports a 412 answer to If-Match.
func preconditionFailed(err error) bool {
	return err != nil && (httpStatus(err) == 412 || strings.EqualFold(errCode(err), "PreconditionFailed"))
}

// permanent reports whether kind deletes a version (VersionId set) rather
// than writing a delete marker over the latest.
func permanent(kind lifecycle.ActionKind) bool {
	return kind != lifecycle.ExpirationDays && kind != lifecycle.ExpirationDate
}

// inPlace reports whether obj.Versions[idx] is still where kind acts.
func inPlace(kind lifecycle.ActionKind, obj *filer.Object, idx int) bool {
	v := obj.Versions[idx]
	switch kind {
	case lifecycle.ExpirationDays, lifecycle.ExpirationDate:
		return idx == 0 && !v.DeleteMarker
	case lifecycle.NoncurrentDays, lifecycle.NewerNoncurrent:
		return idx > 0
	case lifecycle.ExpiredDeleteMarker:
		return len(obj.Versions) == 1 && v.DeleteMarker
	}
	return false
}

// sameIdentity compares what a listing shows with what was evaluated.
// MtimeNs is compared to the second: S3 Last-Modified headers carry whole
// seconds and some servers list milliseconds, so finer digits are noise.
func sameIdentity(got, want filer.Identity) bool {
	sec := func(ns int64) int64 { return time.Unix(0, ns).Truncate(time.Second).Unix() }
	return got.VersionID == want.VersionID && got.ETag == want.ETag && got.Size == want.Size &&
		sec(got.MtimeNs) == sec(want.MtimeNs)
}

// locked reports whether a version is under legal hold or retention that
// has not expired by the store clock. "No lock configuration" answers mean
// not locked; any other error is returned, so nothing is deleted on doubt.
func (s *Store) locked(ctx context.Context, bucket, key, versionID string) (bool, error) {
	return s.lockedAt(ctx, bucket, key, versionID, s.clock())
}

// lockedAt is locked with retention judged at now.
func (s *Store) lockedAt(ctx context.Context, bucket, key, versionID string, now time.Time) (bool, error) {
	hold, err := s.c.GetObjectLegalHold(ctx, &s3api.GetObjectLegalHoldInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(versionID)})
	switch {
	case err == nil:
		if hold.LegalHold != nil && hold.LegalHold.Status == types.ObjectLockLegalHoldStatusOn {
			return true, nil
		}
	case !noLockConfig(err):
		return false, err
	}
	ret, err := s.c.GetObjectRetention(ctx, &s3api.GetObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(versionID)})
	switch {
	case err == nil:
		r := ret.Retention
		return r != nil && r.Mode != "" && r.RetainUntilDate != nil && r.RetainUntilDate.After(now), nil
	case noLockConfig(err):
		return false, nil
	}
	return false, err
}

func noLockConfig(err error) bool {
	return isCode(err, "NoSuchObjectLockConfiguration", "ObjectLockConfigurationNotFoundError", "ObjectLockConfigurationNotFound",
		"NoSuchObjectLegalHold", "NoSuchObjectRetention")
}

func (s *Store) abortUpload(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	if req.Expected.UploadID == "" {
		return filer.OutcomeNoopResolved, nil
	}
	target := req.Bucket + "/" + req.Key + "#" + req.Expected.UploadID
	// AWS answers an abort of an upload that is gone with NoSuchUpload;
	// MinIO answers it with success. ListParts answers NoSuchUpload on
	// both, so an upload aborted already is NOOP_RESOLVED on every server.
	_, err := s.c.ListParts(ctx, &s3api.ListPartsInput{
		Bucket: aws.String(req.Bucket), Key: aws.String(req.Key), UploadId: aws.String(req.Expected.UploadID), MaxParts: aws.Int32(1),
	})
	if err != nil {
		return outcomeOf(err, "ListParts", target)
	}
	_, err = s.c.AbortMultipartUpload(ctx, &s3api.AbortMultipartUploadInput{
		Bucket: aws.String(req.Bucket), Key: aws.String(req.Key), UploadId: aws.String(req.Expected.UploadID),
	})
	return outcomeOf(err, "AbortMultipartUpload", target)
}

// outcomeOf maps an S3 response to a LifecycleDelete outcome; see
// LifecycleDelete for the table. Errors that are not S3 refusals are
// returned as transport errors.
func outcomeOf(err error, op, target string) (filer.Outcome, error) {
	if err == nil {
		return filer.OutcomeDone, nil
	}
	code, status := errCode(err), httpStatus(err)
	switch {
	case status == 412 || strings.EqualFold(code, "PreconditionFailed"):
		return filer.OutcomeNoopResolved, nil
	case isCode(err, "NoSuchKey", "NoSuchVersion", "NoSuchUpload", "NoSuchBucket") || (status == 404 && code == ""):
		return filer.OutcomeNoopResolved, nil
	case lockRefusal(err):
		return filer.OutcomeSkippedObjectLock, nil
	case isCode(err, "SlowDown", "ServiceUnavailable") || status == 503:
		return filer.OutcomeRetryLater, nil
	}
	return "", apiErr(op, target, err)
}

// lockRefusal recognises the ways servers refuse to delete a locked
// version: AWS AccessDenied naming Object Lock, MinIO's "Object is WORM
// protected", and InvalidRequest variants of both.
func lockRefusal(err error) bool {
	if !isCode(err, "AccessDenied", "InvalidRequest", "ObjectLocked") {
		return false
	}
	if isCode(err, "ObjectLocked") {
		return true
	}
	msg := strings.ToLower(errMessage(err))
	for _, w := range []string{"worm", "object lock", "object-lock", "objectlock", "retention", "legal hold", "locked"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
