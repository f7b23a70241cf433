//go:build unix

package metastore

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockName is the lock file conditional writes take in the pool's root.
// It is outside ilm/, so no listing under ilm/ sees it.
const lockName = ".ilmctl-meta.lock"

// lockRoot takes an exclusive flock on the pool's lock file, so that
// conditional writes are atomic across ilmctl processes too, not only
// within one. The returned func releases it.
func lockRoot(root string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(root, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
