//go:build !unix

package embedded

import (
	"os"
	"time"
)

// lockShared cannot flock on this platform; bbolt's own lock decides.
func lockShared(*os.File, time.Duration) error { return nil }
