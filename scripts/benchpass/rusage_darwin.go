package main

import "syscall"

// maxrssKiB is ru_maxrss in KiB: macOS reports bytes.
func maxrssKiB(ru *syscall.Rusage) int64 { return ru.Maxrss / 1024 }
