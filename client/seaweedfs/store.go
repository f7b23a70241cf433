// Package seaweedfs is the seaweedfs:// filer backend: a filer.Store over a
// live SeaweedFS cluster's gRPC APIs, the filer's (SeaweedFiler: listing,
// lookup, meta-log subscription, state files) and the S3 gateway's
// lifecycle service (SeaweedS3LifecycleInternal.LifecycleDelete). It is the
// only ilmctl package importing SeaweedFS's generated protobuf packages, and
// its lifecycle engine (for the cursor hashes SeaweedFS's own worker
// compares, shared_cursors.go); it reads SeaweedFS's S3 layout exactly as
// the pinned SeaweedFS version writes it (see layout.go for every key and
// its source file).
package seaweedfs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"github.com/seaweedfs/seaweedfs/weed/pb/s3_lifecycle_pb"

	"github.com/ilmctl/ilmctl/core/filer"
)

// DefaultS3GRPCPort is the S3 gateway's gRPC port when none is given:
// SeaweedFS's default S3 HTTP port 8333 plus its usual +10000 gRPC offset.
const DefaultS3GRPCPort = 18333

// grpcPortOffset is SeaweedFS's convention: a server's gRPC port is its
// HTTP port + 10000 unless configured otherwise.
const grpcPortOffset = 10000

// openTimeout bounds the GetFilerConfiguration call Open uses to prove the
// filer answers.
const openTimeout = 10 * time.Second

// Options configures Open.
type Options struct {
	// S3GRPC is the S3 gateway's gRPC address (host:port) for
	// LifecycleDelete; "" means the filer host at DefaultS3GRPCPort.
	S3GRPC string
	// Auth signs admin tokens for LifecycleDelete when the cluster uses a
	// JWT signing key; the zero value sends none (the S3 gateway then
	// accepts only loopback callers). See AuthFromEnv.
	Auth Auth
}

// Store is a filer.Store over one SeaweedFS filer and S3 gateway. It is
// safe for concurrent use.
type Store struct {
	filerConn *grpc.ClientConn
	s3Conn    *grpc.ClientConn
	fc        filer_pb.SeaweedFilerClient
	lc        s3_lifecycle_pb.SeaweedS3LifecycleInternalClient
	// bucketsPath is the filer's buckets directory (GetFilerConfiguration
	// dir_buckets), "/buckets" by default.
	bucketsPath string
	auth        Auth
	// deleteTimeout bounds one LifecycleDelete call; 0 means
	// filer.DeleteTimeout (tests shorten it).
	deleteTimeout time.Duration
}

var _ filer.Store = (*Store)(nil)

// Open connects to the filer whose HTTP address is addr (host:port; its
// gRPC port is port+10000) and the S3 gateway's gRPC at opts.S3GRPC, and
// checks that the filer answers. Connections are plaintext: SeaweedFS's
// default, meant for loopback or a trusted network.
func Open(ctx context.Context, addr string, opts Options) (*Store, error) {
	host, port, err := splitHostPort(addr)
	if err != nil {
		return nil, err
	}
	filerGRPC := net.JoinHostPort(host, strconv.Itoa(port+grpcPortOffset))
	s3GRPC := opts.S3GRPC
	if s3GRPC == "" {
		s3GRPC = net.JoinHostPort(host, strconv.Itoa(DefaultS3GRPCPort))
	} else if h, _, err := net.SplitHostPort(s3GRPC); err != nil || h == "" {
		return nil, fmt.Errorf("%w: S3 gRPC address %q: want host:port (e.g. 127.0.0.1:18333)", ErrBadAddress, s3GRPC)
	}
	dial := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, ExtraDialOptions...)
	fconn, err := grpc.NewClient(filerGRPC, dial...)
	if err != nil {
		return nil, fmt.Errorf("seaweedfs filer gRPC %s: %w", filerGRPC, err)
	}
	sconn, err := grpc.NewClient(s3GRPC, dial...)
	if err != nil {
		fconn.Close()
		return nil, fmt.Errorf("seaweedfs S3 gRPC %s: %w", s3GRPC, err)
	}
	s := newStore(fconn, sconn, opts)
	cctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	cfg, err := s.fc.GetFilerConfiguration(cctx, &filer_pb.GetFilerConfigurationRequest{})
	if err != nil {
		s.Close()
		return nil, &noAnswerError{addr: addr, grpc: filerGRPC, err: err}
	}
	if d := cfg.GetDirBuckets(); d != "" {
		s.bucketsPath = d
	}
	return s, nil
}

func newStore(fconn, sconn *grpc.ClientConn, opts Options) *Store {
	return &Store{
		filerConn:   fconn,
		s3Conn:      sconn,
		fc:          filer_pb.NewSeaweedFilerClient(fconn),
		lc:          s3_lifecycle_pb.NewSeaweedS3LifecycleInternalClient(sconn),
		bucketsPath: "/buckets",
		auth:        opts.Auth,
	}
}

// Close closes both connections.
func (s *Store) Close() error {
	return errors.Join(s.filerConn.Close(), s.s3Conn.Close())
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return "", 0, fmt.Errorf("%w %q: want host:port (e.g. 127.0.0.1:8888)", ErrBadAddress, addr)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port+grpcPortOffset > 65535 {
		return "", 0, fmt.Errorf("%w %q: port must be 1-%d", ErrBadAddress, addr, 65535-grpcPortOffset)
	}
	return host, port, nil
}

func (s *Store) bucketDir(bucket string) string { return s.bucketsPath + "/" + bucket }

// ServerTime is the filer's clock: the start time of a self Ping
// (weed/server/filer_grpc_server_admin.go Ping, empty target), Unix
// nanoseconds as the filer stamps meta-log TsNs with.
func (s *Store) ServerTime(ctx context.Context) (time.Time, error) {
	resp, err := s.fc.Ping(ctx, &filer_pb.PingRequest{})
	if err != nil {
		return time.Time{}, fmt.Errorf("ping filer for its clock: %w", err)
	}
	if resp.GetStartTimeNs() <= 0 {
		return time.Time{}, fmt.Errorf("ping filer for its clock: no start_time_ns in the answer")
	}
	return time.Unix(0, resp.GetStartTimeNs()).UTC(), nil
}

var _ filer.ServerClock = (*Store)(nil)

// noAnswerError is a filer that did not answer the first call: one line
// naming the gRPC address tried, with the gRPC status's code in place of
// its transport detail (Unwrap keeps it), and a hint naming the filer and
// what to check.
type noAnswerError struct {
	addr, grpc string
	err        error
}

func (e *noAnswerError) Error() string {
	return fmt.Sprintf("no seaweedfs filer answers on gRPC %s (%s)", e.grpc, status.Code(e.err))
}

func (e *noAnswerError) Hint() string {
	return fmt.Sprintf("is a filer running at %s? (its gRPC port is that port + 10000)", e.addr)
}

func (e *noAnswerError) Unwrap() error { return e.err }
