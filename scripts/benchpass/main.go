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
//  4. steady: a day later, after loading a new bucket holding 1 % of the
//     versions, a steady-state pass (replay from the saved cursors)
//
// and prints one row per step: seconds, versions/s, deletes/s (actions
// dispatched DONE per second) and peak RSS. The machine is named above the
// table (GOOS/GOARCH, CPUs, CPU model when /proc/cpuinfo has it).
package main

import (
	"bufio"
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
	fmt.Printf("%-9s %-7s %9s %12s %11s %10s %9s\n", "VERSIONS", "STEP", "SECONDS", "VERSIONS/S", "DELETES/S", "DELETES", "PEAK_RSS")
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

// measured is one child process's wall time and peak RSS.
type measured struct {
	wall   time.Duration
	rssKiB int64
	stdout []byte
}

func run(name string, args ...string) (measured, error) {
	cmd := exec.Command(name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	m := measured{wall: time.Since(start), stdout: out.Bytes()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rssKiB = maxrssKiB(ru)
	}
	if err != nil {
		return m, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, lastLine(errb.String()))
	}
	return m, nil
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
	for _, g := range [][]string{genArgs(fx, n, "b"), genArgs(extra, max(1, n/100), "new")} {
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
	t, err := time.Parse(time.RFC3339, now)
	if err != nil {
		return err
	}
	nextDay := t.Add(24 * time.Hour).Format(time.RFC3339)

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
		done, err := deletes(m.stdout)
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
	if _, err := run(ilmctl, "filer", "load", extra, "--filer", filerDir); err != nil {
		return err
	}
	return pass("steady", nextDay)
}

// deletes counts the DONE (or, in a dry run, DRY_RUN) outcomes of the
// jsonl summary line.
func deletes(out []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var last []byte
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"type":"summary"`)) {
			last = append(last[:0], sc.Bytes()...)
		}
	}
	if last == nil {
		return 0, errors.New("no summary line")
	}
	var sum struct {
		Status string `json:"status"`
		Shards []struct {
			Dispatched map[string]int64 `json:"dispatched"`
		} `json:"shards"`
	}
	if err := json.Unmarshal(last, &sum); err != nil {
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
	fmt.Printf("%-9d %-7s %9.1f %12.0f %11s %10s %6.0f MiB\n", n, step, sec, float64(versions)/sec, dps, ds, float64(m.rssKiB)/1024)
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
