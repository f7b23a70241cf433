package metastore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ilmctl/ilmctl/client/awsconf"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	core "github.com/ilmctl/ilmctl/core/metastore"
)

// S3 is a pool in an S3 bucket; keys are objects under an optional prefix.
// Credentials and region come from the SDK's default chain (see
// client/awsconf): AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE,
// roles; AWS_REGION, default us-east-1.
// Set ILMCTL_S3_HTTPS=1 to use TLS.
type S3 struct {
	name, bucket, prefix string
	c                    *s3.Client
	creds                aws.CredentialsProvider
	// now dates a conditional-delete probe that passed (probedAt), which
	// is trusted for ProbeTTL; probeMu serializes probes.
	now      func() time.Time
	probeMu  sync.Mutex
	probedAt time.Time
}

// OpenS3 parses s3://host:port/bucket[/prefix].
func OpenS3(ctx context.Context, url string) (*S3, error) {
	rest := strings.TrimPrefix(url, "s3://")
	host, path, ok := strings.Cut(rest, "/")
	if !ok || host == "" || path == "" {
		return nil, fmt.Errorf("bad --meta %q: want s3://host:port/bucket[/prefix]", url)
	}
	bucket, prefix, _ := strings.Cut(path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	scheme := "http://"
	if os.Getenv("ILMCTL_S3_HTTPS") == "1" {
		scheme = "https://"
	}
	cfg, err := awsconf.Load(ctx, "")
	if err != nil {
		return nil, err
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(scheme + host)
		o.UsePathStyle = true
		// Servers that return no response checksum (SeaweedFS among them)
		// would otherwise make the SDK log "Response has no supported
		// checksum" to stderr on every Get, i.e. once per record a scan
		// reads. Validation still runs when the server sends a checksum.
		o.DisableLogOutputChecksumValidationSkipped = true
	})
	return &S3{name: url, bucket: bucket, prefix: prefix, c: c, creds: cfg.Credentials, now: time.Now}, nil
}

// WrapHTTPClient makes s send every request through wrap(its HTTP client)
// (tests only: commands/recovery's kill tests stop a PUT with half its
// body sent, the s3:// counterpart of SetBeforeRename).
func WrapHTTPClient(s *S3, wrap func(s3.HTTPClient) s3.HTTPClient) {
	o := s.c.Options()
	o.HTTPClient = wrap(o.HTTPClient)
	s.c = s3.New(o)
}

// Name returns the pool URL.
func (s *S3) Name() string { return s.name }

// Actor is the access key ID of the store's credentials: who recovery
// receipts and audit lines name. Never the secret.
func (s *S3) Actor(ctx context.Context) (string, error) {
	if s.creds == nil {
		return "", fmt.Errorf("%s: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_PROFILE", s.name)
	}
	c, err := s.creds.Retrieve(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: credentials: %w", s.name, err)
	}
	if c.AccessKeyID == "" {
		return "", fmt.Errorf("%s: credentials have no access key ID", s.name)
	}
	return "access-key:" + c.AccessKeyID, nil
}

func (s *S3) mapErr(key string, err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%s: %s: %w", s.name, key, core.ErrNotFound)
		case "PreconditionFailed", "ConditionalRequestConflict":
			return fmt.Errorf("%s: %s: %w", s.name, key, core.ErrPreconditionFailed)
		}
	}
	return fmt.Errorf("%s: %s: %w", s.name, key, err)
}

// conditionalErr maps a failed conditional write to the store contract's
// typed error (docs/design/recovery.md#metadata-store-write-contract). S3
// servers answer a conditional request on a missing key differently
// (SeaweedFS: 412 for a DELETE with If-Match, 404 for a PUT), so a 412 on
// If-Match is resolved by a HEAD: a missing key is ErrNotFound, a present
// one ErrPreconditionFailed. Either answer was true at some instant during
// the call; the write itself changed nothing.
func (s *S3) conditionalErr(ctx context.Context, key string, err error, create bool) error {
	mapped := s.mapErr(key, err)
	if !errors.Is(mapped, core.ErrPreconditionFailed) {
		return mapped
	}
	if create {
		return fmt.Errorf("%s: %s: %w", s.name, key, core.ErrExists)
	}
	_, herr := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key)})
	if herr == nil {
		return mapped
	}
	if h := s.mapErr(key, herr); errors.Is(h, core.ErrNotFound) {
		return h
	}
	return mapped
}

// Get is a strong read.
func (s *S3) Get(ctx context.Context, key string) ([]byte, string, error) {
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key)})
	if err != nil {
		return nil, "", s.mapErr(key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, "", err
	}
	return b, strings.Trim(aws.ToString(out.ETag), `"`), nil
}

// List is one ListObjectsV2 page; keys are returned without the pool
// prefix, and keys in the pool's temporaries (a conditional-delete probe a
// killed process left) are not returned, as the dir: store skips its own.
func (s *S3) List(ctx context.Context, prefix, token string, limit int) (core.Page, error) {
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix), MaxKeys: aws.Int32(int32(limit))}
	if token != "" {
		in.ContinuationToken = aws.String(token)
	}
	out, err := s.c.ListObjectsV2(ctx, in)
	if err != nil {
		return core.Page{}, s.mapErr(prefix, err)
	}
	p := core.Page{Truncated: aws.ToBool(out.IsTruncated), NextToken: aws.ToString(out.NextContinuationToken)}
	for _, o := range out.Contents {
		key := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
		if inTemporaries(key) {
			continue
		}
		p.Objects = append(p.Objects, core.Object{
			Key: key, ETag: strings.Trim(aws.ToString(o.ETag), `"`),
			Size: aws.ToInt64(o.Size), LastModified: aws.ToTime(o.LastModified),
		})
	}
	return p, nil
}

// oneAttempt turns the SDK's retries off for a conditional write: one
// call is one request. A resent write whose first attempt was applied but
// whose answer was lost (a reset, a 500, a 503 SlowDown) would meet its
// own result and answer ErrExists, ErrPreconditionFailed or ErrNotFound,
// a conflict that never happened. Without the resend the caller sees the
// transport or server error, none of the three, and a rerun reads the
// pool again (docs/design/recovery.md#metadata-store-write-contract).
// Reads keep the SDK's standard retries: they change nothing.
func oneAttempt(o *s3.Options) { o.Retryer = aws.NopRetryer{} }

// PutIfAbsent uses If-None-Match: *.
func (s *S3) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	out, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key), Body: bytes.NewReader(data), IfNoneMatch: aws.String("*")}, oneAttempt)
	if err != nil {
		return "", s.conditionalErr(ctx, key, err, true)
	}
	return strings.Trim(aws.ToString(out.ETag), `"`), nil
}

// PutIfMatch uses If-Match.
func (s *S3) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	out, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key), Body: bytes.NewReader(data), IfMatch: aws.String(`"` + etag + `"`)}, oneAttempt)
	if err != nil {
		return "", s.conditionalErr(ctx, key, err, false)
	}
	return strings.Trim(aws.ToString(out.ETag), `"`), nil
}

// DeleteIfMatch uses If-Match on DeleteObject, and only on a server that
// showed it honours it (CheckConditionalDelete, asked before the first
// delete and again after ProbeTTL): on one that ignores If-Match the
// delete would not be conditional, so none is sent.
func (s *S3) DeleteIfMatch(ctx context.Context, key, etag string) error {
	if err := s.CheckConditionalDelete(ctx); err != nil {
		return err
	}
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key), IfMatch: aws.String(`"` + etag + `"`)}, oneAttempt)
	if err != nil {
		return s.conditionalErr(ctx, key, err, false)
	}
	return nil
}
