// Package client opens the filer a command names: a directory (or
// dir:PATH) is the embedded filer (client/embedded), seaweedfs://host:port
// a live SeaweedFS cluster (client/seaweedfs), s3://host[:port] any
// S3-compatible endpoint (client/s3). A spec that names none of them is
// ErrBadSpec, never mistaken for a directory.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/client/embedded"
	s3store "github.com/ilmctl/ilmctl/client/s3"
	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/filer"
)

// Filer is a filer.Store the caller must Close.
type Filer interface {
	filer.Store
	Close() error
}

// Options configures Open. Clock, MustExist and ReadOnly apply to whatever
// filer the spec names; each backend's own settings are in its field and
// are ignored by the others.
type Options struct {
	// Clock supplies "now" for the TsNs of new mutations and object-lock
	// checks (embedded, s3://); time.Now when nil.
	Clock func() time.Time
	// SeaweedFS configures a seaweedfs:// filer. Its Auth is always read
	// from the environment (seaweedfs.AuthFromEnv).
	SeaweedFS seaweedfs.Options
	// S3 configures an s3:// filer; a nil S3.Clock takes Clock.
	S3 s3store.Options
	// MustExist makes Open fail with an error matching ErrNoFiler instead
	// of creating an empty filer. Set it for every command that only reads
	// or processes an existing filer (ls, run), so a mistyped --filer is an
	// error rather than an empty pass.
	MustExist bool
	// ReadOnly opens the embedded filer read-only under bbolt's shared
	// lock (see embedded.Options.ReadOnly); it implies MustExist. Set it
	// for every command that only reads (filer ls, run --dry-run, journal),
	// so such commands run beside each other and cannot change the filer.
	// Remote filers are unaffected: what a command sends them decides.
	ReadOnly bool
}

// ErrNoFiler matches the error Open returns under MustExist when the spec
// names no filer.
var ErrNoFiler = embedded.ErrNoFiler

// ErrDamaged matches the error Open returns for an embedded filer whose
// filer.db is damaged (embedded.DamagedError); the file is left untouched.
var ErrDamaged = embedded.ErrDamaged

// ErrBadSpec matches the error CheckSpec and Open return for a filer spec
// that names no filer: empty, an unknown scheme, or a remote scheme
// without a host and port. It is bad input, which commands report as a
// usage error.
var ErrBadSpec = errors.New("bad filer spec")

// FixtureSummary counts what LoadFixture wrote.
type FixtureSummary = embedded.FixtureSummary

// Open opens the filer spec names: seaweedfs://host:port is a live
// SeaweedFS filer (HTTP port; gRPC at port+10000), s3://host[:port] any
// S3-compatible endpoint, and a directory path, optionally written
// "dir:PATH", the embedded filer in that directory. A malformed spec is an
// error matching ErrBadSpec (see CheckSpec).
func Open(ctx context.Context, spec string, opts Options) (Filer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := CheckSpec(spec); err != nil {
		return nil, err
	}
	if addr, ok := strings.CutPrefix(spec, "seaweedfs://"); ok {
		return openSeaweedFS(ctx, addr, opts)
	}
	if addr, ok := strings.CutPrefix(spec, "s3://"); ok {
		return openS3(ctx, addr, opts)
	}
	return embedded.Open(embeddedDir(spec), embedded.Options{Clock: opts.Clock, MustExist: opts.MustExist, ReadOnly: opts.ReadOnly})
}

// CheckSpec checks the form of a filer spec without opening anything, so
// a command can refuse bad input before it does any work: a remote spec
// must name a host (seaweedfs://, also a port), a port is a number 1-65535,
// and a directory spec is not empty. Errors match ErrBadSpec. Whether the
// filer is there is Open's question.
func CheckSpec(spec string) error {
	const forms = "use seaweedfs://HOST:PORT, s3://HOST:PORT or a directory"
	bad := func(advice, format string, args ...any) error {
		return &specError{msg: fmt.Sprintf(format, args...), hint: advice}
	}
	if addr, ok := strings.CutPrefix(spec, "seaweedfs://"); ok {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || host == "" || !validPort(port) {
			return bad("use the filer's HTTP host:port, e.g. seaweedfs://127.0.0.1:8888", "--filer %q names no SeaweedFS filer", spec)
		}
		return nil
	}
	if addr, ok := strings.CutPrefix(spec, "s3://"); ok {
		if addr == "" || strings.ContainsAny(addr, "/?#@ ") {
			return bad("use the S3 endpoint's host:port, e.g. s3://127.0.0.1:8333", "--filer %q names no S3 endpoint", spec)
		}
		// Without a port the endpoint's scheme default applies.
		if host, port, err := net.SplitHostPort(addr); err == nil && (host == "" || !validPort(port)) {
			return bad("use the S3 endpoint's host:port, e.g. s3://127.0.0.1:8333", "--filer %q names no S3 endpoint", spec)
		}
		return nil
	}
	switch dir, isDir := strings.CutPrefix(spec, "dir:"); {
	case spec == "":
		return bad(forms, "empty filer spec")
	case isDir && dir == "":
		return bad("pass --filer dir:PATH", "--filer \"dir:\" names no directory")
	case !isDir && strings.Contains(spec, "://"):
		scheme, _, _ := strings.Cut(spec, "://")
		return bad(forms, "filer scheme %q not supported", scheme)
	}
	return nil
}

// specError is CheckSpec's error: what is wrong with the spec, matching
// ErrBadSpec, and what to pass instead as its hint, printed on a line of
// its own.
type specError struct{ msg, hint string }

func (e *specError) Error() string        { return e.msg }
func (e *specError) Hint() string         { return e.hint }
func (e *specError) Is(target error) bool { return target == ErrBadSpec }

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}

// embeddedDir is the directory of an embedded filer spec CheckSpec passed.
func embeddedDir(spec string) string {
	if dir, ok := strings.CutPrefix(spec, "dir:"); ok {
		return dir
	}
	return spec
}

// LoadOptions, LoadPoint and LoadResult are embedded.Load's;
// FixtureError is a fault in a fixture with where it is.
type (
	LoadOptions  = embedded.LoadOptions
	LoadPoint    = embedded.LoadPoint
	LoadResult   = embedded.LoadResult
	FixtureError = embedded.FixtureError
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
	if err := CheckSpec(spec); err != nil {
		return LoadResult{}, err
	}
	return embedded.Load(ctx, embeddedDir(spec), r, opts)
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
