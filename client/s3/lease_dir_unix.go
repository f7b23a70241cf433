//go:build unix

package s3

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/atomicfile"
)

// lease takes shard's lease in a state directory: an exclusive flock on
// its lease file, held until Release. The kernel drops it when the process
// ends, kill -9 included, so a lease in a directory expires with its
// holder rather than at its ttl. The holder writes its name and expiry
// into the file for the others to report. Like the cursors beside it,
// this coordinates the passes of one host (a cron job that overran), and
// hosts only as far as their shared file system honours flock.
func (d *dirState) lease(ctx context.Context, shard int, owner string, ttl time.Duration) (filer.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := relPath(LeasePath(shard))
	if err != nil {
		return nil, err
	}
	path := filepath.Join(d.root, filepath.FromSlash(rel))
	if _, err := atomicfile.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("state dir %s: %w", d.root, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state dir %s: lease: %w", d.root, err)
	}
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); {
	case err == nil:
	case errors.Is(err, syscall.EWOULDBLOCK):
		f.Close()
		held := &filer.LeaseHeldError{Shard: shard}
		if data, rerr := os.ReadFile(path); rerr == nil {
			if rec, derr := decodeLease(data, shard); derr == nil {
				held.Holder = rec.Owner
			}
		}
		return nil, held
	default:
		f.Close()
		return nil, fmt.Errorf("state dir %s: lock %s: %w", d.root, path, err)
	}
	l := &dirLease{f: f, shard: shard, owner: owner, ttl: ttl}
	if err := l.write(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// dirLease is a held lock file.
type dirLease struct {
	f     *os.File
	shard int
	owner string
	ttl   time.Duration
}

// write records the holder in the lock file for the others' reports.
// Its expiry is informational: the lock lasts as long as the process.
func (l *dirLease) write() error {
	data, _ := json.Marshal(leaseRecord{Version: 1, Shard: l.shard, Owner: l.owner, ExpiresNs: time.Now().Add(l.ttl).UnixNano()})
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("lease %s: %w", l.f.Name(), err)
	}
	if _, err := l.f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("lease %s: %w", l.f.Name(), err)
	}
	return nil
}

// Renew refreshes the recorded expiry; the lock itself cannot be lost
// while the file stays open.
func (l *dirLease) Renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.write()
}

// Release closes the file, which drops the lock.
func (l *dirLease) Release(context.Context) error { return l.f.Close() }
