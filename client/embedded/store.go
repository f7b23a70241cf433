// Package embedded is the embedded filer: a filer.Store on one bbolt file,
// <dir>/filer.db, used by demos, tests and single-node runs. It keeps
// buckets, every object version, incomplete multipart uploads, the meta-log
// and small state files (cursors) in one database so a lifecycle delete and
// the meta-log events it causes commit together.
//
// Layout (top-level bbolt buckets):
//
//	buckets   name → bucketRecord JSON
//	objects   name → nested bucket: object key → objectRecord JSON (versions newest first)
//	uploads   name → nested bucket: key 0x00 upload ID → uploadRecord JSON
//	metalog   big-endian uint64 TsNs → eventRecord JSON
//	files     path → file bytes
package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// DBFile is the database file name inside a filer directory.
const DBFile = "filer.db"

var (
	bktBuckets = []byte("buckets")
	bktObjects = []byte("objects")
	bktUploads = []byte("uploads")
	bktMetalog = []byte("metalog")
	bktFiles   = []byte("files")
)

// lockTimeout bounds the wait for bbolt's file lock, so a second process on
// the same directory fails with a message instead of hanging.
const lockTimeout = 2 * time.Second

// ErrNoFiler matches a NoFilerError with errors.Is.
var ErrNoFiler = errors.New("no filer")

// ErrNoSuchBucket matches listing errors for a bucket the filer does not
// hold.
var ErrNoSuchBucket = errors.New("no such bucket")

// NoFilerError reports that Options.MustExist was set and Dir holds no
// filer.db.
type NoFilerError struct {
	Dir string
	// Unfinished lists the temporary databases of loads into Dir that
	// have not finished (see Load): killed, or still running. None of them
	// is a filer.
	Unfinished []string
}

func (e *NoFilerError) Error() string {
	if len(e.Unfinished) > 0 {
		return fmt.Sprintf("no filer at %s, only the unfinished load %s (never read as a filer; the next load removes it): run 'ilmctl filer load FIXTURE.json --filer %s' first",
			e.Dir, strings.Join(e.Unfinished, ", "), e.Dir)
	}
	return fmt.Sprintf("no filer at %s: run 'ilmctl filer load FIXTURE.json --filer %s' first", e.Dir, e.Dir)
}

// Is lets errors.Is(err, ErrNoFiler) match.
func (e *NoFilerError) Is(target error) bool { return target == ErrNoFiler }

// Options configures an embedded filer.
type Options struct {
	// Clock supplies "now" for the TsNs of new mutations, the mtime of delete
	// markers and object-lock retention checks; time.Now when nil.
	Clock func() time.Time
	// MustExist refuses to create a filer: Open fails with a NoFilerError
	// when dir holds no filer.db. Read-only commands set it so a typo in
	// --filer does not leave an empty database behind.
	MustExist bool
	// DeleteHook is a TEST SEAM, never set in production. It runs before
	// every LifecycleDelete; when it returns handled=true its outcome and
	// error are returned as-is and the store is not touched. Tests in other
	// packages use it to force RETRY_LATER, BLOCKED or transport errors for
	// chosen requests.
	DeleteHook func(req filer.DeleteRequest) (out filer.Outcome, err error, handled bool)
}

// Filer is the embedded filer. It is safe for concurrent use: bbolt runs
// readers in parallel and serialises writers, and every mutation with its
// meta-log events is one write transaction.
type Filer struct {
	db    *bolt.DB
	dir   string
	clock func() time.Time
	hook  func(filer.DeleteRequest) (filer.Outcome, error, bool)
	// subscribeBatch is how many meta-log events SubscribeMetadata reads per
	// read transaction; no transaction is held while fn runs.
	subscribeBatch int
}

var _ filer.Store = (*Filer)(nil)

// ErrDamaged matches a filer.db that cannot be a bbolt database.
var ErrDamaged = errors.New("filer database is damaged")

// checkSize refuses a database file that is not a whole number of pages:
// bbolt maps the file into memory and a truncated one faults (SIGBUS) on
// first read instead of returning an error. A missing file is fine (Open
// creates it).
func checkSize(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("filer %s: %w", path, err)
	}
	// bbolt's page is the creating machine's OS page, a multiple of 4 KiB,
	// and a database holds at least four of them.
	const page = 4096
	if n := fi.Size(); n != 0 && (n%page != 0 || n < 4*page) {
		return fmt.Errorf("%w: %s is %d bytes, not a whole number of %d-byte pages (truncated?): restore it from a backup or load a fresh filer", ErrDamaged, path, n, page)
	}
	return nil
}

// Open opens (creating unless opts.MustExist) the embedded filer in dir.
// The filer it creates is empty and in place; "ilmctl filer load" creates
// filers with Load instead, which publishes one only once it is complete.
func Open(dir string, opts Options) (*Filer, error) {
	if dir == "" {
		return nil, errors.New("embedded filer: empty directory: pass --filer DIR")
	}
	path := filepath.Join(dir, DBFile)
	if opts.MustExist {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			unfinished, _ := unfinishedLoads(dir)
			return nil, &NoFilerError{Dir: dir, Unfinished: unfinished}
		} else if err != nil {
			return nil, fmt.Errorf("filer %s: %w", dir, err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create filer dir %s: %w", dir, err)
	}
	db, err := openDB(dir, path)
	if err != nil {
		return nil, err
	}
	return newFiler(db, dir, opts), nil
}

func newFiler(db *bolt.DB, dir string, opts Options) *Filer {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	return &Filer{db: db, dir: dir, clock: clock, hook: opts.DeleteHook, subscribeBatch: 1000}
}

// openDB opens (creating if missing) the bbolt file at path, the database
// of the filer in dir, and makes sure its top-level buckets exist.
func openDB(dir, path string) (*bolt.DB, error) {
	if err := checkSize(path); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("filer %s is in use by another ilmctl process: wait for it to finish", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open filer %s: %w", dir, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bktBuckets, bktObjects, bktUploads, bktMetalog, bktFiles} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("init filer %s: %w", dir, err)
	}
	return db, nil
}

// Dir returns the directory the filer lives in.
func (f *Filer) Dir() string { return f.dir }

// Close releases the database file and its lock.
func (f *Filer) Close() error { return f.db.Close() }
