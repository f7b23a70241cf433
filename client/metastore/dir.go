// Package metastore implements core/metastore.Store over a local directory
// (keys are files below the root; the ETag is the hex SHA-256 of the
// content) and over an S3 bucket. Open picks one from a --meta URL.
package metastore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	core "github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/internal/atomicfile"
)

// Dir is a directory-backed pool. Conditional operations are serialized by
// a process-local mutex and, on Unix, an exclusive flock on
// <root>/.ilmctl-meta.lock, so two ilmctl processes sharing a directory
// keep the write contract too.
type Dir struct {
	root string
	name string
	mu   sync.Mutex
	// beforeRename, when set (tests only, by SetBeforeRename), runs
	// between a temporary's fsync and its rename; an error stops the
	// write there, leaving the temporary as a crash would.
	beforeRename func(tmp, dst string) error
}

// SetBeforeRename makes fn run in each of d's writes between the
// temporary's fsync and its rename, under the pool lock. It is for tests
// only: a test stops a write there, or a child process blocks there
// until it is killed, to show what kill -9 at that instant leaves. A nil
// fn removes the hook. Production code never sets it.
func SetBeforeRename(d *Dir, fn func(tmp, dst string) error) { d.beforeRename = fn }

// TempDir is the directory, below a dir: pool's root, where every write
// stages its temporary before the rename: outside every namespace a
// reader lists (ilm/, decommission/), and skipped by List, so a crash
// before installation leaves no artifact any reader sees
// (docs/design/recovery.md#temporaries-where-a-write-stages-its-bytes).
// Writes hold the pool lock, so whatever a writer finds here under the
// lock is a dead writer's litter and is removed.
const TempDir = ".ilmctl-tmp"

// NewDir opens root, which must exist and be a directory. A root that is
// a symbolic link is resolved once, here, so listing and reads see the
// same tree: filepath.WalkDir does not follow a link at its root, and a
// pool listed as empty while its records are readable would publish a
// false zero (docs/design/ilm-records.md#incomplete-scans).
func NewDir(root, name string) (*Dir, error) {
	real, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noDirError{}
	}
	if err != nil {
		return nil, fmt.Errorf("open metadata dir %q: %w", root, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("open metadata dir %q: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("metadata dir %q is not a directory", root)
	}
	return &Dir{root: real, name: name}, nil
}

// noDirError is a pool directory that does not exist: a mistyped path,
// most likely. It is fs.ErrNotExist.
type noDirError struct{}

func (noDirError) Error() string {
	return "no such directory; check the path (a pool's metadata directory, or s3://bucket[/prefix])"
}

func (noDirError) Unwrap() error { return fs.ErrNotExist }

// Name returns the pool URL.
func (d *Dir) Name() string { return d.name }

// Actor is the OS user running ilmctl: who recovery receipts and audit
// lines name for a local store.
func (d *Dir) Actor(context.Context) (string, error) {
	u, err := user.Current()
	if err != nil {
		return "", fmt.Errorf("%s: cannot tell the OS user: %w", d.name, err)
	}
	return "os-user:" + u.Username, nil
}

// Actor returns the actor of s (Dir or S3): the access key ID of an s3://
// store's credentials, the OS user for a dir: store.
func Actor(ctx context.Context, s core.Store) (string, error) {
	a, ok := s.(interface {
		Actor(context.Context) (string, error)
	})
	if !ok {
		return "", fmt.Errorf("%s: store cannot name its actor", s.Name())
	}
	return a.Actor(ctx)
}

func etagOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (d *Dir) path(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") {
		return "", fmt.Errorf("invalid key %q", key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return "", fmt.Errorf("invalid key %q", key)
		}
	}
	p := filepath.Join(d.root, filepath.FromSlash(key))
	if err := d.noLinks(key); err != nil {
		return "", err
	}
	return p, nil
}

// noLinks fails when a directory on key's path below the root, or key's
// file, is a symbolic link (or the file is not a regular file): a link
// can name another pool, and a record read or a receipt written through
// it would let a pool cover itself, or a target that is only links into
// the source prove copies that vanish with it. Parts that do not exist
// yet are no links (a write creates them).
func (d *Dir) noLinks(key string) error {
	parts := strings.Split(key, "/")
	p := d.root
	for i, part := range parts {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if last := i == len(parts)-1; st.Mode()&fs.ModeSymlink != 0 || last && !st.Mode().IsRegular() || !last && !st.IsDir() {
			return &linkError{pool: d.name, key: strings.Join(parts[:i+1], "/")}
		}
	}
	return nil
}

// linkError is a symbolic link, or an entry neither a regular file nor a
// directory, inside a dir: pool (pool; the message leaves it to the
// callers, which name the pool). ilmctl never reads or writes through one.
type linkError struct{ pool, key string }

func (e *linkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link or not a regular file; a pool's records must be its own files", e.key)
}

// Get reads key.
func (d *Dir) Get(_ context.Context, key string) ([]byte, string, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("%s: %s: %w", d.name, key, core.ErrNotFound)
	}
	if err != nil {
		return nil, "", err
	}
	return b, etagOf(b), nil
}

// List walks the tree and returns keys in lexical order. The token is the
// last key of the previous page.
func (d *Dir) List(_ context.Context, prefix, token string, limit int) (core.Page, error) {
	if limit <= 0 {
		limit = 1000
	}
	var keys []string
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p == filepath.Join(d.root, TempDir) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		k := filepath.ToSlash(rel)
		if !e.Type().IsRegular() && (strings.HasPrefix(k, prefix) || strings.HasPrefix(prefix, k+"/")) {
			// A link where the listing looks is never followed and never
			// skipped: skipped, a linked ilm/ would list as an empty pool
			// whose records Get still reads; followed, it could list
			// another pool's.
			return &linkError{pool: d.name, key: k}
		}
		if strings.HasPrefix(k, prefix) && k > token {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return core.Page{}, fmt.Errorf("%s: list: %w", d.name, err)
	}
	sort.Strings(keys)
	var page core.Page
	if len(keys) > limit {
		keys = keys[:limit]
		page.Truncated = true
		page.NextToken = keys[len(keys)-1]
	}
	for _, k := range keys {
		p, err := d.path(k)
		if err != nil {
			return core.Page{}, fmt.Errorf("%s: %w", d.name, err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return core.Page{}, fmt.Errorf("%s: %s: %w", d.name, k, err)
		}
		st, _ := os.Stat(p)
		page.Objects = append(page.Objects, core.Object{Key: k, ETag: etagOf(b), Size: int64(len(b)), LastModified: st.ModTime()})
	}
	return page, nil
}

// lock serializes a conditional write within this process (mu) and
// across processes (lockRoot).
func (d *Dir) lock() (func(), error) {
	d.mu.Lock()
	unlock, err := lockRoot(d.root)
	if err != nil {
		d.mu.Unlock()
		return nil, fmt.Errorf("%s: lock: %w", d.name, err)
	}
	d.sweep()
	return func() { unlock(); d.mu.Unlock() }, nil
}

// sweep removes a dead writer's temporaries from TempDir. It runs under
// the lock, when no live writer of this pool has one. Best effort: litter
// that survives is invisible to readers and is tried again next time.
func (d *Dir) sweep() {
	dir := filepath.Join(d.root, TempDir)
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// sweepBeside removes temporaries that older ilmctl versions staged
// beside the record ("."+base+random digits, renameio's name) and a crash
// left there, in the namespace readers list. Called under the lock for
// the key being written, so the next writer of a record cleans its
// directory.
func sweepBeside(p string) {
	dir, base := filepath.Dir(p), filepath.Base(p)
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		n := e.Name()
		if rest, ok := strings.CutPrefix(n, "."+base); ok && rest != "" && strings.Trim(rest, "0123456789") == "" && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}

// write replaces p atomically and durably: the temporary is written and
// fsynced in TempDir (same file system, outside every listed namespace),
// renamed over p, and p's directory fsynced, so a crash leaves the old
// record or the new one, never a partial one, and never a temporary
// where a reader looks.
func (d *Dir) write(p string, data []byte) error {
	sweepBeside(p)
	if _, err := atomicfile.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmpDir := filepath.Join(d.root, TempDir)
	if _, err := atomicfile.MkdirAll(tmpDir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(tmpDir, filepath.Base(p)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && d.beforeRename != nil {
		if err = d.beforeRename(tmp, p); err != nil {
			return err // a simulated crash: the temporary stays, as after kill -9
		}
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(p))
}

// PutIfAbsent creates key only when absent.
func (d *Dir) PutIfAbsent(_ context.Context, key string, data []byte) (string, error) {
	p, err := d.path(key)
	if err != nil {
		return "", err
	}
	unlock, err := d.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(p); err == nil {
		sweepBeside(p) // a replay after a crash cleans what the crash left
		return "", fmt.Errorf("%s: %s: %w", d.name, key, core.ErrExists)
	}
	if err := d.write(p, data); err != nil {
		return "", err
	}
	return etagOf(data), nil
}

// PutIfMatch replaces key only when its current ETag is etag.
func (d *Dir) PutIfMatch(_ context.Context, key string, data []byte, etag string) (string, error) {
	p, err := d.path(key)
	if err != nil {
		return "", err
	}
	unlock, err := d.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	cur, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %s: %w", d.name, key, core.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", d.name, key, err)
	}
	if etagOf(cur) != etag {
		return "", fmt.Errorf("%s: %s: %w", d.name, key, core.ErrPreconditionFailed)
	}
	if err := d.write(p, data); err != nil {
		return "", err
	}
	return etagOf(data), nil
}

// DeleteIfMatch removes key only when its current ETag is etag.
func (d *Dir) DeleteIfMatch(_ context.Context, key, etag string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	unlock, err := d.lock()
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %s: %w", d.name, key, core.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", d.name, key, err)
	}
	if etagOf(cur) != etag {
		return fmt.Errorf("%s: %s: %w", d.name, key, core.ErrPreconditionFailed)
	}
	return os.Remove(p)
}

// CheckConditionalDelete is nil: DeleteIfMatch compares and removes under
// the pool lock, so it is conditional without asking anyone.
func (d *Dir) CheckConditionalDelete(context.Context) error { return nil }

// Open parses a --meta URL: "dir:PATH", a plain path, or
// "s3://host:port/bucket[/prefix]".
func Open(ctx context.Context, url string) (core.Store, error) {
	switch {
	case strings.HasPrefix(url, "s3://"):
		return OpenS3(ctx, url)
	case strings.HasPrefix(url, "dir:"):
		return NewDir(strings.TrimPrefix(url, "dir:"), url)
	case strings.Contains(url, "://"):
		return nil, fmt.Errorf("unsupported --meta %q: use dir:PATH, a directory path, or s3://host:port/bucket[/prefix]", url)
	}
	return NewDir(url, url)
}
