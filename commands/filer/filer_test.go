package filer

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
)

const testFixture = `{"buckets":[
 {"name":"logs","versioning":"Enabled","objects":[
  {"key":"app/a.log","versions":[
   {"version_id":"v1","mtime":"2026-01-01T10:00:00Z","size":120,"etag":"e1"},
   {"version_id":"v2","mtime":"2026-02-01T10:00:00Z","size":130,"etag":"e2"}]}],
  "uploads":[{"upload_id":"u1","key":"big.bin","initiated":"2026-01-01T00:00:00Z"}]},
 {"name":"flat","objects":[{"key":"x","versions":[{"mtime":"2026-03-01T00:00:00Z","size":7,"etag":"ex"}]}]}]}`

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestLoadThenLsJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	fixture := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(fixture, []byte(testFixture), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "load", fixture, "--filer", dir)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if want := "loaded into " + dir + ":\n  2 buckets, 2 objects, 3 versions, 1 uploads, 5 meta-log events\n"; out != want {
		t.Errorf("load printed %q, want %q", out, want)
	}

	out, err = run(t, "ls", "--filer", dir, "-o", "json")
	if err != nil {
		t.Fatalf("ls: %v", err)
	}
	want := `{
  "versions": [
    {
      "bucket": "flat",
      "key": "x",
      "version_id": "null",
      "is_latest": true,
      "delete_marker": false,
      "mtime": "2026-03-01T00:00:00Z",
      "size": 7
    },
    {
      "bucket": "logs",
      "key": "app/a.log",
      "version_id": "v2",
      "is_latest": true,
      "delete_marker": false,
      "mtime": "2026-02-01T10:00:00Z",
      "size": 130
    },
    {
      "bucket": "logs",
      "key": "app/a.log",
      "version_id": "v1",
      "is_latest": false,
      "delete_marker": false,
      "mtime": "2026-01-01T10:00:00Z",
      "size": 120
    }
  ],
  "uploads": [
    {
      "bucket": "logs",
      "key": "big.bin",
      "upload_id": "u1",
      "initiated": "2026-01-01T00:00:00Z"
    }
  ]
}
`
	if out != want {
		t.Errorf("ls -o json:\n%s\nwant:\n%s", out, want)
	}

	out, err = run(t, "ls", "--filer", dir, "--bucket", "flat", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var res render.FilerListing
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Versions) != 1 || res.Versions[0].Bucket != "flat" || res.Uploads == nil || len(res.Uploads) != 0 {
		t.Errorf("--bucket flat = %+v", res)
	}

	out, err = run(t, "ls", "--filer", dir)
	if err != nil || !strings.Contains(out, "Versions") || !strings.Contains(out, "app/a.log") || !strings.Contains(out, "u1") {
		t.Errorf("ls table = %q, %v", out, err)
	}

	// Loading the same fixture again adds to the same buckets, and its
	// keys are already there.
	// The hint says how to start over.
	_, err = run(t, "load", fixture, "--filer", dir)
	if err == nil || !strings.Contains(err.Error(), "already in the filer") {
		t.Errorf("second load err = %v", err)
	}
	if h := hint.All(err); len(h) != 1 || h[0] != "to start over, use a new --filer directory or remove this one" {
		t.Errorf("second load hints = %q", h)
	}
}

func TestLsErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing")
	_, err := run(t, "ls", "--filer", missing)
	if !errors.Is(err, client.ErrNoFiler) || !slices.Contains(hint.All(err), "run 'ilmctl filer load FIXTURE.json --filer "+missing+"' first") {
		t.Errorf("missing filer err = %v", err)
	}
	if _, statErr := os.Stat(missing); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("ls created %s", missing)
	}

	dir := t.TempDir()
	f, err := client.Open(t.Context(), dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = run(t, "ls", "--filer", dir, "--bucket", "nope")
	if cmdutil.Code(err) != cmdutil.ExitFailure || !strings.Contains(err.Error(), `no such bucket "nope"`) {
		t.Errorf("unknown bucket err = %v (code %d)", err, cmdutil.Code(err))
	}
	if _, err := run(t, "load"); cmdutil.Code(err) != cmdutil.ExitUsage {
		t.Errorf("load without fixture: %v (code %d), want usage error", err, cmdutil.Code(err))
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"buckets":[{"name":"b","colour":"red"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "load", bad, "--filer", t.TempDir()); err == nil || err.Error() != bad+`: bucket b: unknown field "colour": want one of name, versioning, object_lock, lifecycle_xml, objects, uploads (byte 24)` {
		t.Errorf("bad fixture err = %v", err)
	}
}

// A failed load into a new directory leaves nothing behind, so a later run
// reports "no filer" instead of passing over an empty one; a failed load
// into an existing filer leaves it as it was.
func TestLoadFailureLeavesNoFiler(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"buckets":[{"name":"b","colour":"red"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, err := run(t, "load", bad, "--filer", fresh); err == nil {
		t.Fatal("bad fixture loaded")
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("failed load left %s behind (stat err %v)", fresh, err)
	}

	good := filepath.Join(t.TempDir(), "good.json")
	if err := os.WriteFile(good, []byte(testFixture), 0o600); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(t.TempDir(), "existing")
	if _, err := run(t, "load", good, "--filer", existing); err != nil {
		t.Fatal(err)
	}
	before, _ := run(t, "ls", "--filer", existing, "-o", "json")
	if _, err := run(t, "load", bad, "--filer", existing); err == nil {
		t.Fatal("bad fixture loaded")
	}
	if after, err := run(t, "ls", "--filer", existing, "-o", "json"); err != nil || after != before {
		t.Fatalf("failed load changed an existing filer: %v", err)
	}
}

// A fixture that is not JSON from its first byte (the wrong file) is said
// to be so, with where to read the shape; one that is JSON says where in
// it the fault is.
func TestLoadErrorNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"notes.md", "# not a fixture\n", "notes.md is not a JSON fixture (invalid character '#' looking for beginning of value); see 'ilmctl filer load --help' for its shape"},
		{"bad.json", `{"buckets":[{"name":1}]}`, "bad.json: buckets[0]: name: want a string, got a JSON number (byte 20)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := run(t, "load", path, "--filer", filepath.Join(dir, "f-"+tc.name))
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line ending %q", err, tc.want)
			}
		})
	}
}
