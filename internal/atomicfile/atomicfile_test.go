//go:build !windows

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ilmctl/ilmctl/internal/atomicfile/atomicfiletest"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestWriteFile: the mode is os.WriteFile's (perm less the umask for a new
// file, the existing mode otherwise), and nothing but the target is left
// in the directory, also when the rename fails.
func TestWriteFile(t *testing.T) {
	cases := []struct {
		name     string
		existing fs.FileMode // 0: no file yet
		perm     fs.FileMode
		isDir    bool // the target is a directory: the rename fails
		wantErr  bool
	}{
		{name: "new file 0600", perm: 0o600},
		{name: "new file 0644", perm: 0o644},
		{name: "existing 0640 keeps its mode", existing: 0o640, perm: 0o600},
		{name: "existing 0600 keeps its mode", existing: 0o600, perm: 0o644},
		{name: "target is a directory", perm: 0o600, isDir: true, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "shard-00.json")
			switch {
			case tc.isDir:
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			case tc.existing != 0:
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFile(path, []byte("new"), tc.perm)
			if (err != nil) != tc.wantErr {
				t.Fatalf("WriteFile = %v, want error %v", err, tc.wantErr)
			}
			if got := names(t, dir); !slices.Equal(got, []string{"shard-00.json"}) {
				t.Errorf("directory holds %v, want only the target", got)
			}
			if tc.wantErr {
				return
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != "new" {
				t.Errorf("content = %q, %v", got, err)
			}
			want := tc.existing
			if want == 0 {
				// What os.WriteFile gives a new file under this umask.
				ref := filepath.Join(t.TempDir(), "ref")
				if err := os.WriteFile(ref, nil, tc.perm); err != nil {
					t.Fatal(err)
				}
				want = mode(t, ref)
			}
			if got := mode(t, path); got != want {
				t.Errorf("mode = %v, want %v", got, want)
			}
		})
	}
}

// TestWriteFileNeverPartial: a reader racing many rewrites only ever sees
// one whole version or the other.
func TestWriteFileNeverPartial(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cursor.json")
	atomicfiletest.NeverPartial(t,
		func() ([]byte, error) { return os.ReadFile(path) },
		func(data []byte) error { return WriteFile(path, data, 0o600) })
}

func TestMkdirAll(t *testing.T) {
	root := t.TempDir()
	nested := filepath.Join(root, "etc", "s3", "lifecycle")
	if created, err := MkdirAll(nested, 0o755); err != nil || !created {
		t.Fatalf("MkdirAll(new) = %v, %v; want created", created, err)
	}
	if created, err := MkdirAll(nested, 0o755); err != nil || created {
		t.Fatalf("MkdirAll(existing) = %v, %v; want not created", created, err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := MkdirAll(filepath.Join(file, "sub"), 0o755); err == nil {
		t.Error("MkdirAll below a file succeeded")
	}
	if _, err := MkdirAll(file, 0o755); err == nil {
		t.Error("MkdirAll on a file succeeded")
	}
	if err := SyncDir(filepath.Join(root, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncDir(missing) = %v", err)
	}
}
