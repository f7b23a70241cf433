//go:build !unix

package dailyrun

import "time"

// processCPU is unknown here: benchmarks report wall-time rates only.
func processCPU() time.Duration { return 0 }
