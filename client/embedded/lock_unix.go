//go:build unix

package embedded

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on directory dir for one Load; unlock
// releases it, and so does the kernel when the process dies, kill -9
// included, so a lock never outlives its load. It does not wait: a second
// load into dir fails at once with ErrLoadBusy.
//
// locked is false, with no error, where the file system does not support
// flock on a directory (NFS emulates flock with byte-range locks, which a
// read-only descriptor cannot take); Load then refuses rather than removes
// the temporary files of unfinished loads, and two loads racing into a new
// filer there are not serialised: the later rename wins.
func lockDir(dir string) (unlock func(), locked bool, err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, false, fmt.Errorf("lock filer dir: %w", err)
	}
	err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return func() { d.Close() }, true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		d.Close()
		return nil, false, fmt.Errorf("filer dir %s: %w: wait for it to finish", dir, ErrLoadBusy)
	case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOTSUP),
		errors.Is(err, syscall.EBADF), errors.Is(err, syscall.EINVAL):
		d.Close()
		return func() {}, false, nil
	default:
		d.Close()
		return nil, false, fmt.Errorf("lock filer dir %s: %w", dir, err)
	}
}
