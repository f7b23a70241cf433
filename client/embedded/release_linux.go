//go:build linux

package embedded

import (
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// releaseMapped drops the pages of db's memory map from this process's
// resident set (madvise MADV_DONTNEED). They stay in the kernel's page
// cache: the next read of one maps it back without I/O. Nothing is lost:
// bbolt maps the file read-only and shared and writes with pwrite, never
// through the map, so the map's pages always equal the file's. The read
// transaction pins the map while madvise runs: bbolt remaps (when the file
// grows) only under its mmap lock, which every read transaction holds
// shared.
func releaseMapped(db *bolt.DB) error {
	return db.View(func(tx *bolt.Tx) error { return releaseRange(db.Info().Data, tx.Size()) })
}

// releaseRange drops size bytes of a map from addr from the resident set;
// the caller keeps the map from moving (an open transaction).
func releaseRange(addr uintptr, size int64) error {
	if addr == 0 || size <= 0 {
		return nil
	}
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, addr, uintptr(size), unix.MADV_DONTNEED)
	if errno != 0 {
		return errno
	}
	return nil
}
