//go:build !darwin

package main

import "syscall"

// maxrssKiB is ru_maxrss in KiB, as Linux reports it.
func maxrssKiB(ru *syscall.Rusage) int64 { return int64(ru.Maxrss) }
