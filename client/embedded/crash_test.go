package embedded

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// crashEnv names the filer directory the child process of
// TestCrashBetweenBatchWritesAndCommit runs its pass on.
const crashEnv = "ILMCTL_TEST_CRASH_FILER"

// crashAtBatch is the group commit the child dies in.
const crashAtBatch = 3

const crashKeys = 300

var (
	crashDue    = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	crashBefore = time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC) // nothing due yet
)

func crashFixture() string {
	var b strings.Builder
	b.WriteString(`{"buckets":[{"name":"logs","lifecycle_xml":"<LifecycleConfiguration><Rule><ID>r</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>","objects":[`)
	for i := range crashKeys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"key":"k%04d","versions":[{"mtime":"2026-01-01T00:00:00Z","size":1}]}`, i)
	}
	b.WriteString(`]}]}`)
	return b.String()
}

func crashSnapshot(t testing.TB, f *Filer) *engine.Snapshot {
	t.Helper()
	bs, err := f.ListBuckets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var eb []engine.Bucket
	for _, b := range bs {
		cfg, err := lifecycle.Parse([]byte(b.LifecycleXML))
		if err != nil {
			t.Fatal(err)
		}
		eb = append(eb, engine.Bucket{Name: b.Name, Versioning: b.Versioning, Rules: cfg.Rules})
	}
	return engine.Compile(eb, lifecycle.RoundAWS).Snapshot()
}

// TestCrashBetweenBatchWritesAndCommit kills a pass (a child process: the
// test binary again) inside a group commit, after the batch's deletes are
// written and before the commit. Reopened, the filer holds every target
// of that batch, every delete the pass acknowledged (recorded before the
// kill) is applied, and no cursor moved past an unacknowledged delete: a
// shard with a delete in the crashed batch keeps, byte for byte, the
// cursor of the pass before.
func TestCrashBetweenBatchWritesAndCommit(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashChild(t, dir)
		return
	}
	dir := t.TempDir()
	ctx := context.Background()
	f, err := Open(dir, Options{Clock: func() time.Time { return crashBefore }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.LoadFixture(ctx, strings.NewReader(crashFixture())); err != nil {
		t.Fatal(err)
	}
	// A first pass, before anything is due, saves every shard's cursor.
	res, err := dailyrun.Run(ctx, dailyrun.Config{Store: f, Snapshot: crashSnapshot(t, f), RunNow: crashBefore, Clock: time.Now})
	if err != nil || res.Status() != dailyrun.StatusOK || len(res.Actions) != 0 {
		t.Fatalf("first pass: %v %s %d actions", err, res.Status(), len(res.Actions))
	}
	cursors := map[int][]byte{}
	for s := range lifecycle.ShardCount {
		c, err := f.ReadFile(ctx, dailyrun.CursorPath(s))
		if err != nil {
			t.Fatalf("shard %d cursor after the first pass: %v", s, err)
		}
		cursors[s] = c
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashBetweenBatchWritesAndCommit$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("child: %v (want exit 7, the crash): %s", err, stderr.String())
	}

	var crashed []crashTarget
	raw, err := os.ReadFile(filepath.Join(dir, "crashed-batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &crashed); err != nil || len(crashed) == 0 {
		t.Fatalf("crashed batch %q: %v", raw, err)
	}
	acked := ackedKeys(t, filepath.Join(dir, "acked.txt"))
	if len(acked) == 0 {
		t.Fatalf("no delete acknowledged before batch %d", crashAtBatch)
	}

	f, err = Open(dir, Options{MustExist: true, Clock: func() time.Time { return crashDue }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, req := range crashed {
		if acked[req.Key] {
			t.Errorf("%s was acknowledged although its batch never committed", req.Key)
		}
		if obj := lookup(t, f, req.Bucket, req.Key); len(obj.Versions) != 1 || obj.Versions[0].Identity() != req.Expected {
			t.Errorf("%s after the crash = %v, want its version %s as before the batch", req.Key, versionIDs(obj), req.Expected.VersionID)
		}
	}
	for key := range acked {
		if _, found, err := f.LookupObject(ctx, "logs", key); err != nil || found {
			t.Errorf("acknowledged delete of %s lost in the crash (found %v, %v)", key, found, err)
		}
	}
	// A shard with a delete in the crashed batch keeps its cursor. Another
	// shard may have finished (and saved its cursor) before the crash, but
	// only once each of its deletes was acknowledged.
	crashedShards := map[int]bool{}
	for _, req := range crashed {
		crashedShards[lifecycle.ShardID(req.Bucket, req.Key)] = true
	}
	for s, want := range cursors {
		got, err := f.ReadFile(ctx, dailyrun.CursorPath(s))
		if err != nil {
			t.Errorf("shard %d cursor after the crash: %v", s, err)
			continue
		}
		if bytes.Equal(got, want) {
			continue
		}
		if crashedShards[s] {
			t.Errorf("shard %d cursor after the crash = %s; want it unmoved, a delete of the shard never committed: %s", s, got, want)
			continue
		}
		for i := range crashKeys {
			if key := fmt.Sprintf("k%04d", i); lifecycle.ShardID("logs", key) == s && !acked[key] {
				t.Errorf("shard %d cursor moved although its delete of %s was never acknowledged", s, key)
			}
		}
	}
	// The next pass finishes the work.
	res, err = dailyrun.Run(ctx, dailyrun.Config{Store: f, Snapshot: crashSnapshot(t, f), RunNow: crashDue, Clock: time.Now})
	if err != nil || res.Status() != dailyrun.StatusOK {
		t.Fatalf("pass after the crash: %v %s", err, res.Status())
	}
	objs, _, err := f.ListObjects(ctx, "logs", "", crashKeys)
	if err != nil || len(objs) != 0 {
		t.Errorf("after the next pass %d objects are left, %v; want none", len(objs), err)
	}
}

// crashChild runs the due pass and dies in batch crashAtBatch.
func crashChild(t *testing.T, dir string) {
	ackFile, err := os.OpenFile(filepath.Join(dir, "acked.txt"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	batches, committed := 0, 0
	// acks counts acknowledged deletes. The batch that dies first waits
	// until every delete of the batches before it is acknowledged: their
	// waiters are woken by the commit, but nothing else makes them record
	// before this batch is written, and a test that dies before any
	// acknowledgement would prove nothing about acknowledged deletes.
	acks := make(chan struct{}, crashKeys)
	f, err := Open(dir, Options{MustExist: true, Clock: func() time.Time { return crashDue },
		BeforeCommit: func(batch []filer.DeleteRequest) error {
			mu.Lock()
			defer mu.Unlock()
			if batches++; batches < crashAtBatch {
				committed += len(batch)
				return nil
			}
			for range committed {
				select {
				case <-acks:
				case <-time.After(time.Minute): // only a broken pass gets here
					fmt.Fprintf(os.Stderr, "the %d deletes committed before batch %d were never acknowledged\n", committed, crashAtBatch)
					os.Exit(1)
				}
			}
			var targets []crashTarget
			for _, r := range batch {
				targets = append(targets, crashTarget{r.Bucket, r.Key, r.Expected})
			}
			raw, err := json.Marshal(targets)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, "crashed-batch.json"), raw, 0o600)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			os.Exit(7) // the crash: no commit, no deferred function
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	// 16 shards with 4 deletes in flight each keep batches at 64 deletes or
	// fewer, so the 300 deletes need more than crashAtBatch batches however
	// the shards are scheduled.
	_, _ = dailyrun.Run(context.Background(), dailyrun.Config{Store: f, Snapshot: crashSnapshot(t, f), RunNow: crashDue, Clock: time.Now, InFlight: 4,
		OnAction: func(a dailyrun.Action) {
			if a.Outcome == filer.OutcomeDone {
				// One write per line, unbuffered: it survives the exit.
				fmt.Fprintf(ackFile, "%s\n", a.Key)
				acks <- struct{}{}
			}
		}})
	t.Fatal("the pass ended without reaching the crash")
}

// crashTarget is one delete of the batch the child died in.
type crashTarget struct {
	Bucket, Key string
	Expected    filer.Identity
}

func ackedKeys(t *testing.T, path string) map[string]bool {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		out[sc.Text()] = true
	}
	return out
}
