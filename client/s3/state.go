package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/atomicfile"
)

// stateStore keeps the pass's small state files (cursors), addressed by
// their filer path (e.g. /etc/s3/lifecycle/daily-cursors/shard-00.json).
type stateStore interface {
	read(ctx context.Context, path string) ([]byte, error)
	write(ctx context.Context, path string, data []byte) error
	// lease takes shard's lease (lease.go, lease_dir_*.go).
	lease(ctx context.Context, shard int, owner string, ttl time.Duration) (filer.Lease, error)
	String() string
}

// openState parses Options.State: "s3://bucket[/prefix]" on the store's
// endpoint, else a local directory ("" = DefaultStateDir).
func openState(spec string, s *Store) (stateStore, error) {
	if spec == "" {
		spec = DefaultStateDir
	}
	if rest, ok := strings.CutPrefix(spec, "s3://"); ok {
		bucket, prefix, _ := strings.Cut(rest, "/")
		if bucket == "" || strings.Contains(bucket, ":") {
			return nil, fmt.Errorf("%w %q: want s3://bucket[/prefix] on the --filer endpoint, e.g. s3://ilmctl/state", ErrBadState, spec)
		}
		prefix = strings.Trim(prefix, "/")
		if prefix != "" {
			prefix += "/"
		}
		return &bucketState{s: s, bucket: bucket, prefix: prefix, etags: map[string]string{}}, nil
	}
	if strings.Contains(spec, "://") {
		return nil, fmt.Errorf("%w %q: want a directory or s3://bucket[/prefix]", ErrBadState, spec)
	}
	return &dirState{root: spec}, nil
}

// relPath turns a filer path into a slash path relative to the state root,
// refusing empty, "." and ".." components so nothing escapes the root.
func relPath(path string) (string, error) {
	rel := strings.TrimPrefix(path, "/")
	if rel == "" {
		return "", fmt.Errorf("%w: empty state path", ErrBadState)
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." || part == ".." || strings.Contains(part, "\\") {
			return "", fmt.Errorf("%w: state path %q", ErrBadState, path)
		}
	}
	return rel, nil
}

// dirState mirrors filer paths below a local directory. A write replaces
// the file atomically and durably (internal/atomicfile: temp file, fsync,
// rename, fsync of the directory), so a reader, or the next pass after a
// crash, sees the old cursor or the new one, never a partial one. Two
// processes sharing one directory are not coordinated.
type dirState struct{ root string }

func (d *dirState) String() string { return d.root }

func (d *dirState) read(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := relPath(path)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(d.root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s in state dir %s: %w", path, d.root, filer.ErrNotFound)
	}
	return b, err
}

func (d *dirState) write(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rel, err := relPath(path)
	if err != nil {
		return err
	}
	dst := filepath.Join(d.root, filepath.FromSlash(rel))
	if _, err := atomicfile.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("state dir %s: %w", d.root, err)
	}
	// 0o600 for a new cursor, as before; one the operator chmod-ed keeps
	// its mode.
	if err := atomicfile.WriteFile(dst, data, 0o600); err != nil {
		return fmt.Errorf("state dir %s: write %s: %w", d.root, dst, err)
	}
	return nil
}

// bucketState keeps state files as objects under a prefix of a bucket on
// the same endpoint. Writes are conditional: If-Match with the ETag this
// store last read or wrote, If-None-Match: * when it saw none, so two
// passes racing on one shard's cursor cannot silently overwrite each other
// (the loser gets ErrStateConflict). A server that does not implement
// conditional PUT (501 NotImplemented) gets no unconditional write
// instead: the save fails with ErrNoConditionalWrite, since a plain PUT
// would silently give up that guarantee.
type bucketState struct {
	s              *Store
	bucket, prefix string

	mu    sync.Mutex
	etags map[string]string // filer path → ETag last seen
}

func (b *bucketState) String() string { return "s3://" + b.bucket + "/" + b.prefix }

func (b *bucketState) key(path string) (string, error) {
	rel, err := relPath(path)
	if err != nil {
		return "", err
	}
	return b.prefix + rel, nil
}

func (b *bucketState) read(ctx context.Context, path string) ([]byte, error) {
	key, err := b.key(path)
	if err != nil {
		return nil, err
	}
	out, err := b.s.c.GetObject(ctx, &s3api.GetObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
	if isCode(err, "NoSuchKey", "NotFound") {
		b.mu.Lock()
		delete(b.etags, path)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s in %s: %w", path, b, filer.ErrNotFound)
	}
	if err != nil {
		return nil, apiErr("GetObject", b.bucket+"/"+key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, maxRawBody))
	if err != nil {
		return nil, fmt.Errorf("read %s/%s: %w", b.bucket, key, err)
	}
	b.mu.Lock()
	b.etags[path] = aws.ToString(out.ETag)
	b.mu.Unlock()
	return data, nil
}

func (b *bucketState) write(ctx context.Context, path string, data []byte) error {
	key, err := b.key(path)
	if err != nil {
		return err
	}
	b.mu.Lock()
	etag, seen := b.etags[path]
	b.mu.Unlock()
	in := &s3api.PutObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key), Body: bytes.NewReader(data), ContentType: aws.String("application/json")}
	header := "If-None-Match: *"
	if seen {
		in.IfMatch = aws.String(etag)
		header = "If-Match"
	} else {
		in.IfNoneMatch = aws.String("*")
	}
	out, err := b.s.c.PutObject(ctx, in)
	if err != nil {
		if httpStatus(err) == 412 || isCode(err, "PreconditionFailed", "ConditionalRequestConflict") {
			return fmt.Errorf("%s/%s: %w: another ilmctl pass may be running on the same shards", b.bucket, key, ErrStateConflict)
		}
		if httpStatus(err) == 501 || isCode(err, "NotImplemented") {
			return fmt.Errorf("%s/%s: PutObject with %s: %w (%v): keep cursors in a local directory (--state DIR) on the one host that runs the passes", b.bucket, key, header, ErrNoConditionalWrite, err)
		}
		return apiErr("PutObject", b.bucket+"/"+key, err)
	}
	b.mu.Lock()
	b.etags[path] = aws.ToString(out.ETag)
	b.mu.Unlock()
	return nil
}
