//go:build !windows

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestWriteFileMode: the file ends with exactly the mode asked for, under
// a umask that would strip it and over a file that had another mode, and
// nothing but the target is left in the directory.
func TestWriteFileMode(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, existing := range []fs.FileMode{0, 0o600, 0o640} {
		dir := t.TempDir()
		path := filepath.Join(dir, "ilmctl.prom")
		if existing != 0 {
			if err := os.WriteFile(path, []byte("old"), existing); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, existing); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteFileMode(path, []byte("new"), 0o644); err != nil {
			t.Fatalf("existing %v: %v", existing, err)
		}
		if got := mode(t, path); got != 0o644 {
			t.Errorf("existing %v: mode = %v, want 0644", existing, got)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != "new" {
			t.Errorf("existing %v: content = %q, %v", existing, got, err)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"ilmctl.prom"}) {
			t.Errorf("existing %v: directory holds %v, want only the target", existing, got)
		}
	}
}
