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
}

// NewDir opens root, which must exist and be a directory. A root that is
// a symbolic link is resolved once, here, so listing and reads see the
// same tree: filepath.WalkDir does not follow a link at its root, and a
// pool listed as empty while its records are readable would publish a
// false zero (docs/design/ilm-records.md#incomplete-scans).
func NewDir(root, name string) (*Dir, error) {
	real, err := filepath.EvalSymlinks(root)
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
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
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
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		k := filepath.ToSlash(rel)
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
		p, _ := d.path(k)
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
	return func() { unlock(); d.mu.Unlock() }, nil
}

// write replaces p atomically and durably (internal/atomicfile), so a
// crash leaves the old record or the new one, never a partial one.
func (d *Dir) write(p string, data []byte) error {
	if _, err := atomicfile.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data, 0o644)
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
