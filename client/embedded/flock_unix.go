//go:build unix

package embedded

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errLocked is lockShared's error when a writer held the database for the
// whole timeout.
var errLocked = errors.New("locked by a writer")

// lockShared takes a shared flock on f, the lock bbolt's read-only opens
// take and its writers exclude, retrying until timeout as bbolt does. It is
// released when f is closed. Where the file system cannot flock, it
// returns nil unlocked: bbolt's own lock then decides.
func lockShared(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return nil
		case time.Now().After(deadline):
			return errLocked
		}
		time.Sleep(50 * time.Millisecond)
	}
}
