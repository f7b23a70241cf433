// Package client opens the filer a command names. Today only the embedded
// filer (a directory holding a bbolt filer.db) exists; remote filers
// (seaweedfs://, s3://) are named here so a spec for one fails with a clear
// message instead of being mistaken for a directory.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/client/embedded"
	"github.com/ilmctl/ilmctl/core/filer"
)

// Filer is a filer.Store the caller must Close.
type Filer interface {
	filer.Store
	Close() error
}

// Options configures Open.
type Options struct {
	// Clock supplies "now" for the TsNs of new mutations and object-lock
	// checks; time.Now when nil.
	Clock func() time.Time
	// S3GRPC is the SeaweedFS S3 gRPC address (host:port) used for
	// LifecycleDelete by the seaweedfs:// backend; "" means the filer host
	// at port 18333.
	S3GRPC string
	// S3PathStyle and Region configure the s3:// backend.
	S3PathStyle bool
	Region      string
	// State is where the s3:// backend keeps cursors: a local directory or
	// s3://bucket/prefix.
	State string
	// MustExist makes Open fail with an error matching ErrNoFiler instead
	// of creating an empty filer. Set it for every command that only reads
	// or processes an existing filer (ls, run), so a mistyped --filer is an
	// error rather than an empty pass.
	MustExist bool
}

// ErrNoFiler matches the error Open returns under MustExist when the spec
// names no filer.
var ErrNoFiler = embedded.ErrNoFiler

// FixtureSummary counts what LoadFixture wrote.
type FixtureSummary = embedded.FixtureSummary

// Open opens the filer spec names: seaweedfs://host:port is a live
// SeaweedFS filer (HTTP port; gRPC at port+10000), s3://host:port any
// S3-compatible endpoint, and a directory path, optionally written
// "dir:PATH", the embedded filer in that directory.
func Open(ctx context.Context, spec string, opts Options) (Filer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if addr, ok := strings.CutPrefix(spec, "seaweedfs://"); ok {
		return openSeaweedFS(ctx, addr, opts)
	}
	if addr, ok := strings.CutPrefix(spec, "s3://"); ok {
		return openS3(ctx, addr, opts)
	}
	dir, err := embeddedDir(spec)
	if err != nil {
		return nil, err
	}
	return embedded.Open(dir, embedded.Options{Clock: opts.Clock, MustExist: opts.MustExist})
}

func embeddedDir(spec string) (string, error) {
	if spec == "" {
		return "", errors.New("empty filer spec: pass --filer DIR")
	}
	if dir, ok := strings.CutPrefix(spec, "dir:"); ok {
		if dir == "" {
			return "", errors.New("filer spec \"dir:\" names no directory: pass --filer DIR")
		}
		return dir, nil
	}
	if scheme, _, ok := strings.Cut(spec, "://"); ok {
		return "", fmt.Errorf("filer scheme %q not supported: use seaweedfs://host:port, s3://host:port, or a directory for the embedded filer (--filer ./ilmctl-data)", scheme)
	}
	return spec, nil
}

// LoadOptions, LoadPoint and LoadResult are embedded.Load's.
type (
	LoadOptions = embedded.LoadOptions
	LoadPoint   = embedded.LoadPoint
	LoadResult  = embedded.LoadResult
)

// Load loads a fixture (see embedded.Fixture) into the embedded filer spec
// names, creating it if needed, all or nothing even under kill -9 (see
// embedded.Load). Remote filers cannot load fixtures.
func Load(ctx context.Context, spec string, r io.Reader, opts LoadOptions) (LoadResult, error) {
	if err := ctx.Err(); err != nil {
		return LoadResult{}, err
	}
	if strings.HasPrefix(spec, "seaweedfs://") || strings.HasPrefix(spec, "s3://") {
		return LoadResult{}, fmt.Errorf("filer %s cannot load fixtures: fixtures load into the embedded filer only (--filer DIR)", spec)
	}
	dir, err := embeddedDir(spec)
	if err != nil {
		return LoadResult{}, err
	}
	return embedded.Load(ctx, dir, r, opts)
}

// LoadFixture loads a fixture (see embedded.Fixture) into f, which must be
// the embedded filer, in one transaction.
func LoadFixture(ctx context.Context, f Filer, r io.Reader) (FixtureSummary, error) {
	e, ok := f.(*embedded.Filer)
	if !ok {
		return FixtureSummary{}, fmt.Errorf("filer %T cannot load fixtures: fixtures load into the embedded filer only", f)
	}
	return e.LoadFixture(ctx, r)
}
