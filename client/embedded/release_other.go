//go:build !linux

package embedded

import bolt "go.etcd.io/bbolt"

// releaseMapped does nothing off Linux: the mapped pages of filer.db are
// left for the kernel to reclaim.
func releaseMapped(*bolt.DB) error { return nil }

// releaseRange does nothing off Linux.
func releaseRange(uintptr, int64) error { return nil }
