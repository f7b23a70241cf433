//go:build !windows

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWritePrivate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "receipt.json")
	if err := WritePrivate(p, []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != PrivateMode {
		t.Fatalf("mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if err := WritePrivate(p, []byte("two"), false); !errors.Is(err, ErrExists) {
		t.Fatalf("second write without overwrite: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("existing file replaced: %q", b)
	}
	// An existing 0644 file replaced with overwrite ends 0600.
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivate(p, []byte("three"), true); err != nil {
		t.Fatal(err)
	}
	st, _ = os.Stat(p)
	if b, _ := os.ReadFile(p); string(b) != "three" || st.Mode().Perm() != PrivateMode {
		t.Fatalf("overwrite: %q mode %v", b, st.Mode().Perm())
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}
