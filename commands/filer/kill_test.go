//go:build unix

package filer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/client/embedded"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	runcmd "github.com/ilmctl/ilmctl/commands/run"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

// The kill tests re-execute this test binary as ilmctl (TestMain): with
// childEnv set it runs `filer ...` or `run ...` from its arguments, as
// main does, and with blockEnv also set its `filer load` blocks at that
// point (loadHook) after printing blockedLine, so the parent can SIGKILL it
// there: a known point, no sleeps.
const (
	childEnv    = "ILMCTL_FILER_TEST_CHILD"
	blockEnv    = "ILMCTL_FILER_TEST_BLOCK_AT" // N: after the Nth bucket; "durable": before the rename
	blockedLine = "ilmctl-test: load blocked"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func childMain(args []string) int {
	if at := os.Getenv(blockEnv); at != "" {
		want := client.LoadPoint{Durable: at == "durable"}
		if !want.Durable {
			n, err := strconv.Atoi(at)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s=%q: want a bucket count or \"durable\"\n", blockEnv, at)
				return 2
			}
			want.Buckets = n
		}
		loadHook = func(p client.LoadPoint) error {
			if p == want || (want.Durable && p.Durable) {
				fmt.Println(blockedLine)
				// Blocks until the parent kills us; EOF means it is gone.
				_, _ = io.Copy(io.Discard, os.Stdin)
				os.Exit(99)
			}
			return nil
		}
	}
	var cmd *cobra.Command
	if len(args) > 0 && args[0] == "run" {
		cmd, args = runcmd.NewCommand(), args[1:]
	} else {
		cmd = NewCommand()
	}
	cmd.SilenceUsage, cmd.SilenceErrors = true, true // as main's root command
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	if err != nil { // as cmd/ilmctl's report: the message, then its hints
		fmt.Fprintf(os.Stderr, "ilmctl: %v\n", err)
		for _, h := range hint.All(err) {
			fmt.Fprintf(os.Stderr, "ilmctl: hint: %s\n", h)
		}
	}
	return cmdutil.Code(err)
}

// childEnviron is the environment of a child ilmctl. Under the race
// detector a process sleeps a second on exit unless told not to.
func childEnviron(extra ...string) []string {
	env := append(os.Environ(), childEnv+"=1", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	return append(env, extra...)
}

type childResult struct {
	code           int
	stdout, stderr string
}

// ilmctl runs one command in a child process to completion.
func ilmctl(t *testing.T, args ...string) childResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = childEnviron()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("ilmctl %v: %v", args, err)
	}
	return childResult{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// loadKilled starts `filer load fixture --filer dir` blocking at at and
// SIGKILLs it once it reports being there.
func loadKilled(t *testing.T, at, fixture, dir string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "load", fixture, "--filer", dir)
	cmd.Env = childEnviron(blockEnv + "=" + at)
	stdin, err := cmd.StdinPipe() // kept open: the blocked child reads it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != blockedLine+"\n" {
		_ = cmd.Wait()
		t.Fatalf("load never blocked at %s: stdout %q, exit %d, stderr %s", at, line, cmd.ProcessState.ExitCode(), stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("load was not killed by SIGKILL: %v", cmd.ProcessState)
	}
}

// writeBigFixture writes a fixture of buckets × objects keys with two
// versions each, big enough that a load takes well over half a second, and
// returns its path and its version count.
func writeBigFixture(t *testing.T, buckets, objects int) (string, int) {
	t.Helper()
	type version struct {
		VersionID string    `json:"version_id"`
		Mtime     time.Time `json:"mtime"`
		Size      int64     `json:"size"`
	}
	type object struct {
		Key      string    `json:"key"`
		Versions []version `json:"versions"`
	}
	type bucket struct {
		Name       string   `json:"name"`
		Versioning string   `json:"versioning"`
		Objects    []object `json:"objects"`
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var fx struct {
		Buckets []bucket `json:"buckets"`
	}
	for b := range buckets {
		bk := bucket{Name: fmt.Sprintf("bucket-%02d", b), Versioning: "Enabled"}
		for o := range objects {
			m := base.Add(time.Duration(o) * time.Minute)
			bk.Objects = append(bk.Objects, object{Key: fmt.Sprintf("logs/%06d.log", o), Versions: []version{
				{fmt.Sprintf("a%d", o), m, 100}, {fmt.Sprintf("b%d", o), m.Add(time.Second), 200},
			}})
		}
		fx.Buckets = append(fx.Buckets, bk)
	}
	raw, err := json.Marshal(fx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, buckets * objects * 2
}

// TestLoadKilled is the operator's report: `filer load big.json --filer D`
// killed with SIGKILL partway left a valid, empty or partial filer that
// `filer ls` listed with exit 0 and `run` passed over as ok. Killed at each
// point between its first write and its rename, a load into a new D must
// leave no filer (ls and run exit 1 naming the unfinished load), a load
// into an existing filer must leave it as it was, and the next full load
// must succeed and remove the leftover.
func TestLoadKilled(t *testing.T) {
	// 8 × 1500 keys take about 0.6 s to load in a normal build, long
	// enough that a kill without the hook would land mid-load. The hook is
	// what makes the kill points exact, so under the race detector, which
	// makes a load about six times slower, a smaller fixture tests the same
	// points in a few seconds.
	const buckets = 8
	objects := 1500
	if raceEnabled {
		objects = 150
	}
	big, versions := writeBigFixture(t, buckets, objects)
	small := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(small, []byte(testFixture), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		existing bool // D already holds the small fixture's filer
		at       string
	}{
		{"new filer, killed after the first bucket", false, "1"},
		{"new filer, killed halfway", false, strconv.Itoa(buckets / 2)},
		{"new filer, killed with every bucket written, before commit", false, strconv.Itoa(buckets)},
		{"new filer, killed committed and synced, before the rename", false, "durable"},
		{"existing filer, killed halfway", true, strconv.Itoa(buckets / 2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "D")
			var before string
			if tc.existing {
				if r := ilmctl(t, "load", small, "--filer", dir); r.code != 0 {
					t.Fatalf("small load: %+v", r)
				}
				before = ilmctl(t, "ls", "--filer", dir, "-o", "json").stdout
			}

			loadKilled(t, tc.at, big, dir)

			ls := ilmctl(t, "ls", "--filer", dir, "-o", "json")
			run := ilmctl(t, "run", "--filer", dir, "--dry-run", "--now", "2026-12-01T00:00:00Z", "-o", "json")
			if tc.existing {
				if ls.code != 0 || ls.stdout != before {
					t.Fatalf("ls after the kill: exit %d, %s\nwant the filer unchanged:\n%s", ls.code, ls.stdout+ls.stderr, before)
				}
			} else {
				for name, r := range map[string]childResult{"ls": ls, "run": run} {
					if r.code != cmdutil.ExitFailure || r.stdout != "" ||
						!strings.Contains(r.stderr, "ilmctl: no filer at "+dir+", only the unfinished load "+filepath.Join(dir, embedded.UnfinishedPrefix)) {
						t.Errorf("%s after the kill: exit %d, stdout %q, stderr %q; want exit 1 and no filer", name, r.code, r.stdout, r.stderr)
					}
				}
			}

			start := time.Now()
			load := ilmctl(t, "load", big, "--filer", dir)
			t.Logf("full load took %s", time.Since(start).Round(time.Millisecond))
			wantOut := fmt.Sprintf("loaded into %s:\n  %d buckets, %d objects, %d versions, 0 uploads, %d meta-log events\n",
				dir, buckets, versions/2, versions, 2*versions-versions/2)
			if load.code != 0 || load.stdout != wantOut {
				t.Fatalf("load after the kill: exit %d, stdout %q, stderr %q; want %q", load.code, load.stdout, load.stderr, wantOut)
			}
			if removed := strings.Contains(load.stderr, "ilmctl: removed "+filepath.Join(dir, embedded.UnfinishedPrefix)); removed == tc.existing {
				t.Errorf("load after the kill: stderr %q, want a removed leftover: %v", load.stderr, !tc.existing)
			}
			ls = ilmctl(t, "ls", "--filer", dir, "-o", "json")
			var res render.FilerListing
			if err := json.Unmarshal([]byte(ls.stdout), &res); ls.code != 0 || err != nil {
				t.Fatalf("ls after the full load: exit %d, %v, %s", ls.code, err, ls.stderr)
			}
			wantVersions := versions
			if tc.existing {
				wantVersions += 3 // the small fixture's
			}
			if len(res.Versions) != wantVersions {
				t.Errorf("ls after the full load lists %d versions, want %d", len(res.Versions), wantVersions)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{embedded.DBFile}) {
				t.Errorf("%s holds %v after the full load, want only %s", dir, names, embedded.DBFile)
			}
		})
	}
}
