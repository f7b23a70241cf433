package recovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/metastore"
)

const v1Path = "ilm/tier-delete-journal/227870e5c0320ca1e9a8296e822983060b0d143fc8353658f44d75dfa5b98d2a.json"

// recorder wraps every store the commands open and records each key an
// operation names.
type recorder struct {
	mu   sync.Mutex
	keys []string
}

type recStore struct {
	metastore.Store
	r *recorder
}

func (r *recorder) add(k string) { r.mu.Lock(); r.keys = append(r.keys, k); r.mu.Unlock() }
func (s recStore) Get(ctx context.Context, k string) ([]byte, string, error) {
	s.r.add(k)
	return s.Store.Get(ctx, k)
}
func (s recStore) List(ctx context.Context, p, tok string, n int) (metastore.Page, error) {
	s.r.add(p)
	return s.Store.List(ctx, p, tok, n)
}
func (s recStore) PutIfAbsent(ctx context.Context, k string, d []byte) (string, error) {
	s.r.add(k)
	return s.Store.PutIfAbsent(ctx, k, d)
}
func (s recStore) PutIfMatch(ctx context.Context, k string, d []byte, e string) (string, error) {
	s.r.add(k)
	return s.Store.PutIfMatch(ctx, k, d, e)
}
func (s recStore) DeleteIfMatch(ctx context.Context, k, e string) error {
	s.r.add(k)
	return s.Store.DeleteIfMatch(ctx, k, e)
}
func (s recStore) Actor(ctx context.Context) (string, error) { return clientmeta.Actor(ctx, s.Store) }

// setup copies the committed two-pool fixture to temporary directories,
// pins the clock and random sources, and records every store operation.
func setup(t *testing.T) (a, b string, rec *recorder) {
	t.Helper()
	return setupAt(t, t.TempDir())
}

// setupAt is setup with the pools at dir/pool-a and dir/pool-b, which
// must not exist: a pool's ID is a digest of its path, so records written
// to pools at the same paths can be compared byte for byte.
func setupAt(t *testing.T, dir string) (a, b string, rec *recorder) {
	t.Helper()
	a, b = filepath.Join(dir, "pool-a"), filepath.Join(dir, "pool-b")
	for src, dst := range map[string]string{"../../testdata/ilm/pool-a": a, "../../testdata/ilm/pool-b": b} {
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2025, 6, 15, 15, 6, 40, 0, time.UTC)
	rec = &recorder{}
	oldNow, oldNonce, oldOpen, oldEpoch := now, nonce, openStore, ownerEpoch
	now = func() time.Time { return t0 }
	nonce = func() string { return strings.Repeat("5a", 32) }
	ownerEpoch = func() string { return "7f1c0000-0000-4000-8000-000000000001" }
	openStore = func(ctx context.Context, url string) (metastore.Store, error) {
		s, err := clientmeta.Open(ctx, url)
		if err != nil {
			return nil, err
		}
		return recStore{s, rec}, nil
	}
	t.Cleanup(func() { now, nonce, openStore, ownerEpoch = oldNow, oldNonce, oldOpen, oldEpoch })
	return a, b, rec
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := NewCommand()
	var o, e bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(&e)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	if err != nil {
		e.WriteString("ERR " + err.Error() + "\n")
	}
	return o.String(), e.String(), cmdutil.Code(err)
}

func mustJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return m
}

// auditLines returns the audit objects written to stderr.
func auditLines(t *testing.T, stderr string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, `{"audit"`) {
			out = append(out, mustJSON(t, l))
		}
	}
	return out
}

// v1ControlID scans the pools and returns the control ID of the v1
// journal (v1Path), failing the test when the scan fails or lists none.
func v1ControlID(t *testing.T, metas []string) string {
	t.Helper()
	out, _, code := run(t, append([]string{"scan", "-o", "json"}, metas...)...)
	if code != 0 {
		t.Fatalf("scan exit %d\n%s", code, out)
	}
	for _, it := range mustJSON(t, out)["items"].([]any) {
		if m := it.(map[string]any); m["source_path"] == v1Path {
			return m["control_id"].(string)
		}
	}
	t.Fatal("no control for the v1 journal")
	return ""
}

// TestOperatorFlow walks scan, ls, inspect, export, abandon (dry run,
// half-confirmed, executed, re-run) on dir: pools.
func TestOperatorFlow(t *testing.T) {
	a, b, rec := setup(t)
	metas := []string{"--meta", a, "--meta", b}
	id := v1ControlID(t, metas)
	out, _, code := run(t, append([]string{"ls", "-o", "json", "--classification", "retained_ambiguous"}, metas...)...)
	if code != 0 || !strings.Contains(out, id) {
		t.Fatalf("ls: %d\n%s", code, out)
	}
	work := t.TempDir()
	receipt := filepath.Join(work, "receipt.json")
	out, errs, code := run(t, append([]string{"inspect", id[:12], "--receipt-out", receipt}, metas...)...)
	if code != 0 || !strings.Contains(out, "legacy_disposition") || !strings.Contains(out, "ready                   yes") {
		t.Fatalf("inspect: %d\n%s%s", code, out, errs)
	}
	inspectAudit := auditLines(t, errs)
	if strings.Contains(out, "remote/v1") || strings.Contains(out, "WARM") {
		t.Fatalf("inspect printed unredacted fields:\n%s", out)
	}
	if st, err := os.Stat(receipt); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("receipt mode: %v %v", st, err)
	}
	first, _ := os.ReadFile(receipt)
	if _, errs, code = run(t, append([]string{"inspect", id, "--receipt-out", receipt}, metas...)...); code != 2 || !strings.Contains(errs, "--force") {
		t.Fatalf("inspect over an existing receipt: %d %s", code, errs)
	}
	if again, _ := os.ReadFile(receipt); !bytes.Equal(first, again) {
		t.Fatal("an existing receipt was replaced without --force")
	}

	export := filepath.Join(work, "export.json")
	out, errs, code = run(t, append([]string{"export", id, "--receipt", receipt, "--out", export, "-o", "json"}, metas...)...)
	if code != 0 {
		t.Fatalf("export: %d\n%s%s", code, out, errs)
	}
	x := mustJSON(t, out)
	exportID, exportSHA := x["export_id"].(string), x["export_sha256"].(string)
	// One spelling of source_generation on every audit line of one record.
	if xa := auditLines(t, errs); len(xa) != 1 || len(inspectAudit) != 1 || xa[0]["source_generation"] == nil ||
		xa[0]["source_generation"] != inspectAudit[0]["source_generation"] {
		t.Fatalf("source_generation differs: inspect %v, export %v", inspectAudit, xa)
	}
	if st, err := os.Stat(export); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("export mode: %v %v", st, err)
	}
	body, _ := os.ReadFile(export)
	if !strings.Contains(string(body), "rustfs-ilm-recovery-export-v1") || strings.Contains(string(body), a) {
		t.Fatal("export file is not the envelope, or names a pool")
	}
	abandon := append([]string{"abandon", id, "--receipt", receipt, "--export-id", exportID, "--export-sha256", exportSHA,
		"--reason", "legacy_remote_cleanup_abandoned"}, metas...)

	// Dry run by default: nothing written.
	out, _, code = run(t, abandon...)
	if code != 0 || !strings.Contains(out, "dry run") {
		t.Fatalf("dry run: %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(a, v1Path)); err != nil {
		t.Fatal("the dry run deleted the journal")
	}
	// One confirmation flag alone is a usage error.
	for _, half := range []string{"--confirm", "--acknowledge-remote-cleanup-abandoned"} {
		if _, errs, code = run(t, append(abandon, half)...); code != 2 || !strings.Contains(errs, "both") {
			t.Fatalf("%s alone: %d %s", half, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(a, v1Path)); err != nil {
		t.Fatal("a half-confirmed abandon deleted the journal")
	}
	out, errs, code = run(t, append(abandon, "--confirm", "--acknowledge-remote-cleanup-abandoned")...)
	if code != 0 || !strings.Contains(out, "Completed") {
		t.Fatalf("abandon: %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(a, v1Path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the journal survived a completed abandon")
	}
	lines := auditLines(t, errs)
	if len(lines) != 1 || lines[0]["action"] != "abandon" || lines[0]["outcome"] != "ok" || !strings.HasPrefix(lines[0]["actor"].(string), "os-user:") ||
		lines[0]["source_generation"] != inspectAudit[0]["source_generation"] {
		t.Fatalf("audit: %v", lines)
	}
	// Re-running converges to the same end without writing.
	if out, _, code = run(t, append(abandon, "--confirm", "--acknowledge-remote-cleanup-abandoned")...); code != 0 || !strings.Contains(out, "already Completed") {
		t.Fatalf("re-run: %d\n%s", code, out)
	}
	out, _, _ = run(t, append([]string{"ls", "--classification", "abandoned"}, metas...)...)
	if !strings.Contains(out, id[:12]) {
		t.Fatalf("ls abandoned:\n%s", out)
	}

	// prune: the abandoned control, finished moments ago, is kept by the
	// retention floor (--older-than, default 90 days, counted from the
	// control's last write as the pool dates it); past the floor a dry run
	// lists it, --confirm removes it and its export and keeps the
	// disposition receipt; again is a no-op.
	finished := controlWritten(t, a, id)
	now = func() time.Time { return finished.Add(time.Minute) }
	// -o wide: the reason on one line, as the default table wraps it.
	out, _, code = run(t, append([]string{"prune", "--confirm", "-o", "wide"}, metas...)...)
	if code != 0 || !strings.Contains(out, "keep") || !strings.Contains(out, "under the 90d retention floor") {
		t.Fatalf("prune within the floor: %d\n%s", code, out)
	}
	if controlWritten(t, a, id) != finished {
		t.Fatal("prune within the floor wrote the control")
	}
	now = func() time.Time { return finished.Add(90*24*time.Hour + time.Minute) }
	out, _, code = run(t, append([]string{"prune"}, metas...)...)
	if code != 0 || !strings.Contains(out, "dry run") || !strings.Contains(out, "remove") || !strings.Contains(out, id[:12]) {
		t.Fatalf("prune dry run: %d\n%s", code, out)
	}
	out, errs, code = run(t, append([]string{"prune", "--confirm", "-o", "json"}, metas...)...)
	items, _ := mustJSON(t, out)["items"].([]any)
	if code != 0 || len(items) != 1 || items[0].(map[string]any)["action"] != "removed" {
		t.Fatalf("prune: %d\n%s%s", code, out, errs)
	}
	for prefix, want := range map[string]int{"ilm/recovery-exports": 0, "ilm/recovery-dispositions": 1} {
		n := 0
		_ = filepath.WalkDir(filepath.Join(a, prefix), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		if n != want {
			t.Errorf("%s holds %d files after prune, want %d", prefix, n, want)
		}
	}
	if out, _, code = run(t, append([]string{"prune", "--confirm", "-o", "json"}, metas...)...); code != 0 || len(mustJSON(t, out)["items"].([]any)) != 0 {
		t.Fatalf("second prune: %d\n%s", code, out)
	}
	for _, k := range rec.keys {
		if !strings.HasPrefix(k, "ilm/") && !strings.HasPrefix(k, "decommission/") {
			t.Fatalf("a store operation named %q, outside the metadata namespaces", k)
		}
	}
}

func TestMetricsTextfileLabelsAreBounded(t *testing.T) {
	a, b, _ := setup(t)
	prom := filepath.Join(t.TempDir(), "recovery.prom")
	if _, errs, code := run(t, "scan", "--meta", a, "--meta", b, "--metrics-textfile", prom); code != 0 {
		t.Fatalf("scan: %d %s", code, errs)
	}
	text, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ilmctl_ilm_recovery_records{", "ilmctl_ilm_recovery_oldest_age_seconds{", "ilmctl_ilm_recovery_attempts_total{",
		"ilmctl_ilm_recovery_scan_complete 1", "ilmctl_ilm_recovery_corrupt_records", "ilmctl_ilm_recovery_orphan_controls"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("textfile lacks %s", want)
		}
	}
	for _, bad := range []string{"ilm/", "remote/", "WARM", "photos", a} {
		if strings.Contains(string(text), bad) {
			t.Errorf("a label carries %q", bad)
		}
	}
	if _, _, code := run(t, "scan", "--meta", a, "--metrics-textfile", filepath.Join(t.TempDir(), "x.txt")); code != 2 {
		t.Fatal("a textfile not named *.prom was accepted")
	}
}

func TestUsageErrors(t *testing.T) {
	a, b, _ := setup(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scan"}, "no metadata pool given"},
		{[]string{"ls", "--meta", a, "--limit", "1001"}, "1..1000"},
		{[]string{"ls", "--meta", a, "--protocol", "nope"}, "--protocol"},
		{[]string{"ls", "--meta", a, "--marker", "!!"}, "--marker"},
		{[]string{"inspect", "--meta", a}, "CONTROL-ID"},
		{[]string{"export", "0123456789abcdef", "--meta", a}, "--receipt"},
		{[]string{"abandon", "0123456789abcdef", "--meta", a, "--export-id", "x"}, "--export-id"},
		{[]string{"export", "get", "0123456789abcdef", "--meta", a}, "--out"},
		// One pool under two spellings is refused, naming both.
		{[]string{"scan", "--meta", a, "--meta", a}, "--meta " + a + " is the control pool --meta " + a},
		{[]string{"ls", "--meta", a, "--meta", b, "--meta", "dir:" + a + "/"}, "--meta dir:" + a + "/ is the control pool --meta " + a},
		{[]string{"ls", "--meta", a, "--meta", b, "--meta", "dir:" + a + "/../pool-b"}, "--meta " + b + " and --meta dir:" + a + "/../pool-b name the same pool"},
	} {
		if _, errs, code := run(t, tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, errs)
		}
	}
}

func TestLsPages(t *testing.T) {
	a, b, _ := setup(t)
	run(t, "scan", "--meta", a, "--meta", b)
	var all []string
	marker := ""
	for i := 0; i < 100; i++ {
		args := []string{"ls", "--meta", a, "--limit", "4", "-o", "json"}
		if marker != "" {
			args = append(args, "--marker", marker)
		}
		out, _, code := run(t, args...)
		if code != 0 {
			t.Fatalf("ls: %d", code)
		}
		m := mustJSON(t, out)
		for _, c := range m["controls"].([]any) {
			all = append(all, c.(map[string]any)["control_id"].(string))
		}
		marker, _ = m["next_marker"].(string)
		if marker == "" {
			break
		}
	}
	out, _, _ := run(t, "ls", "--meta", a, "--limit", "1000", "-o", "json")
	if n := len(mustJSON(t, out)["controls"].([]any)); n != len(all) || n < 10 {
		t.Fatalf("paged %d controls, one page has %d", len(all), n)
	}
}

// TestNoTierClientLinked: the recovery commands cannot create a tier or
// filer client because none is linked into them.
func TestNoTierClientLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ilmctl/ilmctl/commands/recovery").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "github.com/ilmctl/ilmctl/client",
			strings.HasPrefix(dep, "github.com/ilmctl/ilmctl/client/s3"),
			strings.HasPrefix(dep, "github.com/ilmctl/ilmctl/client/seaweedfs"),
			strings.HasPrefix(dep, "github.com/ilmctl/ilmctl/client/embedded"),
			strings.HasPrefix(dep, "github.com/ilmctl/ilmctl/client/tier"),
			strings.HasPrefix(dep, "github.com/minio/"):
			t.Errorf("commands/recovery links %s", dep)
		}
	}
}

// TestLsIncomplete: a pool that cannot be listed labels the listing
// incomplete (exit 3) instead of showing short counts.
func TestLsIncomplete(t *testing.T) {
	a, b, _ := setup(t)
	run(t, "scan", "--meta", a, "--meta", b)
	openStore = func(ctx context.Context, url string) (metastore.Store, error) {
		s, err := clientmeta.Open(ctx, url)
		if err != nil || url != b {
			return s, err
		}
		return brokenList{s}, nil
	}
	out, _, code := run(t, "ls", "--meta", a, "--meta", b, "-o", "json")
	m := mustJSON(t, out)
	if code != 3 || m["incomplete"] != true || len(m["pool_errors"].([]any)) != 1 || len(m["controls"].([]any)) == 0 {
		t.Fatalf("ls over a broken pool: exit %d\n%s", code, out)
	}
}

// brokenList is a pool whose listing says truncated without a token.
type brokenList struct{ metastore.Store }

func (brokenList) List(context.Context, string, string, int) (metastore.Page, error) {
	return metastore.Page{Truncated: true}, nil
}

// controlWritten is the modification time of control id's file in pool.
func controlWritten(t *testing.T, pool, id string) time.Time {
	t.Helper()
	var at []time.Time
	err := filepath.WalkDir(filepath.Join(pool, "ilm/recovery-controls"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != id+".json" {
			return err
		}
		st, err := os.Stat(p)
		if err == nil {
			at = append(at, st.ModTime())
		}
		return err
	})
	if err != nil || len(at) != 1 {
		t.Fatalf("control files: %v, %v", at, err)
	}
	return at[0]
}
