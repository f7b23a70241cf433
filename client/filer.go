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

// Open opens the filer spec names: a directory path, optionally written
// "dir:PATH", selects the embedded filer in that directory. A URL with
// another scheme fails: no remote filer is supported yet.
func Open(ctx context.Context, spec string, opts Options) (Filer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
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
		return "", fmt.Errorf("filer scheme %q not supported yet: pass a directory for the embedded filer (--filer ./ilmctl-data)", scheme)
	}
	return spec, nil
}

// LoadFixture loads a fixture (see embedded.Fixture) into f, which must be
// the embedded filer.
func LoadFixture(ctx context.Context, f Filer, r io.Reader) (FixtureSummary, error) {
	e, ok := f.(*embedded.Filer)
	if !ok {
		return FixtureSummary{}, fmt.Errorf("filer %T cannot load fixtures: fixtures load into the embedded filer only", f)
	}
	return e.LoadFixture(ctx, r)
}
