package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// demoDB loads testdata/demo/fixture.json into a fresh filer and returns
// its filer.db bytes: 64 KiB, of which the latest transaction uses pages
// up to 56 KiB (a meta's pgid, at byte 40 of the meta after the 16-byte
// page header, is 14).
func demoDB(t *testing.T) []byte {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "filer")
	if _, stderr, code := execute(t, "filer", "load", filepath.Join("..", "..", "testdata", "demo", "fixture.json"), "--filer", dir); code != 0 {
		t.Fatalf("filer load: %s", stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "filer.db"))
	if err != nil {
		t.Fatal(err)
	}
	// The cuts below are chosen for this layout: 52 KiB must still be
	// short of the pages in use.
	if len(data) != 64<<10 || binary.NativeEndian.Uint64(data[16+40:]) < 14 && binary.NativeEndian.Uint64(data[4096+16+40:]) < 14 {
		t.Fatalf("the demo filer.db is %d bytes, using fewer than 14 pages: adjust the cuts in this test", len(data))
	}
	return data
}

// placeFiler writes data as DIR/filer.db, dated in the past so that any
// write would show in the mtime too.
func placeFiler(t *testing.T, data []byte) (dir string, mtime time.Time) {
	t.Helper()
	dir = t.TempDir()
	path := filepath.Join(dir, "filer.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	mtime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return dir, mtime
}

func filerUnchanged(t *testing.T, dir string, data []byte, mtime time.Time) {
	t.Helper()
	path := filepath.Join(dir, "filer.db")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) || !fi.ModTime().Equal(mtime) {
		t.Errorf("filer.db changed: %d bytes at %v, was %d bytes at %v", len(got), fi.ModTime(), len(data), mtime)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("filer dir holds %v, want only filer.db", entries)
	}
}

// filerCommands are the commands that open --filer; {dir} is the filer
// directory.
var filerCommands = []struct {
	args     []string
	readOnly bool
}{
	{[]string{"filer", "ls", "--filer", "{dir}"}, true},
	{[]string{"filer", "ls", "--filer", "{dir}", "-o", "json"}, true},
	{[]string{"run", "--dry-run", "--now", "2026-11-30T00:00:00Z", "--filer", "{dir}"}, true},
	{[]string{"journal", "ls", "--meta", filepath.Join("..", "..", "testdata", "ilm", "pool-a"), "--filer", "{dir}"}, true},
	{[]string{"explain", "--bucket", "media", "--key", "legal/contract.pdf", "--now", "2026-11-30T00:00:00Z", "--filer", "{dir}"}, true},
	{[]string{"explain", "--bucket", "logs", "--key", "app/api.log", "-o", "json", "--filer", "{dir}"}, true},
	{[]string{"run", "--now", "2026-11-30T00:00:00Z", "--filer", "{dir}"}, false},
	{[]string{"filer", "load", filepath.Join("..", "..", "testdata", "demo", "fixture.json"), "--filer", "{dir}"}, false},
}

func withDir(args []string, dir string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "{dir}", dir)
	}
	return out
}

// TestDamagedFilerRefused: each command that opens the embedded filer,
// filer load into it included, exits 1 with one line "filer.db is damaged: …" for a truncated (at page
// boundaries and mid-page), empty or overwritten filer.db, prints no stack
// dump, and leaves the file byte for byte as it was, mtime included. The
// 32 KiB and 36 KiB cuts of the 64 KiB demo filer panicked and died of
// SIGBUS inside bbolt before the checks; a 0-byte filer.db was recreated
// as an empty filer and the pass reported status=ok.
func TestDamagedFilerRefused(t *testing.T) {
	good := demoDB(t)
	garbageHeader := bytes.Clone(good)
	copy(garbageHeader, bytes.Repeat([]byte{0xA5}, 4096))
	tests := []struct {
		name string
		data []byte
		want string // in the message after "filer.db is damaged: DIR/filer.db "
	}{
		{"empty", nil, "is empty (0 bytes)"},
		{"8 KiB", good[:8<<10], "is 8192 bytes, but transaction"},
		{"16 KiB", good[:16<<10], "is 16384 bytes, but transaction"},
		{"32 KiB", good[:32<<10], "is 32768 bytes, but transaction"},
		{"36 KiB", good[:36<<10], "is 36864 bytes, but transaction"},
		{"52 KiB", good[:52<<10], "is 53248 bytes, but transaction"},
		{"mid-page", good[:36<<10+100], "is 36964 bytes, not a whole number of 4096-byte pages"},
		{"one byte short", good[:len(good)-1], fmt.Sprintf("is %d bytes, not a whole number of 4096-byte pages", len(good)-1)},
		{"garbage header", garbageHeader, "meta page 0 has no bbolt magic number"},
		{"not a database", []byte("not a bbolt database\n"), "is 21 bytes, too short for a bbolt meta page"},
	}
	for _, tc := range tests {
		for _, cmd := range filerCommands {
			t.Run(tc.name+"/"+strings.Join(cmd.args[:2], "_"), func(t *testing.T) {
				dir, mtime := placeFiler(t, tc.data)
				args := withDir(cmd.args, dir)
				stdout, stderr, code := execute(t, args...)
				wantPrefix := "filer.db is damaged: " + filepath.Join(dir, "filer.db") + " " + tc.want
				wantHint := "\nilmctl: hint: restore it from a backup, or move it aside and run 'ilmctl filer load FIXTURE.json --filer " + dir + "'\n"
				if code != cmdutil.ExitFailure || !strings.Contains(stderr, wantPrefix) || !strings.HasSuffix(stderr, wantHint) || strings.Count(stderr, "\n") != 2 ||
					strings.Contains(stdout+stderr, "panic") || strings.Contains(stdout+stderr, "goroutine") || strings.Contains(stderr, "status=ok") {
					t.Errorf("%v: exit %d\nstderr %q\nstdout %q\nwant exit 1, one line with %q and its hint", args, code, stderr, stdout, wantPrefix)
				}
				filerUnchanged(t, dir, tc.data, mtime)
			})
		}
	}
}

// TestReadOnlyCommandsLeaveFilerAlone: on a good filer, filer ls,
// run --dry-run, explain and journal --filer succeed, also all at once, and write
// nothing: the file keeps its bytes and mtime. (A real run writes.)
func TestReadOnlyCommandsLeaveFilerAlone(t *testing.T) {
	good := demoDB(t)
	dir, mtime := placeFiler(t, good)
	var readOnly [][]string
	for _, cmd := range filerCommands {
		if cmd.readOnly {
			readOnly = append(readOnly, withDir(cmd.args, dir))
		}
	}
	for _, args := range readOnly {
		if _, stderr, code := execute(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	filerUnchanged(t, dir, good, mtime)

	var wg sync.WaitGroup
	for range 2 {
		for _, args := range readOnly {
			wg.Go(func() {
				if _, stderr, code := execute(t, args...); code != 0 {
					t.Errorf("%v beside other readers: exit %d: %s", args, code, stderr)
				}
			})
		}
	}
	wg.Wait()
	filerUnchanged(t, dir, good, mtime)

	if _, stderr, code := execute(t, "run", "--now", "2026-11-30T00:00:00Z", "--filer", dir); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "filer.db")); bytes.Equal(got, good) {
		t.Error("a real run saved no cursor: the file is unchanged, so this test cannot tell reads from writes")
	}
}

// TestBadFilerSpecIsUsage: a --filer that names no filer, and an empty
// --shards, are usage errors (exit 2), found before anything is opened.
func TestBadFilerSpecIsUsage(t *testing.T) {
	pool := filepath.Join("..", "..", "testdata", "ilm", "pool-a")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "--filer", "s3://"}, `--filer "s3://" names no S3 endpoint`},
		{[]string{"run", "--filer", "seaweedfs://"}, `--filer "seaweedfs://" names no SeaweedFS filer`},
		{[]string{"run", "--filer", "seaweedfs://:8888"}, `--filer "seaweedfs://:8888" names no SeaweedFS filer`},
		{[]string{"run", "--dry-run", "--filer", "s3://:8333"}, "names no S3 endpoint"},
		{[]string{"run", "--filer", ""}, "empty filer spec"},
		{[]string{"run", "--filer", "gs://bucket"}, `filer scheme "gs" not supported`},
		{[]string{"run", "--shards", "", "--filer", "seaweedfs://127.0.0.1:8888"}, "--shards is empty"},
		{[]string{"filer", "ls", "--filer", "seaweedfs://"}, "names no SeaweedFS filer"},
		{[]string{"filer", "ls", "--filer", "s3://"}, "names no S3 endpoint"},
		{[]string{"journal", "ls", "--meta", pool, "--filer", "seaweedfs://:8888"}, "names no SeaweedFS filer"},
		{[]string{"journal", "ls", "--meta", pool, "--filer", "s3://"}, "names no S3 endpoint"},
	} {
		_, stderr, code := execute(t, tc.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, tc.msg) || !oneMessage(stderr) {
			t.Errorf("%q: exit %d stderr %q, want exit 2 and one message with %q, then hints only", tc.args, code, stderr, tc.msg)
		}
	}
}
