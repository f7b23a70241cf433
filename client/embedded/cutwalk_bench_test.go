//go:build unix

package embedded

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
)

// cutBenchVersions sizes BenchmarkCutColdPass: ILMCTL_BENCH_CUT_VERSIONS,
// else 1M, or 20k with -short.
func cutBenchVersions(b *testing.B) int {
	if v := os.Getenv("ILMCTL_BENCH_CUT_VERSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 20000 {
			b.Fatalf("ILMCTL_BENCH_CUT_VERSIONS=%q: want a number of versions, at least 20000 (fewer: the deletes in flight when a pass is cut make too few passes)", v)
		}
		return n
	}
	if testing.Short() {
		return 20000
	}
	return 1000000
}

// processCPU is this process's user and system CPU time so far: the
// ratio of two runs' CPU, unlike their wall time, is not skewed by other
// processes on a busy machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCutColdPass runs a cold pass over a fixture of 1M versions
// (cutBenchVersions) once uncut, and once cut by its deadline into passes
// of an eighth of the uncut pass's deletes each (5 or more: the deletes in
// flight when a pass is cut still complete), every pass opening the
// filer afresh as its own process would and continuing the
// recovery walk the previous one saved, until one ends ok. It reports the
// CPU of the cut passes together against the uncut pass's (cpu-ratio;
// pass-cpu-ratio leaves out the CPU of opening the filer, whose bbolt
// consistency check each of the cut run's passes repeats),
// and fails unless they end in the same state with the same deletes, none
// twice (docs/design/daily-run.md#resumable-walks). Loading and copying
// the fixture is outside the timer and the CPU counts.
func BenchmarkCutColdPass(b *testing.B) {
	versions := cutBenchVersions(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		root := b.TempDir()
		uncutDir, cutDir := filepath.Join(root, "uncut"), filepath.Join(root, "cut")
		if err := loadCutFixture(uncutDir, versions); err != nil {
			b.Fatal(err)
		}
		if err := copyFiler(uncutDir, cutDir); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()

		cutOpenCPU = &struct {
			clock func() time.Duration
			spent time.Duration
		}{clock: processCPU}
		cpu0 := processCPU()
		var uncutDone []string
		res, err := cutRun(uncutDir, 0, nil, func(t string) { uncutDone = append(uncutDone, t) })
		uncutCPU := processCPU() - cpu0
		uncutOpen := cutOpenCPU.spent
		cutOpenCPU.spent = 0
		b.StopTimer()
		if err != nil || res.Status() != dailyrun.StatusOK {
			b.Fatalf("uncut pass: %v %v", err, res.Heartbeat())
		}
		uncutKeys := logPass(b, "uncut pass", res, uncutCPU)
		per := max(1, len(uncutDone)/8)
		runtime.GC()
		b.StartTimer()

		cpu0 = processCPU()
		var cutDone []string
		var cutKeys int64
		passes := 0
		for {
			passes++
			c0 := processCPU()
			res, err := cutRun(cutDir, per, nil, func(t string) { cutDone = append(cutDone, t) })
			if err != nil {
				b.Fatal(err)
			}
			cutKeys += logPass(b, fmt.Sprintf("cut pass %d", passes), res, processCPU()-c0)
			if res.Status() == dailyrun.StatusOK {
				break
			}
			if res.Status() != dailyrun.StatusIncomplete || passes > 100 {
				b.Fatalf("cut pass %d: %s", passes, res.Heartbeat())
			}
		}
		cutCPU := processCPU() - cpu0
		cutOpen := cutOpenCPU.spent
		cutOpenCPU = nil
		b.StopTimer()

		if passes < 5 {
			b.Fatalf("%d passes: the cut did not cut the walk into 5 or more", passes)
		}
		if ok, why := sameTargets(uncutDone, cutDone); !ok {
			b.Fatalf("the cut passes deleted other targets than the uncut pass: %s", why)
		}
		want, n, err := filerState(uncutDir)
		if err != nil {
			b.Fatal(err)
		}
		got, _, err := filerState(cutDir)
		if err != nil {
			b.Fatal(err)
		}
		if got != want {
			b.Fatalf("the cut passes ended in another state than the uncut pass (%d versions left)", n)
		}
		b.ReportMetric(float64(passes), "passes")
		b.ReportMetric(float64(len(uncutDone)), "deletes")
		b.ReportMetric(uncutCPU.Seconds(), "uncut-cpu-s")
		b.ReportMetric(float64(cutKeys)/float64(max(1, uncutKeys)), "walked-ratio")
		b.ReportMetric(cutCPU.Seconds(), "cut-cpu-s")
		b.ReportMetric(cutOpen.Seconds(), "cut-open-cpu-s")
		if uncutCPU > 0 {
			b.ReportMetric(cutCPU.Seconds()/uncutCPU.Seconds(), "cpu-ratio")
			// The same without the filer's opens: what the passes
			// themselves cost, as on a store with nothing to open.
			b.ReportMetric((cutCPU-cutOpen).Seconds()/(uncutCPU-uncutOpen).Seconds(), "pass-cpu-ratio")
		}
		b.StartTimer()
	}
}

// logPass logs one pass's CPU, the meta-log events its replay decided and
// the keys its walk listed (which it returns): where a cut run's extra
// CPU goes. The log is part of the benchmark's output.
func logPass(b *testing.B, name string, res *dailyrun.Result, cpu time.Duration) int64 {
	var events, keys int64
	for _, s := range res.Shards {
		events += s.EventsScanned
		keys += s.WalkKeys
	}
	b.Logf("%s: %s, %.2f CPU s, %d keys walked, %d events replayed", name, res.Status(), cpu.Seconds(), keys, events)
	return keys
}
