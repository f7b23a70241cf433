// Package itest holds helpers for integration tests against a real S3
// endpoint (the S3 gateway of the SeaweedFS that scripts/seaweedfs.sh
// starts). Every helper takes the calling test's testing.TB and fails it on
// error, so a test reads as a list of steps; none of them skips.
package itest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// Environment variables naming the S3 endpoint under test.
const (
	EnvS3        = "ILMCTL_IT_S3"         // host:port, e.g. 127.0.0.1:8333
	EnvAccessKey = "ILMCTL_IT_ACCESS_KEY" // S3 access key
	EnvSecretKey = "ILMCTL_IT_SECRET_KEY" // S3 secret key
)

// S3Env reads EnvS3, EnvAccessKey and EnvSecretKey and fails t when any is
// unset: an integration run without a server is a failure, not a skip.
func S3Env(t testing.TB) (endpoint, access, secret string) {
	t.Helper()
	endpoint, access, secret = os.Getenv(EnvS3), os.Getenv(EnvAccessKey), os.Getenv(EnvSecretKey)
	if endpoint == "" || access == "" || secret == "" {
		t.Fatalf("integration tests need %s (host:port), %s and %s; start a server with scripts/seaweedfs.sh start", EnvS3, EnvAccessKey, EnvSecretKey)
	}
	return endpoint, access, secret
}

// S3 is an S3 client for test setup and assertions (path-style addressing,
// region us-east-1, plain HTTP unless the endpoint says https://).
type S3 struct {
	C        *s3.Client
	Endpoint string // as passed to NewClient
}

// NewClient returns a path-style client for endpoint ("host:port" or a
// full http(s):// URL) with static credentials.
func NewClient(endpoint, access, secret string) *S3 {
	base := endpoint
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider(access, secret, ""),
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(base)
		o.UsePathStyle = true
	})
	return &S3{C: c, Endpoint: endpoint}
}

// FromEnv is NewClient(S3Env(t)).
func FromEnv(t testing.TB) *S3 {
	t.Helper()
	return NewClient(S3Env(t))
}

func ctx(t testing.TB) context.Context {
	if tc, ok := t.(interface{ Context() context.Context }); ok {
		return tc.Context()
	}
	return context.Background()
}

// UniqueName returns prefix followed by a dash and 8 random hex digits,
// lower case so it is a valid bucket name for a valid prefix.
func UniqueName(prefix string) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return strings.ToLower(prefix) + "-" + hex.EncodeToString(b[:])
}

// CreateBucket creates a bucket named UniqueName(prefix) and registers a
// cleanup that empties and removes it. It returns the name.
func (s *S3) CreateBucket(t testing.TB, prefix string) string {
	t.Helper()
	return s.createBucket(t, prefix, false)
}

// CreateLockedBucket creates a bucket with Object Lock enabled (which also
// enables versioning) and registers a cleanup like CreateBucket's; objects
// still under retention when the test ends stay behind.
func (s *S3) CreateLockedBucket(t testing.TB, prefix string) string {
	t.Helper()
	return s.createBucket(t, prefix, true)
}

// CreateBucketWhere is CreateBucket for a test that needs its bucket's
// name to have a property (where the keys it seeds shard, say): it draws
// names until ok accepts one, so the test does not hang on the luck of a
// random name.
func (s *S3) CreateBucketWhere(t testing.TB, prefix string, ok func(name string) bool) string {
	t.Helper()
	for range 10000 {
		if name := UniqueName(prefix); ok(name) {
			return s.createNamedBucket(t, name, false)
		}
	}
	t.Fatalf("no bucket name %s-… of 10000 drawn has the property the test needs", prefix)
	return ""
}

func (s *S3) createBucket(t testing.TB, prefix string, lock bool) string {
	t.Helper()
	return s.createNamedBucket(t, UniqueName(prefix), lock)
}

func (s *S3) createNamedBucket(t testing.TB, name string, lock bool) string {
	t.Helper()
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	if lock {
		in.ObjectLockEnabledForBucket = aws.Bool(true)
	}
	if _, err := s.C.CreateBucket(ctx(t), in); err != nil {
		t.Fatalf("create bucket %s (object lock %v): %v", name, lock, err)
	}
	t.Cleanup(func() { s.RemoveBucket(t, name) })
	return name
}

// RemoveBucket deletes every version, delete marker and upload of bucket
// (releasing legal holds and bypassing GOVERNANCE retention; COMPLIANCE
// retention cannot be lifted, so such buckets stay) and then the bucket. It reports
// problems with t.Logf only: it runs in cleanups, after the assertions.
func (s *S3) RemoveBucket(t testing.TB, bucket string) {
	t.Helper()
	c := context.Background()
	vs, ups, err := s.list(c, bucket)
	if err != nil {
		t.Logf("cleanup %s: %v", bucket, err)
		return
	}
	for _, v := range vs {
		if !v.marker {
			// Release a legal hold; absent one this fails harmlessly.
			_, _ = s.C.PutObjectLegalHold(c, &s3.PutObjectLegalHoldInput{
				Bucket: aws.String(bucket), Key: aws.String(v.key), VersionId: aws.String(v.versionID),
				LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOff},
			})
		}
		_, err := s.C.DeleteObject(c, &s3.DeleteObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(v.key), VersionId: aws.String(v.versionID),
			BypassGovernanceRetention: aws.Bool(true),
		})
		if err != nil {
			t.Logf("cleanup %s: delete %s@%s: %v", bucket, v.key, v.versionID, err)
		}
	}
	for _, u := range ups {
		_, err := s.C.AbortMultipartUpload(c, &s3.AbortMultipartUploadInput{
			Bucket: aws.String(bucket), Key: aws.String(u.key), UploadId: aws.String(u.uploadID),
		})
		if err != nil {
			t.Logf("cleanup %s: abort %s %s: %v", bucket, u.key, u.uploadID, err)
		}
	}
	if _, err := s.C.DeleteBucket(c, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Logf("cleanup %s: delete bucket: %v", bucket, err)
	}
}

// PutVersioning sets bucket's versioning status: "Enabled" or "Suspended".
func (s *S3) PutVersioning(t testing.TB, bucket, status string) {
	t.Helper()
	st := types.BucketVersioningStatus(status)
	if st != types.BucketVersioningStatusEnabled && st != types.BucketVersioningStatusSuspended {
		t.Fatalf("PutVersioning %s: status %q is neither Enabled nor Suspended", bucket, status)
	}
	_, err := s.C.PutBucketVersioning(ctx(t), &s3.PutBucketVersioningInput{
		Bucket:                  aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: st},
	})
	if err != nil {
		t.Fatalf("put versioning %s on %s: %v", status, bucket, err)
	}
}

// PutLifecycleXML stores the raw LifecycleConfiguration document xml on
// bucket, byte for byte, so tests control exactly what the server holds.
// It bypasses the SDK's typed input (which would re-marshal the rules).
func (s *S3) PutLifecycleXML(t testing.TB, bucket, xml string) {
	t.Helper()
	if err := s.putLifecycleRaw(ctx(t), bucket, xml); err != nil {
		t.Fatalf("put lifecycle on %s: %v", bucket, err)
	}
}

// TryPutLifecycleXML is PutLifecycleXML returning the server's answer
// instead of failing t, for tests of what a server refuses.
func (s *S3) TryPutLifecycleXML(t testing.TB, bucket, xml string) error {
	t.Helper()
	return s.putLifecycleRaw(ctx(t), bucket, xml)
}

// PutObject writes key with body and, when tags is non-empty, those object
// tags. It returns the new version ID ("" on an unversioned bucket, as S3
// reports none) and the ETag without quotes.
func (s *S3) PutObject(t testing.TB, bucket, key, body string, tags map[string]string) (versionID, etag string) {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte(body))}
	if len(tags) > 0 {
		in.Tagging = aws.String(EncodeTags(tags))
	}
	out, err := s.C.PutObject(ctx(t), in)
	if err != nil {
		t.Fatalf("put %s/%s: %v", bucket, key, err)
	}
	return aws.ToString(out.VersionId), strings.Trim(aws.ToString(out.ETag), `"`)
}

// EncodeTags renders tags as the URL query string S3's x-amz-tagging
// header takes, keys sorted.
func EncodeTags(tags map[string]string) string {
	v := url.Values{}
	for k, val := range tags {
		v.Set(k, val)
	}
	return v.Encode()
}

// DeleteObject deletes key without a version ID: on a versioned bucket this
// writes a delete marker, whose version ID it returns.
func (s *S3) DeleteObject(t testing.TB, bucket, key string) (markerVersionID string) {
	t.Helper()
	out, err := s.C.DeleteObject(ctx(t), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("delete %s/%s: %v", bucket, key, err)
	}
	return aws.ToString(out.VersionId)
}

// CreateMultipartUpload initiates an upload of key and returns its ID.
func (s *S3) CreateMultipartUpload(t testing.TB, bucket, key string) (uploadID string) {
	t.Helper()
	out, err := s.C.CreateMultipartUpload(ctx(t), &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("create multipart upload %s/%s: %v", bucket, key, err)
	}
	return aws.ToString(out.UploadId)
}

// PutMultipart completes a multipart upload of key from parts of the given
// sizes (bytes; every part but the last at least 5 MiB) and returns the new
// version ID ("" on an unversioned bucket) and the ETag
// CompleteMultipartUpload answered, unquoted.
func (s *S3) PutMultipart(t testing.TB, bucket, key string, sizes ...int) (versionID, etag string) {
	t.Helper()
	c := ctx(t)
	up, err := s.C.CreateMultipartUpload(c, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("create multipart upload %s/%s: %v", bucket, key, err)
	}
	var parts []types.CompletedPart
	for i, size := range sizes {
		n := int32(i + 1)
		body := bytes.Repeat([]byte{byte('a' + i)}, size)
		out, err := s.C.UploadPart(c, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key),
			UploadId: up.UploadId, PartNumber: aws.Int32(n), Body: bytes.NewReader(body)})
		if err != nil {
			t.Fatalf("upload part %d of %s/%s: %v", n, bucket, key, err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
	}
	done, err := s.C.CompleteMultipartUpload(c, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		t.Fatalf("complete multipart upload %s/%s: %v", bucket, key, err)
	}
	return aws.ToString(done.VersionId), strings.Trim(aws.ToString(done.ETag), `"`)
}

// PutLegalHold turns the legal hold of key's version on or off.
func (s *S3) PutLegalHold(t testing.TB, bucket, key, versionID string, on bool) {
	t.Helper()
	st := types.ObjectLockLegalHoldStatusOff
	if on {
		st = types.ObjectLockLegalHoldStatusOn
	}
	_, err := s.C.PutObjectLegalHold(ctx(t), &s3.PutObjectLegalHoldInput{
		Bucket: aws.String(bucket), Key: aws.String(key), VersionId: optional(versionID),
		LegalHold: &types.ObjectLockLegalHold{Status: st},
	})
	if err != nil {
		t.Fatalf("put legal hold %v on %s/%s@%s: %v", on, bucket, key, versionID, err)
	}
}

// PutRetention sets key's version under retention until until; mode is
// "GOVERNANCE" or "COMPLIANCE".
func (s *S3) PutRetention(t testing.TB, bucket, key, versionID, mode string, until time.Time) {
	t.Helper()
	_, err := s.C.PutObjectRetention(ctx(t), &s3.PutObjectRetentionInput{
		Bucket: aws.String(bucket), Key: aws.String(key), VersionId: optional(versionID),
		Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionMode(mode), RetainUntilDate: aws.Time(until.UTC())},
	})
	if err != nil {
		t.Fatalf("put retention %s until %s on %s/%s@%s: %v", mode, until.Format(time.RFC3339), bucket, key, versionID, err)
	}
}

// ListAll returns what bucket holds: every version as "key@versionID", a
// delete marker as "key@versionID[DM]", and every incomplete multipart
// upload as "key#uploadID", each list sorted. Tests compare these to the
// exact set they expect to survive a pass.
func (s *S3) ListAll(t testing.TB, bucket string) (versions, uploads []string) {
	t.Helper()
	vs, ups, err := s.list(ctx(t), bucket)
	if err != nil {
		t.Fatalf("list %s: %v", bucket, err)
	}
	versions, uploads = []string{}, []string{}
	for _, v := range vs {
		e := v.key + "@" + v.versionID
		if v.marker {
			e += "[DM]"
		}
		versions = append(versions, e)
	}
	for _, u := range ups {
		uploads = append(uploads, u.key+"#"+u.uploadID)
	}
	sort.Strings(versions)
	sort.Strings(uploads)
	return versions, uploads
}

type listedVersion struct {
	key, versionID string
	marker         bool
}

type listedUpload struct{ key, uploadID string }

// errTruncated is a listing page that claims more without a marker.
var errTruncated = errors.New("listing truncated without a continuation marker")

func (s *S3) list(c context.Context, bucket string) ([]listedVersion, []listedUpload, error) {
	var vs []listedVersion
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)}
	for {
		out, err := s.C.ListObjectVersions(c, in)
		if err != nil {
			return nil, nil, fmt.Errorf("list object versions: %w", err)
		}
		for _, v := range out.Versions {
			vs = append(vs, listedVersion{key: aws.ToString(v.Key), versionID: aws.ToString(v.VersionId)})
		}
		for _, m := range out.DeleteMarkers {
			vs = append(vs, listedVersion{key: aws.ToString(m.Key), versionID: aws.ToString(m.VersionId), marker: true})
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		if out.NextKeyMarker == nil && out.NextVersionIdMarker == nil {
			return nil, nil, fmt.Errorf("list object versions: %w", errTruncated)
		}
		in.KeyMarker, in.VersionIdMarker = out.NextKeyMarker, out.NextVersionIdMarker
	}
	var ups []listedUpload
	uin := &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)}
	for {
		out, err := s.C.ListMultipartUploads(c, uin)
		if err != nil {
			return nil, nil, fmt.Errorf("list multipart uploads: %w", err)
		}
		for _, u := range out.Uploads {
			ups = append(ups, listedUpload{key: aws.ToString(u.Key), uploadID: aws.ToString(u.UploadId)})
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		if out.NextKeyMarker == nil && out.NextUploadIdMarker == nil {
			return nil, nil, fmt.Errorf("list multipart uploads: %w", errTruncated)
		}
		uin.KeyMarker, uin.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
	return vs, ups, nil
}

// IsCode reports whether err is an S3 API error with one of codes.
func IsCode(err error, codes ...string) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	for _, c := range codes {
		if ae.ErrorCode() == c {
			return true
		}
	}
	return false
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}
