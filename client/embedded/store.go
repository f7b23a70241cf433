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
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// DBFile is the database file name inside a filer directory.
const DBFile = "filer.db"

var (
	bktBuckets = []byte("buckets")
	bktObjects = []byte("objects")
	bktUploads = []byte("uploads")
	bktMetalog = []byte("metalog")
	bktFiles   = []byte("files")

	topBuckets = [][]byte{bktBuckets, bktObjects, bktUploads, bktMetalog, bktFiles}
)

// lockTimeout bounds the wait for bbolt's file lock, so a second process on
// the same directory fails with a message instead of hanging.
const lockTimeout = 2 * time.Second

// ErrNoFiler matches a NoFilerError with errors.Is.
var ErrNoFiler = errors.New("no filer")

// ErrNoSuchBucket matches listing errors for a bucket the filer does not
// hold.
var ErrNoSuchBucket = errors.New("no such bucket")

// NoFilerError reports that Options.MustExist or ReadOnly was set and Dir
// holds no filer.db.
type NoFilerError struct {
	Dir string
	// Unfinished lists the temporary databases of loads into Dir that
	// have not finished (see Load): killed, or still running. None of them
	// is a filer.
	Unfinished []string
}

func (e *NoFilerError) Error() string {
	if len(e.Unfinished) > 0 {
		return fmt.Sprintf("no filer at %s, only the unfinished load %s (never read as a filer; the next load removes it)",
			e.Dir, strings.Join(e.Unfinished, ", "))
	}
	return fmt.Sprintf("no filer at %s", e.Dir)
}

// Hint is the advice main prints after the message (internal/hint).
func (e *NoFilerError) Hint() string {
	return fmt.Sprintf("run 'ilmctl filer load FIXTURE.json --filer %s' first", e.Dir)
}

// Is lets errors.Is(err, ErrNoFiler) match.
func (e *NoFilerError) Is(target error) bool { return target == ErrNoFiler }

// Options configures an embedded filer.
type Options struct {
	// Clock supplies "now" for the TsNs of new mutations, the mtime of delete
	// markers and object-lock retention checks; time.Now when nil.
	Clock func() time.Time
	// MustExist refuses to create a filer: Open fails with a NoFilerError
	// when dir holds no filer.db. Commands that process an existing filer
	// set it so a typo in --filer does not leave an empty database behind.
	MustExist bool
	// ReadOnly opens the filer under bbolt's shared lock (Options.ReadOnly):
	// readers run beside each other, a writer waits for them, and every
	// write fails with bbolt's ErrDatabaseReadOnly. It implies MustExist.
	// Commands that only read (filer ls, run --dry-run, journal) set it, so
	// they cannot change the filer.
	ReadOnly bool
	// DeleteHook is a TEST SEAM, never set in production. It runs before
	// every LifecycleDelete; when it returns handled=true its outcome and
	// error are returned as-is and the store is not touched. Tests in other
	// packages use it to force RETRY_LATER, BLOCKED or transport errors for
	// chosen requests.
	DeleteHook func(req filer.DeleteRequest) (out filer.Outcome, err error, handled bool)
	// BeforeCommit is a TEST SEAM, never set in production. It runs inside
	// each group commit of LifecycleDeletes (see groupCommit), after every
	// delete of the batch is written and before the transaction commits;
	// an error rolls the batch back (each delete is then retried alone,
	// calling it again), and a process that exits in it stands for a crash
	// between a batch's writes and its commit.
	BeforeCommit func(batch []filer.DeleteRequest) error
}

// Filer is the embedded filer. It is safe for concurrent use: bbolt runs
// readers in parallel and serialises writers, and every mutation with its
// meta-log events is one write transaction.
type Filer struct {
	db      *bolt.DB
	dir     string
	clock   func() time.Time
	hook    func(filer.DeleteRequest) (filer.Outcome, error, bool)
	deletes *groupCommit
	// subscribeBatch is how many meta-log events SubscribeMetadata reads per
	// read transaction; no transaction is held while fn runs.
	subscribeBatch int
	release        *mapReleaser
	// reads counts reads for afterRead; readBudget is its releaseBudget
	// (tests lower it).
	reads      atomic.Int64
	readBudget int64
	// leases are the shard leases passes in this process hold (lease.go).
	leases leaseTable
}

var _ filer.Store = (*Filer)(nil)

// Open opens the embedded filer in dir. Without opts.MustExist or
// opts.ReadOnly it creates an empty one, in place, when dir holds no
// filer.db; "ilmctl filer load" creates filers with Load instead, which
// publishes one only once it is complete. An existing filer.db is checked
// before bbolt maps it (validateDB): a damaged one is refused with a
// DamagedError and left untouched, never recreated.
func Open(dir string, opts Options) (*Filer, error) {
	if dir == "" {
		return nil, errors.New("embedded filer: empty directory: pass --filer DIR")
	}
	if err := notADir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, DBFile)
	mode := modeReadWrite
	if opts.ReadOnly {
		mode = modeReadOnly
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if opts.MustExist || opts.ReadOnly {
			unfinished, _ := unfinishedLoads(dir)
			return nil, &NoFilerError{Dir: dir, Unfinished: unfinished}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create filer dir %s: %w", dir, err)
		}
		mode = modeCreate
	} else if err != nil {
		return nil, fmt.Errorf("filer %s: %w", dir, err)
	}
	db, err := openDB(dir, path, mode)
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
	f := &Filer{db: db, dir: dir, clock: clock, hook: opts.DeleteHook, subscribeBatch: 1000}
	f.deletes = newGroupCommit(f, opts.BeforeCommit)
	f.release = startMapReleaser(db, releaseEvery)
	f.readBudget = releaseBudget
	return f
}

// openMode says how openDB opens a database file.
type openMode int

const (
	// modeCreate makes a new filer: path is missing or an empty file the
	// caller just created (Load's temporary database).
	modeCreate openMode = iota
	// modeReadWrite opens an existing filer for a process that writes.
	modeReadWrite
	// modeReadOnly opens an existing filer under bbolt's shared lock: any
	// number of readers at once, none while a writer runs, and nothing
	// written, not even a transaction on open.
	modeReadOnly
)

// openDB opens the bbolt file at path, the database of the filer in dir.
// An existing file is validated before bbolt maps it (validateDB) under a
// shared flock that a writer cannot hold, so a commit in another process
// cannot make a good file look damaged; in modeReadOnly that lock is held
// until bbolt holds its own, so nothing can change the file between the
// check and the map. Once mapped, bbolt's own Tx.Check (checkPages) reads
// every reachable page. A refused file is closed unwritten.
func openDB(dir, path string, mode openMode) (*bolt.DB, error) {
	busy := fmt.Errorf("filer %s is in use by another ilmctl process: wait for it to finish", dir)
	var pre *os.File // holds the shared lock until bbolt has its own
	defer func() {
		if pre != nil {
			pre.Close()
		}
	}()
	if mode != modeCreate {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("open filer %s: %w", dir, err)
		}
		pre = f
		if err := lockShared(f, lockTimeout); err != nil {
			return nil, busy
		}
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("open filer %s: %w", dir, err)
		}
		if err := validateDB(f, fi.Size()); err != nil {
			return nil, &DamagedError{Dir: dir, Path: path, Reason: err.Error()}
		}
		if mode == modeReadWrite {
			// bbolt's exclusive lock would wait for this one.
			pre.Close()
			pre = nil
		}
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout, ReadOnly: mode == modeReadOnly})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, busy
	}
	if err != nil {
		return nil, fmt.Errorf("open filer %s: %w", dir, err)
	}
	if mode == modeCreate {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, name := range topBuckets {
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
	// A filer has every top-level bucket from its first transaction on
	// (modeCreate): a bbolt file without one is no filer, and the store
	// would dereference the missing bucket.
	err = db.View(func(tx *bolt.Tx) error {
		// checkPages reads every page of the file: give them back as it
		// goes (see mapReleaser), or a pass would start with the whole
		// file resident.
		rel := startPinnedReleaser(tx, releaseCheckEvery)
		err := checkPages(tx)
		rel.close()
		if err != nil {
			return &DamagedError{Dir: dir, Path: path, Reason: err.Error()}
		}
		for _, name := range topBuckets {
			if tx.Bucket(name) == nil {
				return &DamagedError{Dir: dir, Path: path, Reason: fmt.Sprintf("holds no %q bucket (not an ilmctl filer?)", name)}
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	_ = releaseMapped(db)
	// Tx.Check keeps a map entry for every page (about 25 bytes each: some
	// 20 MiB for a 10M-version filer of 860k pages), garbage once it
	// returns. Left to the collector, it would stay resident under
	// whatever the pass allocates first; returned now, the pass starts
	// from its own heap.
	debug.FreeOSMemory()
	return db, nil
}

// Dir returns the directory the filer lives in.
func (f *Filer) Dir() string { return f.dir }

// Close releases the database file and its lock.
func (f *Filer) Close() error {
	f.deletes.close()
	f.release.close()
	return f.db.Close()
}

// notADir refuses a filer directory that is a file, most often the
// filer's own filer.db given in place of its directory; nil when dir is
// a directory or missing (Open and Load report or create it).
func notADir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil || fi.IsDir() {
		return nil
	}
	if filepath.Base(dir) == DBFile {
		return hint.With(fmt.Errorf("--filer %s is the filer's database file, not its directory", dir), "try --filer "+filepath.Dir(dir))
	}
	return fmt.Errorf("--filer %s is a file: --filer names the filer's directory, which holds %s", dir, DBFile)
}
