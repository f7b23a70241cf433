// Command benchpass measures ilmctl's lifecycle pass on the embedded filer
// at a given number of object versions; `make bench` runs it. It is a
// benchmark helper, not part of ilmctl.
//
//	go run ./scripts/benchpass -ilmctl bin/ilmctl -versions 100000,1000000
//
// Per size it writes a fixture with scripts/genfixture (-genfixture: its
// binary), then runs, each as its own process whose peak RSS the kernel
// reports (getrusage of the child):
//
//  1. load:   ilmctl filer load of the fixture into a fresh filer
//  2. dry:    a cold pass, --dry-run -o jsonl
//  3. cold:   the same cold pass for real (recovery walk, replay, deletes)
//  4. next:   a day later, a steady-state pass (replay from the saved
//     cursors) whose change is the cold pass's own deletes
//  5. steady: a day after that, with 1 % more versions written into the
//     same buckets during that day (new keys, same rules: no rule edit),
//     a steady-state pass again
//
// and prints one row per step: wall and CPU seconds, versions/s,
// deletes/s (actions dispatched DONE per second), peak RSS as the kernel
// counts it (ru_maxrss, which includes the pages of filer.db that bbolt
// maps and the pass touched) and the peak of anonymous memory alone
// (RssAnon sampled from /proc every 10ms, Linux only). The machine is named above the
// table (GOOS/GOARCH, CPUs, CPU model when /proc/cpuinfo has it).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ilmctl := flag.String("ilmctl", "bin/ilmctl", "ilmctl binary")
	gen := flag.String("genfixture", "", "genfixture binary (default: go run ./scripts/genfixture)")
	sizes := flag.String("versions", "100000,1000000", "comma-separated version counts")
	dir := flag.String("dir", "", "work directory (default a temporary one, removed at the end)")
	now := flag.String("now", "2026-11-30T00:00:00Z", "pass clock of the cold passes")
	flag.Parse()
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "ilmctl-bench-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		work = d
	}
	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("%-9s %-7s %8s %8s %11s %10s %10s %9s %10s\n", "VERSIONS", "STEP", "SECONDS", "CPU_S", "VERSIONS/S", "DELETES/S", "DELETES", "PEAK_RSS", "PEAK_ANON")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-versions %q: want positive integers, e.g. 100000,1000000", *sizes))
		}
		if err := benchSize(*ilmctl, *gen, work, *now, n); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchpass:", err)
	os.Exit(1)
}

// measured is one child process's wall time, CPU time and peak RSS.
type measured struct {
	wall    time.Duration
	cpu     time.Duration // user + system
	rssKiB  int64         // ru_maxrss: anonymous and file-backed (mmap) pages
	anonKiB int64         // peak RssAnon sampled from /proc; -1 when unknown
	// summary is the last line of stdout holding "type":"summary"; the
	// rest of stdout is read and dropped. Holding it (a million action
	// lines is ~250 MB) would inflate the next child's ru_maxrss: Go
	// starts a child with vfork, sharing this process's memory until
	// exec, and Linux counts that memory's peak in the child's maxrss.
	summary []byte
}

func run(name string, args ...string) (measured, error) {
	cmd := exec.Command(name, args...)
	var errb bytes.Buffer
	out := &summaryWriter{}
	cmd.Stdout, cmd.Stderr = out, &errb
	start := time.Now()
	m := measured{anonKiB: -1}
	err := cmd.Start()
	if err == nil {
		stop := make(chan struct{})
		sampled := make(chan int64)
		go func() { sampled <- sampleAnon(cmd.Process.Pid, stop) }()
		err = cmd.Wait()
		close(stop)
		m.anonKiB = <-sampled
	}
	m.wall, m.summary = time.Since(start), out.summary
	if cmd.ProcessState != nil {
		m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			m.rssKiB = maxrssKiB(ru)
		}
	}
	if err != nil {
		return m, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, lastLine(errb.String()))
	}
	return m, nil
}

// sampleAnon polls /proc/pid/status every 10ms until stop and returns
// the largest RssAnon seen (the heap and stacks, without the pages of the
// filer's database that bbolt maps); -1 where /proc has none.
func sampleAnon(pid int, stop <-chan struct{}) int64 {
	peak := int64(-1)
	path := fmt.Sprintf("/proc/%d/status", pid)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
					if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64); err == nil {
						peak = max(peak, kb)
					}
				}
			}
		}
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func benchSize(ilmctl, gen, work, now string, n int) error {
	fx := filepath.Join(work, fmt.Sprintf("fixture-%d.json", n))
	extra := filepath.Join(work, fmt.Sprintf("fixture-%d-extra.json", n))
	genArgs := func(out string, versions int, prefix string) []string {
		return []string{"-versions", strconv.Itoa(versions), "-now", now, "-prefix", prefix, "-o", out}
	}
	t, err := time.Parse(time.RFC3339, now)
	if err != nil {
		return err
	}
	nextDay := t.Add(24 * time.Hour).Format(time.RFC3339)
	dayAfter := t.Add(48 * time.Hour).Format(time.RFC3339)
	// The day's writes: new keys in the same buckets (same rules), none
	// due, written in the 20 hours before the steady pass.
	extraArgs := append(genArgs(extra, max(1, n/100), "b"), "-due", "0", "-recent", "20h", "-key-prefix", "c/")
	extraArgs[3] = dayAfter // -now
	for _, g := range [][]string{genArgs(fx, n, "b"), extraArgs} {
		name, args := gen, g
		if gen == "" {
			name, args = "go", append([]string{"run", "./scripts/genfixture"}, g...)
		}
		if _, err := run(name, args...); err != nil {
			return err
		}
	}
	filerDir := filepath.Join(work, fmt.Sprintf("filer-%d", n))
	if err := os.RemoveAll(filerDir); err != nil {
		return err
	}
	defer os.RemoveAll(filerDir)
	m, err := run(ilmctl, "filer", "load", fx, "--filer", filerDir)
	if err != nil {
		return err
	}
	row(n, "load", m, n, -1)
	pass := func(step, at string, flags ...string) error {
		args := append([]string{"run", "--now", at, "--filer", filerDir, "-o", "jsonl", "--quiet"}, flags...)
		m, err := run(ilmctl, args...)
		if err != nil {
			return err
		}
		done, err := deletes(m.summary)
		if err != nil {
			return fmt.Errorf("%s pass: %w", step, err)
		}
		row(n, step, m, n, done)
		return nil
	}
	if err := pass("dry", now, "--dry-run"); err != nil {
		return err
	}
	if err := pass("cold", now); err != nil {
		return err
	}
	if err := pass("next", nextDay); err != nil {
		return err
	}
	if _, err := run(ilmctl, "filer", "load", extra, "--filer", filerDir); err != nil {
		return err
	}
	return pass("steady", dayAfter)
}

// summaryWriter keeps the last complete stdout line that holds
// "type":"summary" and drops every other line as it arrives.
type summaryWriter struct {
	line    []byte // the line being written
	summary []byte
}

func (w *summaryWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.line = append(w.line, p...)
			break
		}
		w.line = append(w.line, p[:i]...)
		if bytes.Contains(w.line, []byte(`"type":"summary"`)) {
			w.summary = append(w.summary[:0], w.line...)
		}
		w.line, p = w.line[:0], p[i+1:]
	}
	return n, nil
}

// deletes counts the DONE (or, in a dry run, DRY_RUN) outcomes of the
// jsonl summary line.
func deletes(summary []byte) (int64, error) {
	if summary == nil {
		return 0, errors.New("no summary line")
	}
	var sum struct {
		Status string `json:"status"`
		Shards []struct {
			Dispatched map[string]int64 `json:"dispatched"`
		} `json:"shards"`
	}
	if err := json.Unmarshal(summary, &sum); err != nil {
		return 0, err
	}
	if sum.Status != "ok" {
		return 0, fmt.Errorf("status %s", sum.Status)
	}
	var n int64
	for _, s := range sum.Shards {
		n += s.Dispatched["DONE"] + s.Dispatched["DRY_RUN"]
	}
	return n, nil
}

func row(n int, step string, m measured, versions int, done int64) {
	sec := m.wall.Seconds()
	dps, ds := "-", "-"
	if done >= 0 {
		dps = fmt.Sprintf("%.0f", float64(done)/sec)
		ds = strconv.FormatInt(done, 10)
	}
	anon := "-"
	if m.anonKiB >= 0 {
		anon = fmt.Sprintf("%.0f MiB", float64(m.anonKiB)/1024)
	}
	fmt.Printf("%-9d %-7s %8.1f %8.1f %11.0f %10s %10s %5.0f MiB %10s\n", n, step, sec, m.cpu.Seconds(), float64(versions)/sec, dps, ds, float64(m.rssKiB)/1024, anon)
}

func machine() string {
	s := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return s + ", " + strings.TrimSpace(v)
			}
		}
	}
	return s
}
