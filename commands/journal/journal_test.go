package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	now = func() time.Time { return time.Unix(0, 1_750_000_000_000_000_000) }
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestLsJSON(t *testing.T) {
	out, err := run(t, "ls", "--meta", "../../testdata/ilm/pool-a", "--meta", "dir:../../testdata/ilm/pool-b", "--protocol", "transition_transaction", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Records []struct {
			Classification string `json:"classification"`
			Decision       string `json:"decision"`
		} `json:"records"`
		Incomplete bool `json:"incomplete"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Incomplete || len(v.Records) != 12 {
		t.Fatalf("got %d records, incomplete=%v", len(v.Records), v.Incomplete)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"ls"},
		{"ls", "--meta", "x", "--protocol", "nope"},
		{"ls", "--meta", "../../testdata/ilm/pool-a", "--now", "2025-06-15"},
		{"show", "--meta", "../../testdata/ilm/pool-a", "--now", "yesterday", "ilm/x.json"},
		{"show"},
	} {
		_, err := run(t, args...)
		if cmdutil.Code(err) != cmdutil.ExitUsage || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: want one-line usage error, got %v", args, err)
		}
	}
}

func TestMissingFilerFails(t *testing.T) {
	missing := t.TempDir() + "/none"
	_, err := run(t, "ls", "--meta", "../../testdata/ilm/pool-a", "--filer", missing)
	if cmdutil.Code(err) != cmdutil.ExitFailure || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), `--filer "`+missing+`"`) || !strings.Contains(err.Error(), "omit --filer") {
		t.Fatalf("want a one-line error naming --filer and the fix, got %v", err)
	}
}

func TestShowRedacts(t *testing.T) {
	key := "ilm/transition-transactions/records/d0/00/d0000000000040008000000000000008.json"
	out, err := run(t, "show", key, "--meta", "../../testdata/ilm/pool-a")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "cat.jpg") || !strings.Contains(out, "sha256:") {
		t.Fatalf("not redacted:\n%s", out)
	}
	out, _ = run(t, "show", key, "--meta", "../../testdata/ilm/pool-a", "--raw")
	if !strings.Contains(out, "cat.jpg") {
		t.Fatalf("--raw hides fields:\n%s", out)
	}
}

// A --meta path one level too deep (inside ilm/, not the pool root) scans
// nothing; ls says so instead of printing a quiet (none).
func TestLsWarnsOnEmptyScan(t *testing.T) {
	out, err := run(t, "ls", "--meta", "../../testdata/ilm/pool-a/ilm")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "warning: no durable ILM records in ../../testdata/ilm/pool-a/ilm") {
		t.Fatalf("no warning for an empty scan:\n%s", out)
	}
	out, err = run(t, "ls", "--meta", "../../testdata/ilm/pool-a")
	if err != nil || strings.Contains(out, "warning: no durable ILM records") {
		t.Fatalf("warning on a real pool: %v\n%s", err, out)
	}
}

// TestPoolIdentity: one pool under two spellings is a one-line usage
// error naming both, not a scan that counts its copies twice.
func TestPoolIdentity(t *testing.T) {
	for _, metas := range [][]string{
		{"../../testdata/ilm/pool-a", "../../testdata/ilm/pool-a"},
		{"../../testdata/ilm/pool-a", "dir:../../testdata/ilm/pool-a/"},
		{"dir:../../testdata/ilm/pool-b", "../../testdata/ilm/pool-a", "../../testdata/ilm/pool-a/../pool-b"},
	} {
		args := []string{"ls"}
		for _, m := range metas {
			args = append(args, "--meta", m)
		}
		_, err := run(t, args...)
		if cmdutil.Code(err) != cmdutil.ExitUsage || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "name the same pool") {
			t.Errorf("%v: want a one-line usage error, got %v", metas, err)
		}
	}
}

// TestSymlinkedPoolRoot: a --meta root that is a symbolic link lists what
// its target lists. Listing stopped at the link once, and ls printed
// (none) with exit 0: a false zero.
func TestSymlinkedPoolRoot(t *testing.T) {
	real, err := filepath.Abs("../../testdata/ilm/pool-a")
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "pool-a")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	count := func(meta string) int {
		t.Helper()
		out, err := run(t, "ls", "--meta", meta, "-o", "json")
		if err != nil {
			t.Fatalf("--meta %s: %v\n%s", meta, err, out)
		}
		var v struct {
			Records    []json.RawMessage `json:"records"`
			Incomplete bool              `json:"incomplete"`
		}
		if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &v); err != nil {
			t.Fatalf("--meta %s: %v\n%s", meta, err, out)
		}
		if v.Incomplete {
			t.Fatalf("--meta %s: incomplete", meta)
		}
		return len(v.Records)
	}
	want := count(real)
	if want == 0 {
		t.Fatal("fixture pool-a lists no records")
	}
	for _, meta := range []string{link, "dir:" + link, link + "/"} {
		if got := count(meta); got != want {
			t.Errorf("--meta %s lists %d records, the pool it links to %d", meta, got, want)
		}
	}
}
