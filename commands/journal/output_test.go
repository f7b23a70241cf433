package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	corejournal "github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
	goldenfile "github.com/ilmctl/ilmctl/internal/golden"
)

var pools = []string{"--meta", "../../testdata/ilm/pool-a", "--meta", "../../testdata/ilm/pool-b", "--now", "2025-06-15T15:06:40Z"}

// fixedPools copies the fixture pools with every file's mtime, which a
// directory pool reports as the record's LastModified and AGE counts
// from, set to one hour before the --now it returns with them: a
// checkout's own mtimes must not leak into a golden file.
func fixedPools(t *testing.T) []string {
	t.Helper()
	now := time.Date(2025, 6, 15, 15, 6, 40, 0, time.UTC)
	args := []string{"--now", now.Format(time.RFC3339)}
	for _, pool := range []string{"pool-a", "pool-b"} {
		src := filepath.Join("../../testdata/ilm", pool)
		dst := filepath.Join(t.TempDir(), pool)
		err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			out := filepath.Join(dst, rel)
			if d.IsDir() {
				return os.MkdirAll(out, 0o755)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
			return os.Chtimes(out, now.Add(-time.Hour), now.Add(-time.Hour))
		})
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "--meta", dst)
	}
	return args
}

// journal ls fits 80 and 120 columns: classification and decision first,
// then age and a short ID; -o wide adds protocol, schema, state, owner and
// the full path.
func TestLsTablesGolden(t *testing.T) {
	pools := fixedPools(t)
	for _, c := range []struct {
		name    string
		columns string
		width   int
	}{{"ls.txt", "", 80}, {"ls-120.txt", "120", 120}} {
		t.Setenv("COLUMNS", c.columns)
		out, err := run(t, append([]string{"ls"}, pools...)...)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, c.name, out)
		goldenfile.Fits(t, c.name, out, c.width)
		if !strings.HasPrefix(out, "Records\nCLASSIFICATION ") {
			t.Errorf("classification is not the first column:\n%.80s", out)
		}
	}
	t.Setenv("COLUMNS", "")
	wide, err := run(t, append([]string{"ls", "-o", "wide"}, pools...)...)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "ls-wide.txt", wide)
	if !strings.Contains(wide, " ilm/tier-delete-journal/a3eca9108685e477bb8096e245161342e7d411ac07a55d490be3782cc892d2a4.json\n") {
		t.Error("-o wide does not print full paths")
	}
}

// Every record's ID in a listing is distinct, at least 12 hex characters,
// a prefix of the SHA-256 of its path, and the same whether or not a
// filter hides other records.
func TestLsIDs(t *testing.T) {
	in, err := (&common{metas: pools[1:2]}).open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := corejournal.Scan(t.Context(), in.pools, in.opt)
	if err != nil {
		t.Fatal(err)
	}
	ids := shortIDs(rep.Records)
	seen := map[string]string{}
	for _, r := range rep.Records {
		id := ids[r.Path]
		if len(id) < 12 || !strings.HasPrefix(recordDigest(r.Path), id) {
			t.Errorf("%s: ID %q", r.Path, id)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("ID %s names %s and %s", id, other, r.Path)
		}
		seen[id] = r.Path
	}
	all, _ := run(t, "ls", "--meta", "../../testdata/ilm/pool-a")
	rows := map[string]bool{}
	for _, line := range strings.Split(all, "\n") {
		rows[strings.Join(strings.Fields(line), " ")] = true
	}
	filtered, _ := run(t, "ls", "--meta", "../../testdata/ilm/pool-a", "--protocol", "transition_transaction")
	n := 0
	for _, line := range strings.Split(filtered, "\n") {
		// A record's row: CLASSIFICATION DECISION AGE ID.
		if f := strings.Fields(line); len(f) == 4 && recordID.MatchString(f[3]) {
			n++
			if !rows[strings.Join(f, " ")] {
				t.Errorf("filtered row %q is not a row of the full listing", line)
			}
		}
	}
	if n == 0 {
		t.Error("the filtered listing has no records")
	}
}

var recordID = regexp.MustCompile(`^[0-9a-f]{12,64}$`)

// journal show takes what journal ls prints: an ID, or any prefix of at
// least 4 characters of one, shows the same record as its path.
func TestShowByID(t *testing.T) {
	path := "ilm/tier-delete-journal/a3eca9108685e477bb8096e245161342e7d411ac07a55d490be3782cc892d2a4.json"
	byPath, err := run(t, append([]string{"show", path}, pools...)...)
	if err != nil {
		t.Fatal(err)
	}
	id := recordDigest(path)
	for _, arg := range []string{id[:12], id[:4], strings.ToUpper(id[:8]), id} {
		got, err := run(t, append([]string{"show", arg}, pools...)...)
		if err != nil {
			t.Fatalf("show %s: %v", arg, err)
		}
		if got != byPath {
			t.Errorf("show %s differs from show PATH:\n%s", arg, cmp.Diff(byPath, got))
		}
	}
	if !regexp.MustCompile(`\nid +` + id[:12] + `\n`).MatchString(byPath) {
		t.Errorf("show does not print the record's ID %s:\n%s", id[:12], byPath)
	}
	for _, tc := range []struct {
		arg  string
		code int
		msg  string
	}{
		{"abc", cmdutil.ExitUsage, "at least 4 hex characters"},
		{"a3eca9108685", cmdutil.ExitFailure, "no record with ID a3eca9108685"}, // the path's digest is not its ID
		{"not-hex", cmdutil.ExitUsage, "PATH (ilm/...) or its ID"},
	} {
		_, err := run(t, append([]string{"show", tc.arg}, pools...)...)
		if cmdutil.Code(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("show %s: exit %d %v, want %d with %q", tc.arg, cmdutil.Code(err), err, tc.code, tc.msg)
		}
	}
}

// A prefix two records share is refused, naming both.
func TestResolveIDAmbiguous(t *testing.T) {
	// Find two paths whose digests share 4 leading characters.
	first := map[string]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		p := fmt.Sprintf("ilm/x/%d.json", i)
		d := recordDigest(p)[:4]
		if q, ok := first[d]; ok {
			a, b = q, p
		}
		first[d] = p
	}
	recs := []corejournal.Record{{Path: a}, {Path: b}, {Path: "ilm/y.json"}}
	prefix := recordDigest(a)[:4]
	_, err := resolveID(recs, prefix)
	if cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Fatalf("resolveID(%s) = %v", prefix, err)
	}
	rec, err := resolveID(recs, recordDigest(b)[:12])
	if err != nil || rec.Path != b {
		t.Fatalf("resolveID(long prefix) = %v, %v", rec, err)
	}
	if _, err := resolveID(recs, "ffffffffffff"); !errors.Is(err, metastore.ErrNotFound) {
		t.Fatalf("unknown ID: %v", err)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got, "")
}

// journal show fits 80 and 120 columns: a long value wraps under VALUE,
// never shortened.
func TestShowGolden(t *testing.T) {
	pools := fixedPools(t)
	path := "ilm/tier-delete-journal/a3eca9108685e477bb8096e245161342e7d411ac07a55d490be3782cc892d2a4.json"
	for _, c := range []struct {
		name    string
		columns string
		width   int
	}{{"show.txt", "", 80}, {"show-120.txt", "120", 120}} {
		t.Setenv("COLUMNS", c.columns)
		out, err := run(t, append([]string{"show", path}, pools...)...)
		if err != nil {
			t.Fatal(err)
		}
		goldenfile.Fits(t, c.name, out, c.width)
		// The copies name the pools by their temporary paths.
		for i := 1; i < len(pools); i += 2 {
			if pools[i-1] == "--meta" {
				out = strings.ReplaceAll(out, pools[i], "POOL")
			}
		}
		golden(t, c.name, out)
	}
	t.Setenv("COLUMNS", "")
}
