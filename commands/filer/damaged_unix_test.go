//go:build unix

package filer

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/client"
	bolt "go.etcd.io/bbolt"
)

// rawBoltEnv makes the test binary, run with -test.run=^TestHelperRawBolt$,
// read the database it names with bbolt directly: what ilmctl did before
// it checked a filer.db ahead of bbolt's memory map.
const rawBoltEnv = "ILMCTL_FILER_TEST_RAW_BOLT"

func TestHelperRawBolt(t *testing.T) {
	path := os.Getenv(rawBoltEnv)
	if path == "" {
		t.Skip("helper: runs only as the child of TestTruncatedFilerInChildProcess")
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("bolt.Open: %v", err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			return b.ForEach(func(_, _ []byte) error { return nil })
		})
	})
	t.Fatalf("bbolt read the truncated database without faulting (View: %v)", err)
}

// TestTruncatedFilerInChildProcess: the 64 KiB demo filer cut to 36 KiB
// kills a process that reads it with bbolt alone (SIGBUS: bbolt maps 64 KiB
// and touches pages past the end of the file, which no recover can catch),
// while ilmctl's filer ls, run --dry-run and run, as real processes, exit 1
// with one line naming the damage and leave the file as it was.
func TestTruncatedFilerInChildProcess(t *testing.T) {
	dir := t.TempDir()
	in, err := os.Open(filepath.Join("..", "..", "testdata", "demo", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := client.Load(context.Background(), dir, in, client.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "filer.db")
	if fi, err := os.Stat(path); err != nil || fi.Size() != 64<<10 {
		t.Fatalf("demo filer.db: %v, %v; want 64 KiB (the cut below assumes it)", fi, err)
	}
	if err := os.Truncate(path, 36<<10); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	raw := exec.Command(os.Args[0], "-test.run=^TestHelperRawBolt$")
	raw.Env = append(os.Environ(), rawBoltEnv+"="+path, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	var rawErr bytes.Buffer
	raw.Stdout, raw.Stderr = &rawErr, &rawErr
	_ = raw.Run()
	if !strings.Contains(rawErr.String(), "signal SIGBUS") {
		t.Fatalf("reading the truncated file with bbolt alone did not fault (exit %d), so this test proves nothing:\n%s", raw.ProcessState.ExitCode(), rawErr.String())
	}

	for _, args := range [][]string{
		{"ls", "--filer", dir},
		{"run", "--dry-run", "--now", "2026-11-30T00:00:00Z", "--filer", dir},
		{"run", "--now", "2026-11-30T00:00:00Z", "--filer", dir},
	} {
		r := ilmctl(t, args...)
		if r.code != 1 || !strings.HasPrefix(r.stderr, "ilmctl: filer.db is damaged: "+path+" is 36864 bytes, but transaction") ||
			!strings.HasSuffix(r.stderr, "\nilmctl: hint: restore it from a backup, or move it aside and run 'ilmctl filer load FIXTURE.json --filer "+dir+"'\n") ||
			strings.Count(r.stderr, "\n") != 2 || strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "SIGBUS") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1, one line naming the damage and one hint", args, r.code, r.stderr)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi2, err := os.Stat(path); err != nil || !bytes.Equal(after, data) || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("filer.db changed: %d bytes at %v, was %d at %v (%v)", len(after), fi2.ModTime(), len(data), fi.ModTime(), err)
	}
}
