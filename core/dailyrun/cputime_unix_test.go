//go:build unix

package dailyrun

import (
	"syscall"
	"time"
)

// processCPU is this process's user and system CPU time so far; a
// benchmark divides by it to report a rate that a busy machine does not
// skew as it skews wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
