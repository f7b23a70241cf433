//go:build unix

package recovery

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/spf13/cobra"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/commands/decom"
	"github.com/ilmctl/ilmctl/commands/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// The kill tests re-execute this test binary as `ilmctl recovery`
// (TestMain): with childEnv set it runs the command in its arguments, as
// main does, at the clock and owner epoch the parent names, over stores
// that count their writes. With killEnv also set it blocks at one write
// ("N/mid": the Nth write's temporary is fsynced and not yet renamed;
// "N/after": the Nth write returned, its caller has not seen the result)
// after printing blockedPrefix and what it blocked in, so the parent can
// SIGKILL it there: a known point, no sleeps. On an s3:// pool, where a
// PUT installs the object or nothing, "mid" is a PUT whose headers and
// half of whose body the server has received (halfSent).
const (
	childEnv      = "ILMCTL_RECOVERY_TEST_CHILD"
	nowEnv        = "ILMCTL_RECOVERY_TEST_NOW"   // RFC3339Nano
	epochEnv      = "ILMCTL_RECOVERY_TEST_EPOCH" // the run's owner epoch
	killEnv       = "ILMCTL_RECOVERY_TEST_KILL_AT"
	blockedPrefix = "ilmctl-test: blocked at "
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func childMain(args []string) int {
	t0, err := time.Parse(time.RFC3339Nano, os.Getenv(nowEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", nowEnv, err)
		return 2
	}
	now = func() time.Time { return t0 }
	if e := os.Getenv(epochEnv); e != "" {
		ownerEpoch = func() string { return e }
	}
	w := &writes{}
	if at := os.Getenv(killEnv); at != "" {
		n, phase, _ := strings.Cut(at, "/")
		if w.at, err = strconv.Atoi(n); err != nil || (phase != "mid" && phase != "after") {
			fmt.Fprintf(os.Stderr, "%s=%q: want N/mid or N/after\n", killEnv, at)
			return 2
		}
		w.phase = phase
	}
	openStore = w.open
	cmd := NewCommand()
	cmd.SilenceUsage, cmd.SilenceErrors = true, true // as main's root command
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(context.Background())
	if err != nil { // as cmd/ilmctl's report: the message, then its hints
		fmt.Fprintf(os.Stderr, "ilmctl: %v\n", err)
		for _, h := range hint.All(err) {
			fmt.Fprintf(os.Stderr, "ilmctl: hint: %s\n", h)
		}
	}
	return cmdutil.Code(err)
}

// write is one conditional write a command made.
type write struct{ Op, Key string }

// writes counts (and records) the conditional writes of every store one
// command opened, in order, and in a child blocks at the at-th.
type writes struct {
	mu    sync.Mutex
	log   []write
	at    int
	phase string
}

func (w *writes) open(ctx context.Context, url string) (metastore.Store, error) {
	s, err := clientmeta.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return countingStore{s, w}, nil
}

// block is where a child waits for its SIGKILL; EOF on stdin means the
// parent is gone.
func block(what string) {
	fmt.Println(blockedPrefix + what)
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(99)
}

// do runs one write, blocking inside it (mid) or after it (after) when it
// is the chosen one.
func (w *writes) do(s metastore.Store, op, key string, fn func() error) error {
	w.mu.Lock()
	w.log = append(w.log, write{op, key})
	n := len(w.log)
	w.mu.Unlock()
	if n == w.at && w.phase == "mid" {
		switch d := s.(type) {
		case *clientmeta.Dir:
			clientmeta.SetBeforeRename(d, func(tmp, _ string) error {
				block(fmt.Sprintf("%s %s mid %s", op, key, tmp))
				return nil
			})
		case *clientmeta.S3:
			clientmeta.WrapHTTPClient(d, func(c s3api.HTTPClient) s3api.HTTPClient {
				return halfSent{fmt.Sprintf("%s %s mid", op, key)}
			})
		default:
			block(fmt.Sprintf("%s %s: a %T has no install step to stop", op, key, s))
		}
	}
	err := fn()
	if n == w.at && w.phase == "after" {
		block(fmt.Sprintf("%s %s after", op, key))
	}
	return err
}

// halfSent sends a request's headers and half its body, each flushed to
// the server, and then blocks (block) until the kill: the PUT of an
// s3:// pool stopped in the middle of its install.
type halfSent struct{ what string }

func (h halfSent) Do(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	half := len(body) / 2
	req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:half]), blockingReader{fmt.Sprintf("%s %d/%d", h.what, half, len(body))}))
	req.GetBody = nil
	// A write buffer smaller than the half body passes it straight to
	// the connection, so the server holds it before the block.
	tr := &http.Transport{WriteBufferSize: 16, DisableKeepAlives: true}
	return (&http.Client{Transport: tr}).Do(req)
}

// blockingReader blocks its first Read until the kill.
type blockingReader struct{ what string }

func (b blockingReader) Read([]byte) (int, error) {
	block(b.what)
	return 0, io.EOF
}

type countingStore struct {
	metastore.Store
	w *writes
}

func (s countingStore) Actor(ctx context.Context) (string, error) {
	return clientmeta.Actor(ctx, s.Store)
}
func (s countingStore) PutIfAbsent(ctx context.Context, k string, d []byte) (etag string, err error) {
	err = s.w.do(s.Store, "put_if_absent", k, func() (e error) { etag, e = s.Store.PutIfAbsent(ctx, k, d); return e })
	return etag, err
}
func (s countingStore) PutIfMatch(ctx context.Context, k string, d []byte, e string) (etag string, err error) {
	err = s.w.do(s.Store, "put_if_match", k, func() (err error) { etag, err = s.Store.PutIfMatch(ctx, k, d, e); return err })
	return etag, err
}
func (s countingStore) DeleteIfMatch(ctx context.Context, k, e string) error {
	return s.w.do(s.Store, "delete_if_match", k, func() error { return s.Store.DeleteIfMatch(ctx, k, e) })
}

// killedAt runs `recovery args...` in a child at clock at and owner epoch
// epoch, blocking at the write at ("N/mid" or "N/after"), SIGKILLs it once
// it reports being there and returns what it blocked in.
func killedAt(t *testing.T, clock time.Time, epoch, at string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	// Under the race detector a process sleeps a second on exit unless
	// told not to.
	cmd.Env = append(os.Environ(), childEnv+"=1", nowEnv+"="+clock.Format(time.RFC3339Nano), epochEnv+"="+epoch,
		killEnv+"="+at, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
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
	// The command prints nothing before it finishes, so the first line is
	// the hook's, or the end of a run that never reached at.
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	what, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), blockedPrefix)
	if !ok {
		_ = cmd.Wait()
		t.Fatalf("%s never blocked at write %s: stdout %q, exit %d, stderr %s", args[0], at, line, cmd.ProcessState.ExitCode(), stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("%s was not killed by SIGKILL: %v", args[0], cmd.ProcessState)
	}
	return what
}

// installStep is one durable write of a command, in the order an
// uninterrupted run makes them, and the kill points tested in it.
type installStep struct {
	name   string
	op     string // put_if_absent, put_if_match or delete_if_match
	prefix string // of the key written
	phases []string
}

var both = []string{"mid", "after"}

var exportSteps = []installStep{
	{"install the export", "put_if_absent", core.ExportPrefix, both},
}

// abandonSteps are core.Abandon's durable steps on the two-pool fixture
// (docs/design/recovery.md#abandon-after-export): a deletion has no
// temporary, so it is killed only once it is done.
var abandonSteps = []installStep{
	{"install the Prepared disposition", "put_if_absent", core.DispositionPrefix, both},
	{"Prepared -> Applying", "put_if_match", core.DispositionPrefix, both},
	{"renew the lease before copy 1's deletion", "put_if_match", core.DispositionPrefix, both},
	{"delete copy 1", "delete_if_match", "ilm/tier-delete-journal/", []string{"after"}},
	{"record copy 1 confirmed absent", "put_if_match", core.DispositionPrefix, both},
	{"renew the lease before copy 2's deletion", "put_if_match", core.DispositionPrefix, both},
	{"delete copy 2", "delete_if_match", "ilm/tier-delete-journal/", []string{"after"}},
	{"record copy 2 confirmed absent", "put_if_match", core.DispositionPrefix, both},
	{"Applying -> Completed", "put_if_match", core.DispositionPrefix, both},
	{"mark the control abandoned", "put_if_match", core.ControlPrefix, both},
}

// checkSteps requires an uninterrupted run's writes to be steps, so a
// kill point named in the table is the write it names.
func checkSteps(t *testing.T, got []write, steps []installStep) {
	t.Helper()
	ok := len(got) == len(steps)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Op == steps[i].op && strings.HasPrefix(got[i].Key, steps[i].prefix)
	}
	if !ok {
		t.Fatalf("an uninterrupted run wrote %v, not the %d steps the kill table names", got, len(steps))
	}
}

// killPools is where a kill test's pools live: directories (dirPools) or
// prefixes of one bucket on an S3 server (s3KillPools, in the integration
// tests).
type killPools interface {
	// publish makes the fixture's pools from their local copies a and b,
	// at the same specs every time, and returns the specs and an empty
	// pool's.
	publish(t *testing.T, a, b string) (pa, pb, empty string)
	// files is every file or object below pool (temporaries included),
	// by slash path.
	files(t *testing.T, pool string) map[string][]byte
	// checkMid checks what a child that blocked inside an install said
	// (the fields after op, key and "mid").
	checkMid(t *testing.T, pool string, rest []string)
	// actor is how a refusal or an audit line names the pools' operator,
	// or its prefix.
	actor() string
}

// dirPools are dir: pools: the local copies themselves.
type dirPools struct{}

func (dirPools) actor() string { return "os-user:" }

func (dirPools) publish(t *testing.T, a, b string) (string, string, string) { return a, b, t.TempDir() }

func (dirPools) files(t *testing.T, root string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		m[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkMid: a child blocked before a rename had staged its temporary in
// the pool's TempDir, where it still is after the kill.
func (dirPools) checkMid(t *testing.T, pool string, rest []string) {
	t.Helper()
	if len(rest) != 1 {
		t.Fatalf("blocked at %q, want the temporary named", rest)
	}
	if filepath.Dir(rest[0]) != filepath.Join(pool, clientmeta.TempDir) {
		t.Fatalf("the temporary %s is not in %s", rest[0], filepath.Join(pool, clientmeta.TempDir))
	}
	if _, err := os.Stat(rest[0]); err != nil {
		t.Fatalf("the kill left no temporary: %v", err)
	}
}

// killFixture is the two-pool fixture after scan, inspect and (for
// abandon) export at t0, as an operator leaves it before the command the
// kill interrupts.
type killFixture struct {
	kp              killPools
	a, b, empty     string
	id, receipt     string
	exportID, xsha  string
	metas           []string
	corrupt, blocks map[string]string
}

// The journal is copied to pool b too, so abandon deletes two copies.
// The pools are made afresh from root/pool-a and root/pool-b at the same
// specs, so the pool IDs every record names are the same in each case.
func newKillFixture(t *testing.T, kp killPools, root string, exported bool) *killFixture {
	t.Helper()
	for _, p := range []string{"pool-a", "pool-b"} {
		if err := os.RemoveAll(filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	a, b, _ := setupAt(t, root)
	journal, err := os.ReadFile(filepath.Join(a, v1Path))
	if err == nil {
		err = os.WriteFile(filepath.Join(b, v1Path), journal, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	f := &killFixture{kp: kp}
	f.a, f.b, f.empty = kp.publish(t, a, b)
	f.metas = []string{"--meta", f.a, "--meta", f.b}
	if _, errs, code := run(t, append([]string{"scan"}, f.metas...)...); code != 0 {
		t.Fatalf("scan: %s", errs)
	}
	f.id = controlOf(t, f.a)
	f.receipt = filepath.Join(t.TempDir(), "receipt.json")
	if _, errs, code := run(t, append([]string{"inspect", f.id, "--receipt-out", f.receipt}, f.metas...)...); code != 0 {
		t.Fatalf("inspect: %s", errs)
	}
	if exported {
		out, errs, code := run(t, append([]string{"export", f.id, "--receipt", f.receipt, "-o", "json"}, f.metas...)...)
		if code != 0 {
			t.Fatalf("export: %s", errs)
		}
		x := mustJSON(t, out)
		f.exportID, f.xsha = x["export_id"].(string), x["export_sha256"].(string)
	}
	f.corrupt, f.blocks = f.readers(t)
	return f
}

func (f *killFixture) exportArgs() []string {
	return append([]string{"export", f.id, "--receipt", f.receipt}, f.metas...)
}

func (f *killFixture) abandonArgs(receipt string) []string {
	return append([]string{"abandon", f.id, "--receipt", receipt, "--export-id", f.exportID, "--export-sha256", f.xsha,
		"--reason", "legacy_remote_cleanup_abandoned", "--confirm", "--acknowledge-remote-cleanup-abandoned"}, f.metas...)
}

// decomToken names a decommission run that never started: verify then
// judges every record of the control pool against an empty target.
const decomToken = "ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661"

func runOther(t *testing.T, cmd *cobra.Command, args ...string) (string, int) {
	t.Helper()
	var o bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(io.Discard)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	return o.String(), cmdutil.Code(err)
}

// readers is what the pools' readers see: the records 'journal ls' calls
// corrupt (path -> reason), and the rows that block 'decom verify' of the
// control pool (path -> reason). Neither may ever name a temporary.
func (f *killFixture) readers(t *testing.T) (corrupt, blocks map[string]string) {
	t.Helper()
	out, code := runOther(t, journal.NewCommand(), append([]string{"ls", "-o", "json", "--now", now().Format(time.RFC3339)}, f.metas...)...)
	var ls struct {
		Incomplete bool `json:"incomplete"`
		Records    []struct {
			Path, Classification, Reason string
		} `json:"records"`
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil || code != 0 || ls.Incomplete {
		t.Fatalf("journal ls: exit %d, %v\n%s", code, err, out)
	}
	corrupt = map[string]string{}
	for _, r := range ls.Records {
		if r.Classification == "corrupt" {
			corrupt[r.Path] = r.Reason
		}
		if strings.Contains(r.Path, clientmeta.TempDir) {
			t.Errorf("journal ls lists the temporary %s", r.Path)
		}
	}
	out, code = runOther(t, decom.NewCommand(), "verify", "--run-token", decomToken, "--meta", f.a, "--meta", f.empty, "-o", "json")
	var rep struct {
		Rows []struct{ Path, Verdict, Reason string } `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != cmdutil.ExitBlocked {
		t.Fatalf("decom verify: exit %d, %v\n%s", code, err, out)
	}
	blocks = map[string]string{}
	for _, r := range rep.Rows {
		if r.Verdict == "blocked" {
			blocks[r.Path] = r.Reason
		}
	}
	for p := range blocks {
		if strings.Contains(p, clientmeta.TempDir) {
			t.Errorf("decom verify names the temporary %s", p)
		}
	}
	return corrupt, blocks
}

// liveReasons are what a recovery artifact legitimately blocks a
// decommission with while it is in flight or not yet moved.
var liveReasons = []string{"recovery_control_live", "recovery_disposition_in_flight", "recovery_artifact_not_moved"}

// checkReaders: after the kill no reader sees a partial artifact: 'journal
// ls' finds no corrupt record it did not find before, and 'decom verify'
// is blocked by nothing new but recovery artifacts, each for a reason
// live work gives.
func (f *killFixture) checkReaders(t *testing.T) {
	t.Helper()
	corrupt, blocks := f.readers(t)
	for p, r := range corrupt {
		if _, ok := f.corrupt[p]; !ok {
			t.Errorf("journal ls after the kill: %s is corrupt (%s)", p, r)
		}
	}
	for p, r := range blocks {
		if old, ok := f.blocks[p]; ok && old == r {
			continue
		}
		if !strings.HasPrefix(p, "ilm/recovery-") || !slices.Contains(liveReasons, r) {
			t.Errorf("decom verify after the kill: %s blocks with %s", p, r)
		}
	}
}

// tree is every file or object of pool: slash path -> hex SHA-256.
func (f *killFixture) tree(t *testing.T, pool string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for k, b := range f.kp.files(t, pool) {
		s := sha256.Sum256(b)
		m[k] = hex.EncodeToString(s[:])
	}
	return m
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s differs from an uninterrupted run's (got %.12q, want %.12q)", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is not in an uninterrupted run's pool", what, k)
		}
	}
}

// TestExportKilled: `recovery export` killed while its export is being
// installed (temporary fsynced, not renamed) or just after, leaves no
// artifact a reader sees, and the same command run again converges to
// pools byte-identical to an uninterrupted run's, the temporary swept.
func TestExportKilled(t *testing.T) { testExportKilled(t, dirPools{}) }

func testExportKilled(t *testing.T, kp killPools) {
	root := t.TempDir()
	ref := newKillFixture(t, kp, root, false)
	w := &writes{}
	openStore = w.open
	if _, errs, code := run(t, ref.exportArgs()...); code != 0 {
		t.Fatalf("uninterrupted export: %s", errs)
	}
	checkSteps(t, w.log, exportSteps)
	wantA, wantB := ref.tree(t, ref.a), ref.tree(t, ref.b)

	for i, step := range exportSteps {
		for _, phase := range step.phases {
			t.Run(step.name+"/"+phase, func(t *testing.T) {
				f := newKillFixture(t, kp, root, false)
				what := killedAt(t, now(), "", fmt.Sprintf("%d/%s", i+1, phase), f.exportArgs()...)
				f.checkBlocked(t, what, step, phase)
				f.checkReaders(t)
				out, errs, code := run(t, f.exportArgs()...)
				if code != 0 {
					t.Fatalf("export again: exit %d\n%s%s", code, out, errs)
				}
				if created := !strings.Contains(out, "already existed"); created != (phase == "mid") {
					t.Errorf("export again: created %v after a kill %s the install\n%s", created, phase, out)
				}
				sameTree(t, "pool a", f.tree(t, f.a), wantA)
				sameTree(t, "pool b", f.tree(t, f.b), wantB)
			})
		}
	}
}

// checkBlocked checks that the child blocked in the step's write, and
// what one blocked inside an install left (killPools.checkMid).
func (kf *killFixture) checkBlocked(t *testing.T, what string, step installStep, phase string) {
	t.Helper()
	f := strings.Fields(what)
	if len(f) < 3 || f[0] != step.op || !strings.HasPrefix(f[1], step.prefix) || f[2] != phase {
		t.Fatalf("blocked at %q, want %s of %s… %s", what, step.op, step.prefix, phase)
	}
	if phase == "mid" {
		kf.kp.checkMid(t, kf.a, f[3:])
	}
}

// claimFree is a pool-a record with what depends on which claim applied
// the disposition, and when, cleared: revisions, owner epoch and
// generation, lease and step times. Everything else must converge.
func claimFree(t *testing.T, key string, b []byte) string {
	t.Helper()
	switch {
	case strings.HasPrefix(key, core.DispositionPrefix):
		d, err := core.DecodeDisposition(key, b)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		d.Revision, d.OwnerEpoch, d.OwnerGeneration = 0, "", 0
		d.PreparedAtUnixNanos, d.CompletedAtUnixNanos, d.LeaseAcquiredAtUnixNanos, d.LeaseExpiresAtUnixNanos = 0, 0, 0, 0
		return string(d.Encode())
	case strings.HasPrefix(key, core.ControlPrefix):
		c, err := core.DecodeControl(key, b)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if c.Disposition != nil {
			c.Disposition.ConfirmedAtUnixNano = 0
		}
		return string(c.Encode())
	}
	return string(b)
}

func (f *killFixture) records(t *testing.T, pool string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for k, b := range f.kp.files(t, pool) {
		m[k] = claimFree(t, k, b)
	}
	return m
}

// inFlight is the disposition in pool a that is neither absent nor
// Completed, if any.
func (f *killFixture) inFlight(t *testing.T) *core.Disposition {
	t.Helper()
	var found *core.Disposition
	for k, b := range f.kp.files(t, f.a) {
		if !strings.HasPrefix(k, core.DispositionPrefix) {
			continue
		}
		d, err := core.DecodeDisposition(k, b)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if d.State != core.Completed {
			found = d
		}
	}
	return found
}

// TestAbandonKilled: `recovery abandon --confirm` killed at each durable
// step (inside a write before its rename, or just after the write or the
// deletion) leaves no artifact a reader sees beyond the live disposition
// itself; a re-run while the killed run's lease is live is refused naming
// its owner and changes nothing; and after the lease expired plus the
// clock-skew allowance, a fresh inspect receipt and the same command
// converge: the journal gone from both pools, the disposition Completed,
// the control abandoned, every record equal to an uninterrupted run's but
// for which claim applied the disposition and when (claimFree).
func TestAbandonKilled(t *testing.T) { testAbandonKilled(t, dirPools{}) }

func testAbandonKilled(t *testing.T, kp killPools) {
	const epoch1, epoch2 = "7f1c0000-0000-4000-8000-00000000000a", "7f1c0000-0000-4000-8000-00000000000b"
	root := t.TempDir()
	ref := newKillFixture(t, kp, root, true)
	w := &writes{}
	openStore = w.open
	ownerEpoch = func() string { return epoch1 }
	if out, errs, code := run(t, ref.abandonArgs(ref.receipt)...); code != 0 {
		t.Fatalf("uninterrupted abandon: exit %d\n%s%s", code, out, errs)
	}
	checkSteps(t, w.log, abandonSteps)
	wantA, wantB := ref.records(t, ref.a), ref.tree(t, ref.b)

	for i, step := range abandonSteps {
		for _, phase := range step.phases {
			t.Run(step.name+"/"+phase, func(t *testing.T) {
				f := newKillFixture(t, kp, root, true)
				t0 := now()
				what := killedAt(t, t0, epoch1, fmt.Sprintf("%d/%s", i+1, phase), f.abandonArgs(f.receipt)...)
				f.checkBlocked(t, what, step, phase)
				f.checkReaders(t)

				ownerEpoch = func() string { return epoch2 }
				held := f.inFlight(t)
				if held != nil {
					before := f.tree(t, f.a)
					_, errs, code := run(t, f.abandonArgs(f.receipt)...)
					if code != cmdutil.ExitFailure || !strings.Contains(errs, "owned by "+kp.actor()) || !strings.Contains(errs, "re-run after") {
						t.Fatalf("re-run within the killed run's lease: exit %d, want 1 naming its owner\n%s", code, errs)
					}
					sameTree(t, "pool a after the refused re-run", f.tree(t, f.a), before)
				}

				now = func() time.Time { return t0.Add(core.DispositionLease + core.ClockSkew + time.Minute) }
				fresh := filepath.Join(t.TempDir(), "fresh.json")
				if _, errs, code := run(t, append([]string{"inspect", f.id, "--receipt-out", fresh}, f.metas...)...); code != 0 {
					t.Fatalf("fresh inspect: %s", errs)
				}
				out, errs, code := run(t, f.abandonArgs(fresh)...)
				if code != 0 || !strings.Contains(out, "Completed") {
					t.Fatalf("abandon again: exit %d\n%s%s", code, out, errs)
				}
				if tookOver := strings.Contains(errs, `"took_over_from":"`+kp.actor()); tookOver != (held != nil) {
					t.Errorf("abandon again took over: %v, want %v (a disposition was in flight: %v)\n%s", tookOver, held != nil, held != nil, errs)
				}
				got := f.records(t, f.a)
				for k, v := range wantA {
					if got[k] != v {
						t.Errorf("pool a: %s differs from an uninterrupted run's:\n got %.400s\nwant %.400s", k, got[k], v)
					}
				}
				for k := range got {
					if _, ok := wantA[k]; !ok {
						t.Errorf("pool a: %s is not in an uninterrupted run's pool", k)
					}
				}
				sameTree(t, "pool b", f.tree(t, f.b), wantB)
				if _, ok := f.kp.files(t, f.a)[v1Path]; ok {
					t.Error("the journal survived in pool a")
				}
			})
		}
	}
}
