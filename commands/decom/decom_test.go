package decom

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/internal/decomfixture"
	"github.com/ilmctl/ilmctl/internal/golden"
)

// writeRun writes each pool of run into dir/<pool>.
func writeRun(t testing.TB, dir string, run *decomfixture.Run) {
	t.Helper()
	for pool, keys := range run.Pools {
		if err := os.MkdirAll(filepath.Join(dir, pool), 0o755); err != nil {
			t.Fatal(err)
		}
		for k, b := range keys {
			p := filepath.Join(dir, pool, filepath.FromSlash(k))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func execute(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if err != nil {
		out.WriteString("error: " + err.Error() + "\n")
	}
	return out.String(), cmdutil.Code(err)
}

func verifyArgs(dir, token string, extra ...string) []string {
	return append([]string{"verify", "--run-token", token, "--meta", filepath.Join(dir, decomfixture.Source),
		"--meta", filepath.Join(dir, decomfixture.TargetA), "--meta", filepath.Join(dir, decomfixture.TargetB)}, extra...)
}

// digestTree hashes every file's path and bytes under dir, to prove a
// command left it unchanged.
func digestTree(t *testing.T, dir string) string {
	h := sha256.New()
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		st, _ := os.Stat(p)
		h.Write([]byte(p + "\x00" + st.ModTime().String() + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestVerifyCommand: each fixture case through the command, with the exit
// code scripts rely on and the reasons in -o json; verify leaves every
// pool byte-for-byte unchanged.
func TestVerifyCommand(t *testing.T) {
	for _, c := range []struct {
		name    string
		run     *decomfixture.Run
		code    int
		reasons []string
	}{
		{"complete", decomfixture.Complete(), 0, nil},
		{"missing receipt", decomfixture.Complete().MissingReceipt(), cmdutil.ExitBlocked, []string{"receipt_missing", "record_uncovered"}},
		{"extra receipt", decomfixture.Complete().ExtraReceipt(), cmdutil.ExitBlocked, []string{"receipt_unexpected"}},
		{"digest mismatch", decomfixture.Complete().DigestMismatch(), cmdutil.ExitBlocked, []string{"manifest_digest_mismatch"}},
		{"non-successor", decomfixture.Complete().NonSuccessor(), cmdutil.ExitBlocked, []string{"receipt_not_successor", "record_not_successor"}},
		{"terminal hides target copy", decomfixture.Complete().TerminalHidesTarget(), cmdutil.ExitBlocked, []string{"terminal_hides_target_copy"}},
		{"unregistered path", decomfixture.Complete().Unregistered(), cmdutil.ExitBlocked, []string{"unregistered_path"}},
		{"corrupt receipt", decomfixture.Complete().CorruptReceipt(), cmdutil.ExitBlocked, []string{"receipt_corrupt", "record_uncovered"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRun(t, dir, c.run)
			before := digestTree(t, dir)
			out, code := execute(t, verifyArgs(dir, c.run.Token, "-o", "json")...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			doc := out
			if i := strings.Index(out, "\nerror: "); i >= 0 {
				doc = out[:i]
			}
			var rep struct {
				Predicate struct {
					Removable bool           `json:"removable"`
					Blocking  map[string]int `json:"blocking"`
				} `json:"predicate"`
				Rows []struct {
					Verdict string `json:"verdict"`
					Reason  string `json:"reason"`
				} `json:"rows"`
			}
			if err := json.Unmarshal([]byte(doc), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got []string
			for r := range rep.Predicate.Blocking {
				got = append(got, r)
			}
			sort.Strings(got)
			want := append([]string(nil), c.reasons...)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") || rep.Predicate.Removable != (c.code == 0) {
				t.Errorf("blocking %v removable %v, want %v", got, rep.Predicate.Removable, want)
			}
			if after := digestTree(t, dir); after != before {
				t.Error("verify changed the pools")
			}
		})
	}
}

// TestVerifyTables pins the human output of a complete and a blocked run,
// at 80 and 120 columns and -o wide.
func TestVerifyTables(t *testing.T) {
	wd, _ := os.Getwd()
	for _, c := range []struct {
		name    string
		run     *decomfixture.Run
		columns string
		args    []string
	}{
		{"verify-complete.txt", decomfixture.Complete(), "", nil},
		{"verify-complete-120.txt", decomfixture.Complete(), "120", nil},
		{"verify-blocked.txt", decomfixture.Complete().MissingReceipt().TerminalHidesTarget().Unregistered(), "", nil},
		{"verify-blocked-120.txt", decomfixture.Complete().MissingReceipt().TerminalHidesTarget().Unregistered(), "120", nil},
		{"verify-blocked-wide.txt", decomfixture.Complete().NonSuccessor(), "", []string{"-o", "wide"}},
		{"verify-blocked.json", decomfixture.Complete().DigestMismatch().CorruptReceipt(), "", []string{"-o", "json"}},
	} {
		t.Setenv("COLUMNS", c.columns)
		dir := t.TempDir()
		writeRun(t, dir, c.run)
		t.Chdir(dir) // pools are named by their --meta, relative here
		out, _ := execute(t, verifyArgs(".", c.run.Token, c.args...)...)
		t.Chdir(wd)
		golden.Check(t, c.name, out, "")
		if len(c.args) == 0 {
			width := 80
			if c.columns != "" {
				width = 120
			}
			// The exit error is main's one line, not the table's.
			golden.Fits(t, c.name, strings.Split(out, "\nerror: ")[0], width)
		}
	}
}

// TestVerifyCouldNotCheck: an unreadable key is never a verdict; the
// command exits 1.
func TestVerifyCouldNotCheck(t *testing.T) {
	run := decomfixture.Complete()
	dir := t.TempDir()
	writeRun(t, dir, run)
	mk := filepath.Join(dir, decomfixture.Source, "decommission", "ilm-manifests", run.Token+".json")
	if err := os.Remove(mk); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(mk, 0o755); err != nil { // reading a directory fails
		t.Fatal(err)
	}
	out, code := execute(t, verifyArgs(dir, run.Token)...)
	if code != cmdutil.ExitFailure || !strings.Contains(out, "could not check") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	run := decomfixture.Complete()
	dir := t.TempDir()
	writeRun(t, dir, run)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--meta", dir}, "--run-token is required"},
		{[]string{"verify", "--run-token", "ABC", "--meta", dir, "--meta", dir}, "not 64 lowercase hex digits"},
		{[]string{"verify", "--run-token", run.Token, "--meta", dir}, "at least one target"},
		{[]string{"verify", "--run-token", run.Token, "--meta", dir + "/nope", "--meta", dir}, "--meta"},
		{[]string{"receipts", "ls", "--run-token", run.Token}, "no metadata pool"},
		{[]string{"run-token", "--cmd-line", "x"}, "needs --cmd-line and --start-unix-nanos"},
	} {
		out, code := execute(t, c.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d\n%s", c.args, code, out)
		}
	}
}

func TestReceiptsLs(t *testing.T) {
	run := decomfixture.Complete().CorruptReceipt()
	dir := t.TempDir()
	writeRun(t, dir, run)
	wd, _ := os.Getwd()
	t.Chdir(dir)
	t.Setenv("COLUMNS", "")
	out, code := execute(t, "receipts", "ls", "--run-token", run.Token, "--meta", decomfixture.Source, "--meta", decomfixture.TargetA)
	t.Setenv("COLUMNS", "120")
	out120, _ := execute(t, "receipts", "ls", "--run-token", run.Token, "--meta", decomfixture.Source, "--meta", decomfixture.TargetA)
	t.Setenv("COLUMNS", "")
	t.Chdir(wd)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	golden.Check(t, "receipts-ls.txt", out, "")
	golden.Fits(t, "receipts ls", out, 80)
	golden.Check(t, "receipts-ls-120.txt", out120, "")
	golden.Fits(t, "receipts ls at 120", out120, 120)
	out, code = execute(t, "receipts", "ls", "--run-token", run.Token, "--meta", filepath.Join(dir, decomfixture.TargetB), "-o", "json")
	if code != 0 || !strings.Contains(out, `"entries": []`) || !strings.Contains(out, "warning: no receipts") {
		t.Fatalf("empty pool: exit %d\n%s", code, out)
	}
}

func TestRunTokenCommand(t *testing.T) {
	out, code := execute(t, "run-token", "--cmd-line", decomfixture.CmdLine, "--start-unix-nanos", "1750000000123456789")
	if code != 0 || out != "ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661\n" {
		t.Fatalf("exit %d: %q", code, out)
	}
	out, _ = execute(t, "run-token", "--cmd-line", "a b", "--start-unix-nanos", "-5", "-o", "json")
	if !strings.Contains(out, `"start_unix_nanos": -5`) || !strings.Contains(out, `"run_token": "`) {
		t.Fatalf("json: %s", out)
	}
}

// TestTestdataComplete keeps testdata/decom/complete, the run docs/records.md
// and --help examples use, equal to decomfixture.Complete (-update
// rewrites it).
func TestTestdataComplete(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "decom", "complete")
	run := decomfixture.Complete()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		_ = os.RemoveAll(root)
		writeRun(t, root, run)
		_ = os.WriteFile(filepath.Join(root, decomfixture.TargetB, ".keep"), nil, 0o644)
		return
	}
	n := 0
	for pool, keys := range run.Pools {
		for k, want := range keys {
			n++
			got, err := os.ReadFile(filepath.Join(root, pool, filepath.FromSlash(k)))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s/%s differs from decomfixture.Complete (go test ./commands/decom -run TestTestdataComplete -update): %v", pool, k, err)
			}
		}
	}
	dir := t.TempDir()
	writeRun(t, dir, run)
	if digestTree(t, filepath.Join(dir, decomfixture.Source)) == "" || n == 0 {
		t.Fatal("empty fixture")
	}
}

// TestVerifyPoolIdentity: a target that is the source pool under any
// spelling, or one target given twice, is a one-line usage error naming
// both spellings, never "removable yes": the source holds the run's
// receipts and records, so read as its own target it would cover itself
// (docs/design/decommission.md#pool-identity).
func TestVerifyPoolIdentity(t *testing.T) {
	run := decomfixture.Complete()
	dir := t.TempDir()
	writeRun(t, dir, run)
	if err := os.Symlink(decomfixture.Source, filepath.Join(dir, "source-link")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	src, a, b := decomfixture.Source, decomfixture.TargetA, decomfixture.TargetB
	for _, c := range []struct {
		name  string
		metas []string
		want  string // "" for a clean, removable run
	}{
		{"distinct pools", []string{src, a, b}, ""},
		{"dir: pools", []string{"dir:" + src, "dir:" + a, "dir:" + b}, ""},
		{"source as its target", []string{src, src}, "--meta source is the source pool --meta source: a pool cannot be its own target"},
		{"dir: alias", []string{src, "dir:" + src}, "--meta dir:source is the source pool --meta source"},
		{"trailing slash", []string{src, "./" + src + "/"}, "--meta ./source/ is the source pool --meta source"},
		{"through a target", []string{src, a, "dir:" + a + "/../" + src}, "--meta dir:target-a/../source is the source pool"},
		{"symlink", []string{src, a, "source-link"}, "--meta source-link is the source pool --meta source"},
		{"absolute", []string{"dir:" + src, filepath.Join(dir, src)}, "is the source pool --meta dir:source"},
		{"one target twice", []string{src, a, b, "./" + a}, "--meta target-a and --meta ./target-a name the same target pool"},
		{"dir: target twice", []string{src, "dir:" + a, a + "/"}, "--meta dir:target-a and --meta target-a/ name the same target pool"},
		// Refused before any pool is opened: no server is needed.
		{"s3 source as its target", []string{"s3://127.0.0.1:1/meta/p", "s3://127.0.0.1:1/META//p/"}, "--meta s3://127.0.0.1:1/META//p/ is the source pool --meta s3://127.0.0.1:1/meta/p"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"verify", "--run-token", run.Token}
			for _, m := range c.metas {
				args = append(args, "--meta", m)
			}
			out, code := execute(t, args...)
			if c.want == "" {
				if code != 0 || !strings.Contains(out, "removable") {
					t.Fatalf("exit %d\n%s", code, out)
				}
				return
			}
			if code != cmdutil.ExitUsage || !strings.Contains(out, c.want) || strings.Contains(out, "removable") {
				t.Fatalf("exit %d, want %d with %q\n%s", code, cmdutil.ExitUsage, c.want, out)
			}
			if strings.Count(out, "\n") != 1 {
				t.Fatalf("error is not one line:\n%s", out)
			}
		})
	}
}

// TestReceiptsLsPoolIdentity: receipts ls lists each pool once; a pool
// given twice is a usage error.
func TestReceiptsLsPoolIdentity(t *testing.T) {
	run := decomfixture.Complete()
	dir := t.TempDir()
	writeRun(t, dir, run)
	t.Chdir(dir)
	out, code := execute(t, "receipts", "ls", "--run-token", run.Token, "--meta", decomfixture.TargetA, "--meta", "dir:./"+decomfixture.TargetA+"/")
	if code != cmdutil.ExitUsage || !strings.Contains(out, "--meta target-a and --meta dir:./target-a/ name the same pool") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
