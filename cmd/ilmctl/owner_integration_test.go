//go:build integration && unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// childEnv makes this test binary run as ilmctl (TestMain), so a test can
// kill a real ilmctl process with SIGKILL.
const childEnv = "ILMCTL_CMD_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		root := newRootCommand()
		root.SetArgs(normalizeSingleDashFlags(root, os.Args[1:]))
		os.Exit(report(os.Stderr, root.ExecuteContext(context.Background())))
	}
	os.Exit(m.Run())
}

// ownerAction is one action line of `ilmctl run -o jsonl`.
type ownerAction struct {
	Type      string `json:"type"`
	Shard     int    `json:"shard"`
	Bucket    string `json:"bucket"`
	Key       string `json:"key"`
	VersionID string `json:"version_id"`
	Kind      string `json:"kind"`
	Outcome   string `json:"outcome"`
}

// ownerRules: NoncurrentDays under n/, Expiration Days under e/.
const ownerRules = lc +
	`<Rule><ID>nc</ID><Filter><Prefix>n/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
	`<Rule><ID>exp</ID><Filter><Prefix>e/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
	`</LifecycleConfiguration>`

const ownerKeys = 32 // per prefix

// TestOneOwnerOnSeaweedFS: on a live SeaweedFS, whose meta-log events of
// one key carry filer paths in several shards, four ilmctl processes
// (--shard-index 0/4 to 3/4) replay the sixteen shards side by side; the
// first is killed with SIGKILL mid-pass, and then one process runs every
// shard, again until the killed process's leases expired. Every action is
// dispatched by its key's shard, no target is DONE twice, no cursor goes
// backwards, and the bucket ends as AWS (and one uninterrupted host)
// leaves it: each n/ key without its noncurrent version, each e/ key with
// exactly one delete marker.
func TestOneOwnerOnSeaweedFS(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "it replays SeaweedFS's meta-log in two processes")
	ft := itest.FilerEnv(t)
	s3c := itest.FromEnv(t)
	st := itest.OpenFiler(t, ft)
	itest.PurgeBuckets(t, st)
	bucket := s3c.CreateBucket(t, "owner")
	s3c.PutVersioning(t, bucket, "Enabled")
	s3c.PutLifecycleXML(t, bucket, ownerRules)
	base := []string{"run", "--filer", "seaweedfs://" + ft.Filer, "--s3-grpc", ft.S3GRPC, "-runtime", "3m"}
	// The new bucket is a rule edit: a recovery walk, then a replay, so
	// the passes below replay.
	for _, what := range []string{"rule edit", "replay"} {
		if _, stderr, code := execute(t, append(base, "-o", "json")...); code != 0 {
			t.Fatalf("%s pass: exit %d\n%s", what, code, stderr)
		}
	}

	crossing := 0
	for i := range ownerKeys {
		n, e := fmt.Sprintf("n/%02d", i), fmt.Sprintf("e/%02d", i)
		v1, _ := s3c.PutObject(t, bucket, n, "n1", nil)
		s3c.PutObject(t, bucket, n, "n2", nil)
		itest.BackdateNoncurrent(t, st, bucket, n, v1, 3*24*time.Hour)
		e1, _ := s3c.PutObject(t, bucket, e, "e1", nil)
		e2, _ := s3c.PutObject(t, bucket, e, "e2", nil)
		itest.BackdateNoncurrent(t, st, bucket, e, e1, 3*24*time.Hour)
		itest.Backdate(t, st, bucket, e, e2, 3*24*time.Hour)
		for _, k := range []string{n, e} {
			for _, p := range []string{k + ".versions", k + ".versions/v_" + v1, k + ".versions/v_" + e2} {
				if lifecycle.ShardID(bucket, p) != lifecycle.ShardID(bucket, k) {
					crossing++
					break
				}
			}
		}
	}
	if crossing == 0 {
		t.Fatal("no key has an event whose filer path shards apart from it; the test needs some")
	}

	// Four processes side by side; the first, slowed to 2 deletes a
	// second, is killed after its second DONE.
	before := loadCursors(t, st)
	var mu sync.Mutex
	var actions []ownerAction
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kill, rate := i == 0, "40"
			if kill {
				rate = "2"
			}
			got := runChild(t, append(base, "--shard-index", fmt.Sprintf("%d/4", i), "-o", "jsonl", "--deletes-per-second", rate), kill, 2)
			t.Logf("--shard-index %d/4 (killed %v): %d actions reported", i, kill, len(got))
			mu.Lock()
			actions = append(actions, got...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	// And again, every shard in one process, until the killed process's
	// leases expired and every shard ran.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		stdout, stderr, code := execute(t, append(base, "-o", "jsonl")...)
		if code != 0 {
			t.Fatalf("the pass after the kill: exit %d\n%s", code, stderr)
		}
		got, leased := jsonlActions(t, strings.NewReader(stdout))
		t.Logf("every shard: %d actions reported, %d shards leased", len(got), leased)
		actions = append(actions, got...)
		if leased == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d shards still leased by the killed process after 3 minutes", leased)
		}
		time.Sleep(5 * time.Second) // the killed process's leases expire on the server's clock
	}

	after := loadCursors(t, st)
	for shard := range lifecycle.ShardCount {
		if after[shard].TsNs < before[shard].TsNs {
			t.Errorf("shard %d: cursor went backwards, %d -> %d", shard, before[shard].TsNs, after[shard].TsNs)
		}
	}
	done := map[string]int{}
	for _, a := range actions {
		if a.Bucket != bucket {
			continue
		}
		if owner := lifecycle.ShardID(a.Bucket, a.Key); a.Shard != owner {
			t.Errorf("%s@%s %s dispatched by shard %d, its key's is %d", a.Key, a.VersionID, a.Kind, a.Shard, owner)
		}
		if a.Outcome == "DONE" {
			done[a.Key+"@"+a.VersionID+" "+a.Kind]++
		}
	}
	dones := 0
	for target, n := range done {
		dones += n
		if n > 1 {
			t.Errorf("%s DONE %d times", target, n)
		}
	}
	// The killed process's last lines may never have come out: at most
	// one DONE per target was reported, and the bucket says the rest.
	if dones > 2*ownerKeys || dones < ownerKeys {
		t.Errorf("%d DONE over the passes, want at most %d (one per n/ noncurrent version, one marker per e/ key) and most of them", dones, 2*ownerKeys)
	}
	var want []string
	for i := range ownerKeys {
		n, e := fmt.Sprintf("n/%02d", i), fmt.Sprintf("e/%02d", i)
		want = append(want, n+" latest n2", e+" latest [DM]", e+" noncurrent e1", e+" noncurrent e2")
	}
	sort.Strings(want)
	if d := cmp.Diff(want, contents(t, s3c, bucket)); d != "" {
		t.Errorf("the bucket after the passes (-AWS +got):\n%s", d)
	}
}

// runChild runs ilmctl with args as a process of its own, reading its -o
// jsonl actions as they come; with kill, it kills the process with
// SIGKILL once it has reported after DONE actions (and fails the test if
// the pass ended first).
func runChild(t *testing.T, args []string, kill bool, after int) []ownerAction {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Error(err)
		return nil
	}
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return nil
	}
	var got []ownerAction
	killed := false
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	dones := 0
	for sc.Scan() {
		a, ok, _ := jsonlAction(t, sc.Bytes())
		if !ok {
			continue
		}
		got = append(got, a)
		if a.Outcome == "DONE" {
			dones++
		}
		if kill && !killed && dones >= after {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	switch {
	case kill && killed && err == nil:
		t.Errorf("ilmctl %v ended before it was killed: nothing was killed mid-pass\n%s", args, stderr.String())
	case kill && !killed:
		t.Errorf("ilmctl %v ended (%v) before %d DONE actions: nothing to kill\n%s", args, err, after, stderr.String())
	case !kill && err != nil:
		t.Errorf("ilmctl %v: %v\n%s", args, err, stderr.String())
	}
	return got
}

// jsonlActions reads -o jsonl: its actions, and how many shards its
// summary reports leased by another process.
func jsonlActions(t *testing.T, r io.Reader) (out []ownerAction, leased int) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		a, ok, n := jsonlAction(t, sc.Bytes())
		if ok {
			out = append(out, a)
		}
		leased += n
	}
	return out, leased
}

// jsonlAction decodes one -o jsonl line: an action (ok), or the summary
// with the number of shards it reports leased.
func jsonlAction(t *testing.T, line []byte) (a ownerAction, ok bool, leased int) {
	t.Helper()
	var l struct {
		ownerAction
		Shards []struct {
			Status string `json:"status"`
		} `json:"shards"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		t.Errorf("-o jsonl line %q: %v", line, err)
		return a, false, 0
	}
	for _, s := range l.Shards {
		if s.Status == "leased" {
			leased++
		}
	}
	return l.ownerAction, l.Type == "action", leased
}
