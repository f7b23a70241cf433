package s3

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/ilmctl/ilmctl/core/filer"
)

// CASPrefix starts the name of every scratch bucket or key CheckCAS uses.
const CASPrefix = "ilmctl-cas-check-"

// wrongETag is an If-Match value no object has.
const wrongETag = `"00000000000000000000000000000000"`

// CheckCAS probes whether the endpoint honours If-Match on DeleteObject,
// on which identity-checked deletes rely (docs/s3.md, --check-cas). It
// works in a scratch bucket CASPrefix+<random> it creates and removes, or,
// when Options.State is s3://bucket/prefix, under a scratch key there:
//
//  1. PUT an object, DeleteObject with a wrong If-Match: the object must
//     survive (a 412); deleted means ErrIfMatchIgnored.
//  2. DeleteObject with the right If-Match: the object must go.
//  3. DeleteObjects entries with a wrong ETag, naming no version and the
//     null version: each must be refused (PreconditionFailed) and the
//     object survive. This decides whether batched deletes carry the
//     ETag condition (casProbeBatch); a server that ignores it is not
//     refused, its current and null versions are deleted one by one.
//  4. In its own scratch bucket, with versioning enabled, step 1 again
//     with a VersionId, as noncurrent deletes send it.
//
// Anything else — If-Match rejected (e.g. 501), a 2xx that deleted nothing,
// a matching If-Match refused — is ErrIfMatchUnreliable. On success it
// returns a one-line finding. Scratch objects are removed either way;
// cleanup failures are joined to the result.
func (s *Store) CheckCAS(ctx context.Context) (finding string, err error) {
	suffix, err := randomSuffix()
	if err != nil {
		return "", err
	}
	bucket, key, own := CASPrefix+suffix, "probe", true
	if bs, ok := s.state.(*bucketState); ok {
		bucket, key, own = bs.bucket, bs.prefix+CASPrefix+suffix, false
	}
	if own {
		if _, err := s.c.CreateBucket(ctx, &s3api.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			return "", apiErr("CreateBucket", bucket, err)
		}
	}
	defer func() {
		if cerr := s.casCleanup(context.WithoutCancel(ctx), bucket, key, own); cerr != nil {
			err = errors.Join(err, fmt.Errorf("--check-cas cleanup of %s/%s: %w", bucket, key, cerr))
		}
	}()
	if err := s.casProbe(ctx, bucket, key, ""); err != nil {
		return "", err
	}
	batched, err := s.casProbeBatch(ctx, bucket, key)
	if err != nil {
		return "", err
	}
	s.batchETag.Store(batched)
	batchFinding := "and the ETag of a DeleteObjects entry: batched deletes carry it"
	if !batched {
		batchFinding = "but not the ETag of a DeleteObjects entry: current and null versions are deleted one DeleteObject each"
	}
	if !own {
		return fmt.Sprintf("%s honours If-Match on DeleteObject (probed in %s/%s; versioned deletes not probed: the --state bucket's versioning is left alone), %s", s.endpoint, bucket, key, batchFinding), nil
	}
	_, err = s.c.PutBucketVersioning(ctx, &s3api.PutBucketVersioningInput{
		Bucket: aws.String(bucket), VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled},
	})
	if err != nil {
		return "", apiErr("PutBucketVersioning", bucket, err)
	}
	if err := s.casProbe(ctx, bucket, key, "versioned"); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s honours If-Match on DeleteObject, with and without VersionId, %s", s.endpoint, batchFinding), nil
}

// casProbeBatch reports whether the server honours the ETag of a
// DeleteObjects entry, as batched deletes of current and null versions
// rely on: it PUTs bucket/key and sends two DeleteObjects with a wrong
// ETag, one naming no version (as Expiration does) and one naming the
// null version; each must refuse its entry with PreconditionFailed and
// leave the object. Any other answer is false, and an object deleted by
// the probe is written again for the probes after it. err is only a
// request that failed outright (the PUT, a HEAD).
func (s *Store) casProbeBatch(ctx context.Context, bucket, key string) (honoured bool, err error) {
	honoured = true
	for _, versionID := range []string{"", filer.NullVersionID} {
		if _, err := s.c.PutObject(ctx, &s3api.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte("ilmctl --check-cas probe\n"))}); err != nil {
			return false, apiErr("PutObject", bucket+"/"+key, err)
		}
		id := types.ObjectIdentifier{Key: aws.String(key), VersionId: optional(versionID), ETag: aws.String(wrongETag)}
		out, derr := s.c.DeleteObjects(ctx, &s3api.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{id}}})
		refused := derr == nil && len(out.Errors) == 1 && len(out.Deleted) == 0 && isCode(&smithy.GenericAPIError{Code: aws.ToString(out.Errors[0].Code)}, "PreconditionFailed")
		exists, err := s.exists(ctx, bucket, key, "")
		if err != nil {
			return false, err
		}
		if !refused || !exists {
			honoured = false
		}
	}
	return honoured, nil
}

// casProbe runs one wrong-then-right If-Match round on bucket/key. With
// mode "versioned" the wrong delete names the new version's ID and the
// right one is skipped (the version is removed by cleanup).
func (s *Store) casProbe(ctx context.Context, bucket, key, mode string) error {
	put, err := s.c.PutObject(ctx, &s3api.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte("ilmctl --check-cas probe\n"))})
	if err != nil {
		return apiErr("PutObject", bucket+"/"+key, err)
	}
	what := "DeleteObject"
	in := &s3api.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), IfMatch: aws.String(wrongETag)}
	if mode == "versioned" {
		in.VersionId = put.VersionId
		what = "DeleteObject with VersionId"
	}
	_, derr := s.c.DeleteObject(ctx, in)
	switch {
	case derr == nil:
		exists, err := s.exists(ctx, bucket, key, aws.ToString(in.VersionId))
		if err != nil {
			return err
		}
		if !exists {
			return fmt.Errorf("%s: %w (a %s with a wrong If-Match deleted the object)", s.endpoint, ErrIfMatchIgnored, what)
		}
		return fmt.Errorf("%s: %w (a %s with a wrong If-Match answered success but kept the object)", s.endpoint, ErrIfMatchUnreliable, what)
	case httpStatus(derr) != 412 && !isCode(derr, "PreconditionFailed"):
		return fmt.Errorf("%s: %w (a %s with a wrong If-Match failed with %v, want 412 PreconditionFailed)", s.endpoint, ErrIfMatchUnreliable, what, derr)
	}
	if mode == "versioned" {
		return nil
	}
	if _, err := s.c.DeleteObject(ctx, &s3api.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), IfMatch: put.ETag}); err != nil {
		return fmt.Errorf("%s: %w (a DeleteObject with the matching If-Match %s failed: %v)", s.endpoint, ErrIfMatchUnreliable, aws.ToString(put.ETag), err)
	}
	exists, err := s.exists(ctx, bucket, key, "")
	if err != nil {
		return err
	}
	if exists {
		return fmt.Errorf("%s: %w (a DeleteObject with the matching If-Match answered success but kept the object)", s.endpoint, ErrIfMatchUnreliable)
	}
	return nil
}

// exists is HeadObject (of versionID when set): false on 404.
func (s *Store) exists(ctx context.Context, bucket, key, versionID string) (bool, error) {
	_, err := s.c.HeadObject(ctx, &s3api.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: optional(versionID)})
	if err == nil {
		return true, nil
	}
	if httpStatus(err) == 404 || isCode(err, "NotFound", "NoSuchKey", "NoSuchVersion") {
		return false, nil
	}
	return false, apiErr("HeadObject", bucket+"/"+key, err)
}

// casCleanup removes every version of key and, when own, the bucket.
func (s *Store) casCleanup(ctx context.Context, bucket, key string, own bool) error {
	var errs []error
	obj, _, err := s.lookup(ctx, bucket, key)
	if err != nil {
		errs = append(errs, err)
	}
	for _, v := range obj.Versions {
		in := &s3api.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(v.VersionID)}
		if v.VersionID == "null" && !own {
			in.VersionId = nil // the --state bucket may be unversioned
		}
		if _, err := s.c.DeleteObject(ctx, in); err != nil && !isCode(err, "NoSuchKey", "NoSuchVersion") {
			errs = append(errs, apiErr("DeleteObject", bucket+"/"+key, err))
		}
	}
	if own {
		if _, err := s.c.DeleteBucket(ctx, &s3api.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
			errs = append(errs, apiErr("DeleteBucket", bucket, err))
		}
	}
	return errors.Join(errs...)
}

func randomSuffix() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("--check-cas: random name: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
