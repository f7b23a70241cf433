package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ilmctl/ilmctl/internal/atomicfile"
)

// UnfinishedPrefix begins the name of the temporary database a load into a
// new filer builds inside the filer directory:
// DIR/filer.db.ilmctl-load-<random digits>. It is never named filer.db, so
// nothing opens it as a filer; a kill leaves it behind and the next Load
// into DIR removes it.
const UnfinishedPrefix = DBFile + ".ilmctl-load-"

// ErrLoadBusy matches Load's error when another process is loading into the
// same directory.
var ErrLoadBusy = errors.New("another ilmctl filer load is running on this directory")

// UnfinishedLoadError is Load's refusal when dir holds unfinished loads it
// cannot prove dead: the file system cannot lock dir (see lockDir), so a
// load that is still running would look the same as a killed one.
type UnfinishedLoadError struct {
	Dir   string
	Paths []string
}

func (e *UnfinishedLoadError) Error() string {
	return fmt.Sprintf("%s holds %s from an unfinished load, and this file system cannot lock %s to tell whether that load still runs",
		e.Dir, strings.Join(e.Paths, ", "), e.Dir)
}

// Hint is the advice main prints after the message (internal/hint).
func (e *UnfinishedLoadError) Hint() string {
	return fmt.Sprintf("if no 'ilmctl filer load' is running on it, remove it (rm %s) and load again", strings.Join(e.Paths, " "))
}

// LoadPoint says how far a load has come when it calls LoadOptions.Hook.
type LoadPoint struct {
	// Buckets is how many of the fixture's buckets are written into the
	// open transaction.
	Buckets int
	// Durable is set once, after the new filer's temporary database is
	// committed and fsynced and just before it is renamed to filer.db.
	// Loads into an existing filer never reach it.
	Durable bool
}

// LoadOptions configures Load.
type LoadOptions struct {
	// Hook is a TEST SEAM, never set in production. Load calls it after
	// each bucket is written and, for a new filer, once more just before
	// the rename. An error it returns fails the load there like any error
	// (tidied up); a hook that never returns, or panics, stands for a
	// crash at that point: nothing is tidied.
	Hook func(LoadPoint) error
}

// LoadResult is what Load did.
type LoadResult struct {
	FixtureSummary
	// Created is true when Load made a new filer, false when it added the
	// fixture to the filer already in the directory.
	Created bool
	// Removed lists the unfinished loads' temporary databases Load
	// deleted before it started.
	Removed []string
}

// Load writes the fixture r holds into the embedded filer in dir, all or
// nothing, a kill -9 or power loss included:
//
//   - dir holds a filer.db: the fixture is added in one bbolt write
//     transaction (LoadFixture), which a crash leaves either committed or
//     not begun; a bucket the filer already holds fails the load.
//   - otherwise a new filer is built in dir/filer.db.ilmctl-load-<random>
//     and, once committed and fsynced, renamed to dir/filer.db; dir is
//     fsynced before and after the rename. Until then dir holds no
//     filer.db, so ls and run report "no filer" instead of passing over an
//     empty one.
//
// The fixture is decoded and validated before anything is written, so a
// bad fixture leaves no trace; a load into a directory it had to create
// removes that directory again when it fails. Loads into one directory are
// serialised by a lock on it (ErrLoadBusy), which is what makes removing
// the temporary databases of killed loads safe.
func Load(ctx context.Context, dir string, r io.Reader, opts LoadOptions) (LoadResult, error) {
	if dir == "" {
		return LoadResult{}, errors.New("embedded filer: empty directory: pass --filer DIR")
	}
	if err := ctx.Err(); err != nil {
		return LoadResult{}, err
	}
	if err := notADir(dir); err != nil {
		return LoadResult{}, err
	}
	created, err := atomicfile.MkdirAll(dir, 0o755)
	if err != nil {
		return LoadResult{}, fmt.Errorf("create filer dir %s: %w", dir, err)
	}
	unlock, locked, err := lockDir(dir)
	if err != nil {
		return LoadResult{}, err
	}
	defer unlock()
	res, err := load(ctx, dir, r, locked, opts)
	if err != nil && created {
		// Fails unless the directory is empty: a kept leftover stays.
		os.Remove(dir)
	}
	return res, err
}

func load(ctx context.Context, dir string, r io.Reader, locked bool, opts LoadOptions) (LoadResult, error) {
	var res LoadResult
	unfinished, err := unfinishedLoads(dir)
	if err != nil {
		return res, fmt.Errorf("filer dir %s: %w", dir, err)
	}
	if len(unfinished) > 0 && !locked {
		return res, &UnfinishedLoadError{Dir: dir, Paths: unfinished}
	}
	for _, path := range unfinished {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("remove unfinished load: %w", err)
		}
		res.Removed = append(res.Removed, path)
	}
	if len(unfinished) > 0 {
		if err := atomicfile.SyncDir(dir); err != nil {
			return res, err
		}
	}

	path := filepath.Join(dir, DBFile)
	if _, err := os.Stat(path); err == nil {
		res.FixtureSummary, err = addToFiler(ctx, dir, r, opts.Hook)
		return res, err
	} else if !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("filer %s: %w", dir, err)
	}
	res.FixtureSummary, err = createFiler(ctx, dir, r, opts.Hook)
	res.Created = err == nil
	return res, err
}

// addToFiler adds the plan to the existing filer in dir in one bbolt
// transaction.
func addToFiler(ctx context.Context, dir string, r io.Reader, hook func(LoadPoint) error) (FixtureSummary, error) {
	f, err := Open(dir, Options{MustExist: true})
	if err != nil {
		return FixtureSummary{}, err
	}
	closed := false
	defer func() { // a panicking hook releases the file as a crash would
		if !closed {
			f.Close()
		}
	}()
	sum, err := loadStream(ctx, f.db, dir, r, false, hook)
	closed = true
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close filer %s: %w", dir, cerr)
	}
	return sum, err
}

// createFiler builds the filer in a temporary database beside dir/filer.db
// and renames it into place once it is complete and on disk. On an error
// the temporary database is removed; on a crash (or a hook that never
// returns or panics) it stays for the next Load to remove.
func createFiler(ctx context.Context, dir string, r io.Reader, hook func(LoadPoint) error) (FixtureSummary, error) {
	tmp, err := os.CreateTemp(dir, UnfinishedPrefix+"*")
	if err != nil {
		return FixtureSummary{}, fmt.Errorf("create filer in %s: %w", dir, err)
	}
	name := tmp.Name()
	err = tmp.Close()
	var sum FixtureSummary
	if err == nil {
		sum, err = buildDB(ctx, dir, name, r, hook)
	}
	if err == nil {
		// The temporary name's entry, before the rename refers to it.
		err = atomicfile.SyncDir(dir)
	}
	if err == nil && hook != nil {
		err = hook(LoadPoint{Buckets: sum.Buckets, Durable: true})
	}
	if err == nil {
		err = os.Rename(name, filepath.Join(dir, DBFile))
	}
	if err != nil {
		os.Remove(name)
		return FixtureSummary{}, err
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return FixtureSummary{}, fmt.Errorf("filer %s is loaded but may not survive a power loss: %w", dir, err)
	}
	return sum, nil
}

// buildDB writes the plan into a new bbolt database at path and leaves it
// closed and fsynced.
func buildDB(ctx context.Context, dir, path string, r io.Reader, hook func(LoadPoint) error) (FixtureSummary, error) {
	db, err := openDB(dir, path, modeCreate)
	if err != nil {
		return FixtureSummary{}, err
	}
	// Deferred, so a panicking hook releases the file and its lock as a
	// crash would.
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	// Nothing reads this database before the rename: it commits in
	// batches without an fsync each, and is synced once, whole, below.
	db.NoSync = true
	// No mapReleaser here: the load writes in key order and releases
	// after its own commits (streamWriter.commit).
	sum, err := loadStream(ctx, db, dir, r, true, hook)
	if err != nil {
		return sum, err
	}
	if err := db.Sync(); err != nil {
		return sum, fmt.Errorf("sync filer %s: %w", dir, err)
	}
	closed = true
	if err := db.Close(); err != nil {
		return sum, fmt.Errorf("close filer %s: %w", dir, err)
	}
	// bbolt fdatasyncs each commit; this fsync also covers the file's
	// metadata, the length included, before the rename publishes it.
	return sum, syncFile(path)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// unfinishedLoads lists the temporary databases of unfinished loads in dir.
func unfinishedLoads(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), UnfinishedPrefix) && e.Type().IsRegular() {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths, nil
}
