//go:build !windows

package s3

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ilmctl/ilmctl/internal/atomicfile/atomicfiletest"
)

const cursorPath = "/etc/s3/lifecycle/daily-cursors/shard-00.json"

// TestDirStateWrite: a cursor in a local --state directory is created
// 0600 (less the umask), a rewrite keeps the mode the operator gave it,
// and no temporary file is left beside it. Before atomicfile the rewrite
// reset an operator's 0640 to 0600.
func TestDirStateWrite(t *testing.T) {
	cases := []struct {
		name     string
		existing fs.FileMode // 0: no cursor yet
	}{
		{"new cursor", 0},
		{"rewrite keeps 0600", 0o600},
		{"rewrite keeps the operator's 0640", 0o640},
		{"rewrite keeps the operator's 0644", 0o644},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			st, err := openState(root, nil)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(root, filepath.FromSlash(cursorPath))
			want := tc.existing
			if tc.existing != 0 {
				if err := st.write(ctx, cursorPath, []byte(`{"old":true}`)); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(file, tc.existing); err != nil {
					t.Fatal(err)
				}
			} else {
				ref := filepath.Join(t.TempDir(), "ref") // os.WriteFile's mode under this umask
				if err := os.WriteFile(ref, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(ref)
				if err != nil {
					t.Fatal(err)
				}
				want = fi.Mode().Perm()
			}
			if err := st.write(ctx, cursorPath, []byte(`{"new":true}`)); err != nil {
				t.Fatal(err)
			}
			if got, err := st.read(ctx, cursorPath); err != nil || string(got) != `{"new":true}` {
				t.Errorf("read = %q, %v", got, err)
			}
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), want)
			}
			es, err := os.ReadDir(filepath.Dir(file))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range es {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{"shard-00.json"}) {
				t.Errorf("cursor directory holds %v, want only shard-00.json", names)
			}
		})
	}
}

// TestDirStateNeverPartial: a pass reading a cursor while another rewrites
// it sees one whole cursor or the other, never a partial file.
func TestDirStateNeverPartial(t *testing.T) {
	ctx := context.Background()
	st, err := openState(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	atomicfiletest.NeverPartial(t,
		func() ([]byte, error) { return st.read(ctx, cursorPath) },
		func(data []byte) error { return st.write(ctx, cursorPath, data) })
}
