package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
)

func TestReadWriteFile(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	const path = "/etc/s3/lifecycle/daily-cursors/shard-07.json"
	if _, err := f.ReadFile(ctx, path); !errors.Is(err, filer.ErrNotFound) {
		t.Fatalf("absent file: err = %v, want ErrNotFound", err)
	}
	data := []byte(`{"ts_ns":1}`)
	if err := f.WriteFile(ctx, path, data); err != nil {
		t.Fatal(err)
	}
	data[0] = 'X' // the store must have copied
	if err := f.WriteFile(ctx, path+".other", []byte("o")); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadFile(ctx, path)
	if err != nil || string(got) != `{"ts_ns":1}` {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
	if err := f.WriteFile(ctx, path, []byte(`{"ts_ns":2}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.ReadFile(ctx, path); string(got) != `{"ts_ns":2}` {
		t.Errorf("after overwrite ReadFile = %q", got)
	}
	if err := f.WriteFile(ctx, "", nil); err == nil {
		t.Error("WriteFile with empty path succeeded")
	}
}

func TestOpenMustExist(t *testing.T) {
	dir := t.TempDir() + "/missing"
	if _, err := Open(dir, Options{MustExist: true}); !errors.Is(err, ErrNoFiler) {
		t.Fatalf("err = %v, want ErrNoFiler", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("MustExist open created %s (stat err %v)", dir, err)
	}
	f, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := f.WriteFile(context.Background(), "/x", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = Open(dir, Options{MustExist: true})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer f.Close()
	if got, err := f.ReadFile(context.Background(), "/x"); err != nil || string(got) != "1" {
		t.Errorf("reopened ReadFile = %q, %v", got, err)
	}
}

// A truncated filer.db is refused with ErrDamaged instead of faulting in
// bbolt's memory map.
func TestOpenRefusesTruncatedDatabase(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	path := filepath.Join(dir, DBFile)
	if err := os.Truncate(path, 40000); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{MustExist: true}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "40000 bytes") {
		t.Fatalf("Open(truncated) = %v, want ErrDamaged naming the size", err)
	}
}
