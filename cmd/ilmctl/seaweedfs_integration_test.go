//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// weedScript runs scripts/seaweedfs.sh with this process's environment, the
// one `make test-integration` started the server with (SEAWEEDFS_STATE and
// the WEED_*_PORT variables select the server), and returns its output.
func weedScript(t *testing.T, cmd string) (string, error) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(c, "bash", filepath.Join("..", "..", "scripts", "seaweedfs.sh"), cmd).CombinedOutput()
	return string(out), err
}

// requireScriptServer fails a test that stops and restarts the server
// under test unless ft is the server scripts/seaweedfs.sh started with
// this environment.
func requireScriptServer(t *testing.T, ft itest.FilerTarget) {
	t.Helper()
	if out, err := weedScript(t, "status"); err != nil || !strings.Contains(out, "filer="+ft.Filer+" ") {
		t.Fatalf("this test stops and restarts the server under test with scripts/seaweedfs.sh, "+
			"so %s=%s must be the server that script started with this environment (SEAWEEDFS_STATE, WEED_FILER_PORT); status: %v\n%s",
			itest.EnvFiler, ft.Filer, err, out)
	}
}

// startAtCleanup starts the server again when the test ends with it
// stopped.
func startAtCleanup(t *testing.T) {
	t.Cleanup(func() {
		if _, err := weedScript(t, "status"); err != nil {
			if out, err := weedScript(t, "start"); err != nil {
				t.Errorf("restart the server after the test: %v\n%s", err, out)
			}
		}
	})
}

// runReport is the part of `ilmctl run -o json` this test reads.
type runReport struct {
	Status string `json:"status"`
	Shards []struct {
		Shard        int    `json:"shard"`
		Status       string `json:"status"`
		Error        string `json:"error"`
		CursorTsNs   int64  `json:"cursor_ts_ns"`
		CursorSaved  bool   `json:"cursor_saved"`
		LastWalkedNs int64  `json:"last_walked_ns"`
		Recovery     string `json:"recovery"`
	} `json:"shards"`
}

type runResult struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// TestSeaweedFSKilledMidPass: the server killed mid-pass
// ends the pass with exit 3 and cursors saved where the filer still took
// them; restarted, the next pass completes and leaves exactly the objects
// that were not due.
//
// Cursors are saved to the filer that is being killed, so a shard still
// dispatching when it dies cannot save one: its save fails (status error)
// and the file keeps the cursor of the pass before, from which the next
// pass replays again. Only shards that finished before the kill have a new
// cursor. The test makes that split deterministic: the due objects live in
// shards 0-7 and the pass is rate-limited so it is still deleting them,
// while shards 8-15 have nothing of this bucket to do and finish at once;
// the kill waits until their new cursors are on the filer.
func TestSeaweedFSKilledMidPass(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "it kills and restarts the server with scripts/seaweedfs.sh and reads cursors on its filer")
	ft := itest.FilerEnv(t)
	s3c := itest.FromEnv(t)
	requireScriptServer(t, ft)
	st := itest.OpenFiler(t, ft)
	// The split below holds only if this bucket is the server's only work:
	// a bucket an earlier test left with a delete marker not yet due
	// freezes the cursor of an "idle" shard, which then never moves.
	itest.PurgeBuckets(t, st)
	b := s3c.CreateBucket(t, "killed")
	// Registered after the bucket's cleanup, so it runs first: the bucket
	// is removed through a running server even when the test stops early.
	startAtCleanup(t)
	s3c.PutLifecycleXML(t, b, lc+`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`)

	// 150 due objects at 5 deletes/s keep the pass busy for about 30s;
	// the kill comes while at least 100 remain, which leaves room for the
	// deletes the server still serves while it shuts down.
	const nDue, nKeep, minLeftAtKill = 150, 5, 100
	busy := func(key string) bool { return lifecycle.ShardID(b, key) < lifecycle.ShardCount/2 }
	var dueKeys, keepKeys []string
	for i := 0; len(dueKeys) < nDue || len(keepKeys) < nKeep; i++ {
		if k := fmt.Sprintf("due/%04d", i); busy(k) && len(dueKeys) < nDue {
			dueKeys = append(dueKeys, k)
		}
		if k := fmt.Sprintf("keep/%04d", i); busy(k) && len(keepKeys) < nKeep {
			keepKeys = append(keepKeys, k)
		}
	}
	// keep/ objects are never due in this test, so they freeze the busy
	// shards' cursors before their puts; keeping them out of shards 8-15
	// lets those shards' cursors move every pass.
	for _, k := range keepKeys {
		s3c.PutObject(t, b, k, "keep", nil)
	}
	args := []string{"run", "--filer", "seaweedfs://" + ft.Filer, "--s3-grpc", ft.S3GRPC, "-runtime", "3m", "-o", "json"}
	// Two passes bring every shard to steady-state replay: the first walks
	// (cold start, or a rule edit since this bucket is new), the second
	// replays from where the first left the cursors.
	for i := range 2 {
		if _, stderr, code := execute(t, args...); code != 0 {
			t.Fatalf("warm-up pass %d: exit %d\n%s", i+1, code, stderr)
		}
	}
	before := loadCursors(t, st)
	seededFrom := time.Now()
	for _, k := range dueKeys {
		s3c.PutObject(t, b, k, "due", nil)
		itest.Backdate(t, st, b, k, "null", 3*24*time.Hour)
	}
	// Replay finds these objects through their meta-log events. SeaweedFS
	// persists its meta-log once a minute and the kill below loses what
	// is still in memory, for ilmctl and SeaweedFS's own worker alike; the
	// test is about what ilmctl does with events that survive, so it
	// waits for them to be on disk.
	itest.WaitMetaLogPersisted(t, st, time.Now())

	done := make(chan runResult, 1)
	go func() {
		start := time.Now()
		stdout, stderr, code := execute(t, append(args, "--deletes-per-second", "5")...)
		done <- runResult{stdout, stderr, code, time.Since(start)}
	}()
	left := waitMidPass(t, s3c, st, b, before, nDue, minLeftAtKill, done)
	t.Logf("killing the server with %d of %d due objects left", left, nDue)
	if out, err := weedScript(t, "stop"); err != nil {
		t.Fatalf("scripts/seaweedfs.sh stop: %v\n%s", err, out)
	}
	var r runResult
	select {
	case r = <-done:
	case <-time.After(4 * time.Minute): // -runtime 3m bounds the pass
		t.Fatal("the pass did not end after the server was killed")
	}
	t.Logf("killed pass: exit %d after %s\nstderr: %s", r.code, r.took, r.stderr)

	if r.code != 3 {
		t.Errorf("exit %d, want 3 (pass incomplete)", r.code)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("stderr has a crash:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "daily_run: status=") {
		t.Errorf("no heartbeat on stderr:\n%s", r.stderr)
	}
	var rep runReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, r.stdout)
	}
	if rep.Status == dailyrun.StatusOK.String() || len(rep.Shards) != lifecycle.ShardCount {
		t.Fatalf("report status %s with %d shards, want a failed pass over %d", rep.Status, len(rep.Shards), lifecycle.ShardCount)
	}
	cutOff := 0
	for _, s := range rep.Shards {
		switch {
		case s.Shard >= lifecycle.ShardCount/2 && (s.Status != dailyrun.StatusOK.String() || !s.CursorSaved):
			t.Errorf("shard %d had nothing to delete and finished before the kill, but ended %s (cursor saved %v): %s", s.Shard, s.Status, s.CursorSaved, s.Error)
		case s.Status == dailyrun.StatusOK.String() && !s.CursorSaved:
			t.Errorf("shard %d ended ok without saving its cursor", s.Shard)
		case s.Status != dailyrun.StatusOK.String():
			cutOff++
			t.Logf("shard %d cut off: %s (cursor saved %v): %s", s.Shard, s.Status, s.CursorSaved, s.Error)
		}
	}
	if cutOff == 0 {
		t.Errorf("no shard was cut off by the kill")
	}

	if out, err := weedScript(t, "start"); err != nil {
		t.Fatalf("scripts/seaweedfs.sh start: %v\n%s", err, out)
	}
	st = itest.OpenFiler(t, ft)
	after := loadCursors(t, st)
	for _, s := range rep.Shards {
		got := after[s.Shard]
		if s.CursorSaved {
			if got.TsNs != s.CursorTsNs || got.LastWalkedNs != s.LastWalkedNs {
				t.Errorf("shard %d: cursor on the filer ts_ns=%d last_walked_ns=%d, the pass reported saving ts_ns=%d last_walked_ns=%d",
					s.Shard, got.TsNs, got.LastWalkedNs, s.CursorTsNs, s.LastWalkedNs)
			}
			continue
		}
		// The save failed. The file holds the cursor of the pass before,
		// unless the filer applied the write and died before answering;
		// either way a cursor never moves backwards. Whether it skipped
		// anything is what the next pass's result shows.
		if got.TsNs < before[s.Shard].TsNs {
			t.Errorf("shard %d: cursor moved back from %d to %d", s.Shard, before[s.Shard].TsNs, got.TsNs)
		} else if !reflect.DeepEqual(got, before[s.Shard]) {
			t.Logf("shard %d: save reported failed but the filer took it (ts_ns %d -> %d)", s.Shard, before[s.Shard].TsNs, got.TsNs)
		}
	}

	// Straight after the restart: the volumes holding the persisted
	// meta-log are not located yet, and the filer would skip those files
	// silently; the store waits for them (ErrMetaLogUnreadable otherwise).
	stdout, stderr, code := execute(t, args...)
	if code != 0 {
		t.Fatalf("pass after the restart: exit %d\n%s\n%s", code, stderr, stdout)
	}
	defer func() {
		if t.Failed() {
			if lost := eventless(t, st, b, dueKeys, seededFrom); len(lost) > 0 {
				t.Logf("the meta-log has no event for %d due objects: %v", len(lost), lost)
			}
		}
	}()
	want := make([]string, 0, len(keepKeys))
	for _, k := range keepKeys {
		want = append(want, k+"@null")
	}
	sort.Strings(want)
	vs, ups := s3c.ListAll(t, b)
	if d := cmp.Diff(want, vs); d != "" {
		t.Errorf("S3 versions left (-want +got):\n%s", d)
	}
	if len(ups) != 0 {
		t.Errorf("S3 uploads left: %v", ups)
	}
	fvs, _ := itest.Left(t, st, b)
	if d := cmp.Diff(want, fvs); d != "" {
		t.Errorf("filer versions left (-want +got):\n%s", d)
	}
}

// eventless returns the keys that have no meta-log event in bucket since
// since.
func eventless(t *testing.T, st *seaweedfs.Store, bucket string, keys []string, since time.Time) []string {
	t.Helper()
	seen := map[string]bool{}
	err := st.SubscribeMetadata(context.Background(), since.UnixNano(), time.Now().UnixNano(), func(ev filer.Event) error {
		if ev.Bucket == bucket {
			seen[ev.Key] = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the meta-log: %v", err)
	}
	var lost []string
	for _, k := range keys {
		if !seen[k] {
			lost = append(lost, k)
		}
	}
	return lost
}

// loadCursors reads every shard's cursor; a missing one is the zero Cursor.
func loadCursors(t *testing.T, st *seaweedfs.Store) map[int]dailyrun.Cursor {
	t.Helper()
	out := map[int]dailyrun.Cursor{}
	for shard := range lifecycle.ShardCount {
		c, _, err := dailyrun.LoadCursor(context.Background(), st, shard)
		if err != nil {
			t.Fatalf("cursor %d: %v", shard, err)
		}
		out[shard] = c
	}
	return out
}

// waitMidPass polls the server until the running pass is mid-way: some
// due/ objects deleted, at least minLeft still there, and shards 8-15
// (nothing to delete) past their cursors of before. It returns how many
// due objects are left. The pass ending first, the deadline, or too few
// left fail t.
func waitMidPass(t *testing.T, s3c *itest.S3, st *seaweedfs.Store, bucket string, before map[int]dailyrun.Cursor, nDue, minLeft int, done <-chan runResult) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	left, idleSaved := nDue, false
	for {
		select {
		case r := <-done:
			t.Fatalf("the pass ended (exit %d) before it could be interrupted; %d due objects were left at the last look\n%s", r.code, left, r.stderr)
		default:
		}
		out, err := s3c.C.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("due/")})
		if err != nil {
			t.Fatalf("count due objects: %v", err)
		}
		left = len(out.Contents)
		if !idleSaved {
			idleSaved = true
			for shard := lifecycle.ShardCount / 2; shard < lifecycle.ShardCount; shard++ {
				c, _, err := dailyrun.LoadCursor(context.Background(), st, shard)
				if err != nil {
					t.Fatalf("cursor %d: %v", shard, err)
				}
				idleSaved = idleSaved && c.TsNs != before[shard].TsNs
			}
		}
		switch {
		case left < minLeft:
			t.Fatalf("%d of %d due objects left before the pass could be interrupted (idle shards saved: %v); want at least %d", left, nDue, idleSaved, minLeft)
		case left < nDue && idleSaved:
			return left
		case time.Now().After(deadline):
			t.Fatalf("no mid-pass point within a minute: %d of %d due objects left, idle shards saved: %v", left, nDue, idleSaved)
		}
		time.Sleep(100 * time.Millisecond) // polling interval of an external server, not synchronisation
	}
}

// A real pass dated ahead of the filer's clock is refused before anything
// runs (exit 2, naming --dry-run); the same date with --dry-run previews.
func TestFutureNowRefusedOnLiveFiler(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "it runs against seaweedfs://, the filer behind the S3 gateway")
	ft := itest.FilerEnv(t)
	ahead := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	args := []string{"run", "--filer", "seaweedfs://" + ft.Filer, "--s3-grpc", ft.S3GRPC, "--now", ahead, "-o", "json"}
	_, stderr, code := execute(t, args...)
	if code != 2 || !strings.Contains(stderr, "--dry-run") || !strings.Contains(stderr, "ahead of the filer's clock") {
		t.Errorf("real pass at %s: exit %d, want 2 with advice to use --dry-run\n%s", ahead, code, stderr)
	}
	if strings.Contains(stderr, "daily_run:") {
		t.Errorf("the refused pass ran:\n%s", stderr)
	}
	stdout, stderr, code := execute(t, append(args, "--dry-run")...)
	if code == 2 || code == 1 {
		t.Errorf("dry run at %s: exit %d\n%s", ahead, code, stderr)
	}
	var rep runReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("dry-run report: %v\n%s", err, stdout)
	}
}

// TestSeaweedFSRestartWalksLostEvents: objects written just before the
// server is killed lose their meta-log events (SeaweedFS persists the log
// once a minute). The pass after the restart finds the filer's new
// process among the log's writers and walks every rule (recovery
// filer_restart), which deletes the due objects replay cannot see.
func TestSeaweedFSRestartWalksLostEvents(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "it kills and restarts the server with scripts/seaweedfs.sh")
	ft := itest.FilerEnv(t)
	s3c := itest.FromEnv(t)
	requireScriptServer(t, ft)
	st := itest.OpenFiler(t, ft)
	itest.PurgeBuckets(t, st)
	b := s3c.CreateBucket(t, "restart")
	startAtCleanup(t) // after the bucket's cleanup, so it runs first
	s3c.PutLifecycleXML(t, b, lc+`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix>due/</Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`)
	args := []string{"run", "--filer", "seaweedfs://" + ft.Filer, "--s3-grpc", ft.S3GRPC, "-runtime", "3m", "-o", "json"}
	// The new bucket is a rule edit; the second pass replays, and its
	// cursors record the log's writers.
	for i := range 2 {
		if _, stderr, code := execute(t, args...); code != 0 {
			t.Fatalf("warm-up pass %d: exit %d\n%s", i+1, code, stderr)
		}
	}
	seededFrom := time.Now()
	keys := []string{"due/a", "due/b", "due/c"}
	for _, k := range keys {
		s3c.PutObject(t, b, k, "due", nil)
		itest.Backdate(t, st, b, k, "null", 3*24*time.Hour)
	}
	s3c.PutObject(t, b, "keep", "keep", nil)
	// Killed at once, as a crash would: the events of the last seconds
	// are still in the filer's memory (stop waits 10 s for a clean exit
	// first).
	if out, err := weedScript(t, "crash"); err != nil {
		t.Fatalf("scripts/seaweedfs.sh crash: %v\n%s", err, out)
	}
	if out, err := weedScript(t, "start"); err != nil {
		t.Fatalf("scripts/seaweedfs.sh start: %v\n%s", err, out)
	}
	st = itest.OpenFiler(t, ft)
	// The new process is known by its first persisted file: traffic
	// after the restart, then a flush (a pass that runs before it finds
	// the restart one pass later).
	s3c.PutObject(t, b, "keep-after", "keep", nil)
	itest.WaitMetaLogPersisted(t, st, time.Now())
	lost := eventless(t, st, b, keys, seededFrom)
	if len(lost) == 0 {
		// The filer flushed between the writes and the kill (once a
		// minute): replay alone would find them, and the test would
		// prove nothing.
		t.Skip("the kill lost no meta-log event of the due objects; nothing to walk for")
	}
	t.Logf("due objects whose meta-log events the kill lost: %v", lost)

	stdout, stderr, code := execute(t, args...)
	if code != 0 {
		t.Fatalf("pass after the restart: exit %d\n%s\n%s", code, stderr, stdout)
	}
	var rep runReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, stdout)
	}
	// A kill can also undo the filer's last writes (buckets an earlier
	// test removed come back), which is a rule edit: its recovery walk
	// too walks every rule. Either way the cursor records the restart.
	for _, s := range rep.Shards {
		if s.Recovery != "filer_restart" && s.Recovery != "rule_edit" {
			t.Errorf("shard %d: recovery %q, want filer_restart", s.Shard, s.Recovery)
		}
	}
	for shard, c := range loadCursors(t, st) {
		if len(c.Restarts) == 0 {
			t.Errorf("shard %d: the cursor records no restart: %+v", shard, c)
		}
	}
	if vs, _ := s3c.ListAll(t, b); !slices.Equal(vs, []string{"keep-after@null", "keep@null"}) {
		t.Errorf("S3 versions left %v, want only keep-after@null and keep@null", vs)
	}
	// The next pass knows the new process: no walk.
	stdout, _, code = execute(t, args...)
	var next runReport // a fresh one: decoding keeps fields the JSON omits
	if err := json.Unmarshal([]byte(stdout), &next); code != 0 || err != nil {
		t.Fatalf("pass after that: exit %d, %v", code, err)
	}
	for _, s := range next.Shards {
		if s.Recovery != "" {
			t.Errorf("second pass after the restart: shard %d: recovery %q, want none", s.Shard, s.Recovery)
		}
	}
}
