//go:build unix

package embedded

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/filer"
)

// The child of TestKillCutPassConverges (the test binary again) runs one
// cut pass over the filer in killDirEnv, ending it after killCutEnv DONE
// deletes as -runtime would. With killAtEnv set it blocks at that point,
// after printing killBlocked and the point, so the parent can SIGKILL it
// there: a known point, no sleeps. It appends every DONE target it saw
// acknowledged to acked.txt and exits 0 when the pass ended ok, 3 when
// its deadline ended it.
const (
	killDirEnv  = "ILMCTL_TEST_KILL_FILER"
	killCutEnv  = "ILMCTL_TEST_KILL_CUT"
	killAtEnv   = "ILMCTL_TEST_KILL_AT"
	killBlocked = "ilmctl-test: blocked at "
)

// killPoint is where a child blocks: the Nth occurrence in its pass of
//
//   - walk-saved: a walk position written (WalkPath), the write returned;
//   - dispatched: a delete that completed DONE, before the pass hears of
//     it, so before any walk position or cursor can move past it;
//   - cursor-before: a cursor write (CursorPath) about to start;
//   - cursor-after: a cursor write returned, before the pass goes on.
type killPoint struct {
	what string
	n    int
}

func (k killPoint) String() string { return fmt.Sprintf("%s/%d", k.what, k.n) }

func parseKillPoint(s string) (killPoint, error) {
	what, n, _ := strings.Cut(s, "/")
	k := killPoint{what: what}
	var err error
	if k.n, err = strconv.Atoi(n); err != nil || k.n < 1 {
		return k, fmt.Errorf("kill point %q: want WHAT/N with N >= 1", s)
	}
	switch what {
	case "walk-saved", "dispatched", "cursor-before", "cursor-after":
		return k, nil
	}
	return k, fmt.Errorf("kill point %q: unknown %q", s, what)
}

// killStore is the filer with the child's kill point in it. Embedding
// keeps every optional interface the pass looks for (group commit,
// leases) as the filer has it.
type killStore struct {
	*Filer
	at killPoint

	mu   sync.Mutex
	seen map[string]int
}

// reached counts one occurrence of what and blocks forever, after saying
// so, when it is the kill point.
func (k *killStore) reached(what string) {
	k.mu.Lock()
	k.seen[what]++
	hit := what == k.at.what && k.seen[what] == k.at.n
	k.mu.Unlock()
	if hit {
		fmt.Fprintf(os.Stdout, "%s%s\n", killBlocked, k.at)
		select {}
	}
}

func (k *killStore) WriteFile(ctx context.Context, path string, data []byte) error {
	cursor := strings.HasPrefix(path, dailyrun.CursorDir+"/")
	if cursor {
		k.reached("cursor-before")
	}
	err := k.Filer.WriteFile(ctx, path, data)
	if err == nil && cursor {
		k.reached("cursor-after")
	}
	if err == nil && strings.HasPrefix(path, dailyrun.WalkDir+"/") {
		k.reached("walk-saved")
	}
	return err
}

func (k *killStore) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	out, err := k.Filer.LifecycleDelete(ctx, req)
	if err == nil && out == filer.OutcomeDone {
		k.reached("dispatched")
	}
	return out, err
}

func killChild(dir string) int {
	per, err := strconv.Atoi(os.Getenv(killCutEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, killCutEnv, err)
		return 2
	}
	var wrap func(*Filer) filer.Store
	if at := os.Getenv(killAtEnv); at != "" {
		k, err := parseKillPoint(at)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		wrap = func(f *Filer) filer.Store { return &killStore{Filer: f, at: k, seen: map[string]int{}} }
	}
	acked, err := os.OpenFile(filepath.Join(dir, "acked.txt"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// One write per line, unbuffered: it survives the kill.
	res, err := cutRun(dir, per, wrap, func(t string) { fmt.Fprintln(acked, t) })
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	case res.Status() == dailyrun.StatusOK:
		return 0
	case res.Status() == dailyrun.StatusIncomplete:
		return 3
	}
	fmt.Fprintln(os.Stderr, res.Heartbeat())
	for _, s := range res.Shards {
		if s.Err != nil {
			fmt.Fprintf(os.Stderr, "shard %02d %s: %v\n", s.Shard, s.Status, s.Err)
		}
	}
	return 1
}

// runKillChild runs one child pass over dir, killed with SIGKILL at at
// when it gets there ("" for none). It returns whether it was killed, and
// otherwise the child's exit code.
func runKillChild(t *testing.T, dir string, per int, at string) (killed bool, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillCutPassConverges$", "-test.count=1")
	cmd.Env = append(os.Environ(), killDirEnv+"="+dir, killCutEnv+"="+strconv.Itoa(per), killAtEnv+"="+at)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), killBlocked) {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
			break
		}
	}
	err = cmd.Wait()
	if killed {
		return true, -1
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("child: %v: %s", err, stderr.String())
	}
	code = cmd.ProcessState.ExitCode()
	if code != 0 && code != 3 {
		t.Fatalf("child exited %d: %s", code, stderr.String())
	}
	return false, code
}

// A cold pass cut by its deadline into several passes converges to the
// uncut pass's state whichever pass a kill -9 ends, and wherever in it:
// right after a walk position is saved, between a completed delete and
// the position that would pass it, just before and just after a cursor
// is written. Each child pass is its own process over the embedded filer;
// after the kills, passes run (still cut) until one ends ok. The filer
// then holds exactly what the uncut pass left (so no version it keeps is
// deleted), and every delete any pass acknowledged is one the uncut pass
// made, none twice.
func TestKillCutPassConverges(t *testing.T) {
	if dir := os.Getenv(killDirEnv); dir != "" {
		os.Exit(killChild(dir))
	}
	if testing.Short() {
		t.Skip("runs a few dozen child passes")
	}
	root := t.TempDir()
	fixture := filepath.Join(root, "fixture")
	if err := loadCutFixture(fixture, 6000); err != nil {
		t.Fatal(err)
	}
	uncut := filepath.Join(root, "uncut")
	if err := copyFiler(fixture, uncut); err != nil {
		t.Fatal(err)
	}
	var want []string
	res, err := cutRun(uncut, 0, nil, func(s string) { want = append(want, s) })
	if err != nil || res.Status() != dailyrun.StatusOK {
		t.Fatalf("uncut pass: %v %s", err, res.Heartbeat())
	}
	wantState, _, err := filerState(uncut)
	if err != nil {
		t.Fatal(err)
	}
	per := max(1, len(want)/6)

	for _, tc := range []struct {
		name  string
		kills []string // one per pass, in order, until they are used up
	}{
		{"after a walk position save", []string{"walk-saved/3"}},
		{"between a delete and the position save", []string{"dispatched/40"}},
		{"just before a cursor write", []string{"cursor-before/4"}},
		{"just after a cursor write", []string{"cursor-after/4"}},
		{"in three passes in a row", []string{"dispatched/1", "walk-saved/9", "dispatched/200"}},
		{"the first walk save of two passes", []string{"walk-saved/1", "walk-saved/1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(root, strings.ReplaceAll(tc.name, " ", "-"))
			if err := copyFiler(fixture, dir); err != nil {
				t.Fatal(err)
			}
			kills := tc.kills
			passes := 0
			for ; passes < 60; passes++ {
				at := ""
				if len(kills) > 0 {
					at = kills[0]
				}
				killed, code := runKillChild(t, dir, per, at)
				if killed {
					kills = kills[1:]
					continue
				}
				if at != "" && code == 3 {
					continue // not reached in this pass: a later one gets there
				}
				if code == 0 {
					break
				}
			}
			if len(kills) > 0 {
				t.Fatalf("after %d passes, kill points %v were never reached", passes, kills)
			}
			if passes >= 60 {
				t.Fatal("no pass ended ok after 60")
			}
			got, n, err := filerState(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != wantState {
				t.Fatalf("after the kills and %d passes the filer (%d versions) differs from the uncut pass's", passes+1, n)
			}
			acked := readLines(t, filepath.Join(dir, "acked.txt"))
			inWant := map[string]bool{}
			for _, w := range want {
				inWant[w] = true
			}
			seen := map[string]bool{}
			for _, a := range acked {
				if !inWant[a] {
					t.Errorf("%s was deleted, and the uncut pass keeps it", a)
				}
				if seen[a] {
					t.Errorf("%s was deleted twice", a)
				}
				seen[a] = true
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}
