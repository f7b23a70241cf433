// Package s3 is the s3:// filer backend: a filer.Store over any
// S3-compatible endpoint (AWS, SeaweedFS's S3 gateway, MinIO, Ceph RGW,
// RustFS, versitygw) through aws-sdk-go-v2.
//
// S3 has no meta-log, so SubscribeMetadata delivers nothing and NoMetaLog
// reports it (filer.MetaLogless): a pass then promotes every
// replay-eligible rule to the walker (docs/design/daily-run.md#engine-views). Deletes are
// checked on fresh reads (see LifecycleDelete): a fresh listing of the key
// must still show the listed version in the same position with the same
// ETag, size and LastModified, and the pass's rule must still select it
// with its tags read again. Concurrent deletes of a bucket share that
// listing and one DeleteObjects (batch.go), whose entries carry the listed
// ETag where the content a delete reaches can change; a delete sent on its
// own (Object Lock buckets, a refused entry) HEADs the version and carries
// If-Match with HEAD's ETag. A server that honours the condition closes
// the remaining race (CheckCAS tells whether it does).
// Cursors live in a local directory or an S3 prefix (Options.State), never
// in the data buckets.
package s3

import (
	"context"
	"fmt"
	"github.com/ilmctl/ilmctl/client/awsconf"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/config"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/core/filer"
)

// DefaultStateDir is where cursors go when Options.State is empty.
const DefaultStateDir = "./ilmctl-state"

// DefaultRegion is the signing region when neither Options.Region,
// AWS_REGION nor the shared config profile names one.
const DefaultRegion = awsconf.DefaultRegion

// Options configures Open.
type Options struct {
	// PathStyle addresses buckets as http://host/bucket (SeaweedFS, MinIO,
	// any IP endpoint) instead of http://bucket.host (AWS).
	PathStyle bool
	// Region signs requests; "" uses AWS_REGION or the profile's region,
	// else DefaultRegion.
	Region string
	// HTTPS selects https://; plain http:// otherwise. Open also sets it
	// when ILMCTL_S3_HTTPS=1, the convention client/metastore uses.
	HTTPS bool
	// State is where cursors live: a local directory (files mirror the
	// filer path below it) or s3://bucket[/prefix] on the same endpoint;
	// "" means DefaultStateDir.
	State string
	// Credentials signs requests; nil uses the SDK's default credential
	// chain (environment, shared files and AWS_PROFILE, SSO, container and
	// instance roles) and fails closed with ErrNoCredentials when none of
	// them yields credentials.
	Credentials aws.CredentialsProvider
	// Clock is "now" for Object Lock retention checks; time.Now when nil.
	// The run command passes the pass clock when --now pins it.
	Clock func() time.Time
	// Concurrency bounds the per-bucket requests ListBuckets makes at once;
	// 0 means 8.
	Concurrency int
}

// Store is a filer.Store over one S3 endpoint. It is safe for concurrent
// use: the SDK client is, and the bucket cache is guarded by mu.
type Store struct {
	c        *s3api.Client
	endpoint string
	clock    func() time.Time
	wall     func() time.Time // real time, for judging the server's lock refusals
	state    stateStore
	conc     int
	// deleteTimeout bounds one LifecycleDelete; 0 means
	// filer.DeleteTimeout (tests shorten it).
	deleteTimeout time.Duration
	// batch groups concurrent deletes into DeleteObjects requests.
	batch *batcher
	// batchETag is set once CheckCAS proved that the server honours the
	// ETag of a DeleteObjects entry; until then deletes that need that
	// condition are sent one DeleteObject each, with If-Match.
	batchETag atomic.Bool
	// oneByOne sends every delete through deleteOne (TEST SEAM: the tests
	// of that path).
	oneByOne bool

	mu      sync.Mutex
	buckets map[string]*bucketInfo
}

var (
	_ filer.Store       = (*Store)(nil)
	_ filer.ServerClock = (*Store)(nil)
)

// Open returns a Store for addr ("host" or "host:port", the part of
// s3://host:port after the scheme). It makes no request: a wrong endpoint
// or credentials surface on the first ListBuckets.
func Open(ctx context.Context, addr string, opts Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkAddr(addr); err != nil {
		return nil, err
	}
	cfg, err := awsconf.Load(ctx, opts.Region)
	if err != nil {
		return nil, err
	}
	if opts.Credentials != nil {
		cfg.Credentials = opts.Credentials
	} else if err := checkCredentials(ctx, cfg); err != nil {
		return nil, err
	}
	scheme := "http://"
	if opts.HTTPS || os.Getenv("ILMCTL_S3_HTTPS") == "1" {
		scheme = "https://"
	}
	c := s3api.NewFromConfig(cfg, func(o *s3api.Options) {
		o.BaseEndpoint = aws.String(scheme + addr)
		o.UsePathStyle = opts.PathStyle
		// Checksums only where S3 requires them: many S3-compatible servers
		// reject the SDK's default aws-chunked trailers.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		// One retry layer: the pass's (docs/design/daily-run.md#retries),
		// where every attempt waits on the rate limiter and a server
		// outcome (503 SlowDown) is never retried in-run. The SDK's own
		// retryer under it turned one delete into up to nine requests, and
		// could resend a conditional state write that had succeeded,
		// answering a false conflict.
		o.Retryer = aws.NopRetryer{}
	})
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 8
	}
	s := &Store{c: c, endpoint: scheme + addr, clock: clock, wall: time.Now, conc: conc, buckets: map[string]*bucketInfo{}}
	s.batch = newBatcher(s)
	st, err := openState(opts.State, s)
	if err != nil {
		return nil, err
	}
	s.state = st
	return s, nil
}

// checkAddr accepts host or host:port with no scheme, path or query.
func checkAddr(addr string) error {
	if addr == "" || strings.ContainsAny(addr, "/?#@ ") {
		return fmt.Errorf("%w %q: want s3://host:port, e.g. s3://127.0.0.1:8333", ErrBadAddress, "s3://"+addr)
	}
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if host == "" || port == "" {
			return fmt.Errorf("%w %q: want s3://host:port, e.g. s3://127.0.0.1:8333", ErrBadAddress, "s3://"+addr)
		}
	}
	return nil
}

// checkCredentials resolves the default chain once at Open so a run with no
// credentials fails before the pass, naming the fix, instead of on every
// request.
func checkCredentials(ctx context.Context, cfg aws.Config) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	const fix = "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"
	if cfg.Credentials == nil {
		return fmt.Errorf("%w: %s", ErrNoCredentials, fix)
	}
	_, err := cfg.Credentials.Retrieve(ctx)
	switch {
	case err == nil:
		return nil
	case !credentialsConfigured():
		// Nothing was set up: the chain's detail (down to the
		// instance-metadata probe) only says so at length.
		return fmt.Errorf("%w: %s", ErrNoCredentials, fix)
	}
	return fmt.Errorf("%w: %s (%v)", ErrNoCredentials, fix, err)
}

// credentialsConfigured reports whether anything the SDK's default chain
// reads first was set: the key or profile variables, or a shared
// credentials or config file. When one was, why it failed is worth
// printing.
func credentialsConfigured() bool {
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	for v, def := range map[string]string{"AWS_SHARED_CREDENTIALS_FILE": config.DefaultSharedCredentialsFilename(), "AWS_CONFIG_FILE": config.DefaultSharedConfigFilename()} {
		f := os.Getenv(v)
		if f == "" {
			f = def
		}
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}

// Endpoint returns the base URL requests go to, e.g. http://127.0.0.1:8333.
func (s *Store) Endpoint() string { return s.endpoint }

// NoMetaLog reports that this store has no meta-log: SubscribeMetadata
// never delivers an event, so every rule must be walker-bound.
func (s *Store) NoMetaLog() bool { return true }

// SubscribeMetadata delivers nothing: S3 has no meta-log (see NoMetaLog).
func (s *Store) SubscribeMetadata(ctx context.Context, sinceNs, untilNs int64, fn func(filer.Event) error) error {
	return ctx.Err()
}

// ReadFile reads a state file (cursor) from Options.State.
func (s *Store) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return s.state.read(ctx, path)
}

// WriteFile replaces a state file in Options.State atomically.
func (s *Store) WriteFile(ctx context.Context, path string, data []byte) error {
	return s.state.write(ctx, path, data)
}

// ServerTime is the endpoint's clock: the Date header of a signed
// ListBuckets (max-buckets 1) response, as the SDK records it in the
// response metadata. HTTP dates carry whole seconds, so the resolution is
// 1 s and the value errs early, never late: when ServerTime returns, the
// server's clock is past it by less than 1 s plus the response's travel
// time. A response without a parseable Date is ErrNoServerDate.
func (s *Store) ServerTime(ctx context.Context) (time.Time, error) {
	out, err := s.c.ListBuckets(ctx, &s3api.ListBucketsInput{MaxBuckets: aws.Int32(1)})
	if err != nil {
		return time.Time{}, apiErr("ListBuckets", "", err)
	}
	t, ok := awsmiddleware.GetServerTime(out.ResultMetadata)
	if !ok || t.IsZero() {
		return time.Time{}, fmt.Errorf("ListBuckets %s: %w", s.endpoint, ErrNoServerDate)
	}
	return t.UTC(), nil
}

// Close releases nothing: the SDK client holds no resources that need it.
func (s *Store) Close() error { return nil }
