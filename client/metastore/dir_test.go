package metastore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	core "github.com/ilmctl/ilmctl/core/metastore"
)

func TestDirConditionalOps(t *testing.T) {
	ctx := context.Background()
	d, err := NewDir(t.TempDir(), "dir:test")
	if err != nil {
		t.Fatal(err)
	}
	e1, err := d.PutIfAbsent(ctx, "ilm/a/x.json", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.PutIfAbsent(ctx, "ilm/a/x.json", []byte("two")); !errors.Is(err, core.ErrExists) {
		t.Fatalf("create-only: %v", err)
	}
	if _, err := d.PutIfMatch(ctx, "ilm/a/x.json", []byte("two"), "stale"); !errors.Is(err, core.ErrPreconditionFailed) {
		t.Fatalf("cas stale: %v", err)
	}
	e2, err := d.PutIfMatch(ctx, "ilm/a/x.json", []byte("two"), e1)
	if err != nil {
		t.Fatal(err)
	}
	b, etag, err := d.Get(ctx, "ilm/a/x.json")
	if err != nil || string(b) != "two" || etag != e2 {
		t.Fatalf("get: %q %s %v", b, etag, err)
	}
	if err := d.DeleteIfMatch(ctx, "ilm/a/x.json", e1); !errors.Is(err, core.ErrPreconditionFailed) {
		t.Fatalf("delete stale: %v", err)
	}
	if err := d.DeleteIfMatch(ctx, "ilm/a/x.json", e2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Get(ctx, "ilm/a/x.json"); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := d.PutIfAbsent(ctx, "../escape", nil); err == nil {
		t.Fatal("path escape accepted")
	}
}

func TestDirPaging(t *testing.T) {
	ctx := context.Background()
	d, _ := NewDir(t.TempDir(), "dir:test")
	for _, k := range []string{"ilm/a", "ilm/b", "ilm/c", "other/d"} {
		if _, err := d.PutIfAbsent(ctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := core.ListAll(ctx, d, "ilm/", 2, func(objs []core.Object) error {
		for _, o := range objs {
			got = append(got, o.Key)
		}
		return nil
	})
	if err != nil || len(got) != 3 {
		t.Fatalf("got %v %v", got, err)
	}
}

func TestDirActorIsTheOSUser(t *testing.T) {
	d, _ := NewDir(t.TempDir(), "dir:test")
	a, err := Actor(context.Background(), d)
	if err != nil || len(a) <= len("os-user:") || a[:8] != "os-user:" {
		t.Fatalf("Actor = %q, %v", a, err)
	}
}

// TestDirCreateOnlyAcrossInstances: two Dir values on one root (as two
// ilmctl processes would be) race create-only on one key; exactly one
// wins and every loser gets ErrExists.
func TestDirCreateOnlyAcrossInstances(t *testing.T) {
	root := t.TempDir()
	d1, _ := NewDir(root, "dir:one")
	d2, _ := NewDir(root, "dir:two")
	for round := 0; round < 20; round++ {
		key := fmt.Sprintf("ilm/recovery-controls/race/%d.json", round)
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := 0; i < 8; i++ {
			d := d1
			if i%2 == 1 {
				d = d2
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := d.PutIfAbsent(context.Background(), key, []byte(fmt.Sprint(i)))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
				case !errors.Is(err, core.ErrExists):
					t.Errorf("writer %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("round %d: %d winners", round, wins)
		}
	}
}

// TestDirSymlinkedRoot: a root that is a link (or a chain of links) lists
// every key it reads; a link to nothing or to a file is refused at open.
func TestDirSymlinkedRoot(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(filepath.Join(real, "ilm", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "ilm", "a", "x.json"), []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"link": real, "chain": filepath.Join(base, "link"), "rel": "real", "dangling": filepath.Join(base, "none"), "to-file": file}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		root string
		keys int // -1: refused at open
	}{
		{real, 1},
		{filepath.Join(base, "link"), 1},
		{filepath.Join(base, "chain"), 1},
		{filepath.Join(base, "rel"), 1},
		{filepath.Join(base, "dangling"), -1},
		{filepath.Join(base, "to-file"), -1},
	} {
		d, err := NewDir(c.root, "dir:"+c.root)
		if c.keys < 0 {
			if err == nil {
				t.Errorf("%s: opened", c.root)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.root, err)
		}
		var got []string
		if err := core.ListAll(ctx, d, "ilm/", 10, func(objs []core.Object) error {
			for _, o := range objs {
				got = append(got, o.Key)
			}
			return nil
		}); err != nil || len(got) != c.keys {
			t.Errorf("%s: listed %v, %v; want %d key(s)", c.root, got, err, c.keys)
			continue
		}
		if b, _, err := d.Get(ctx, got[0]); err != nil || string(b) != "one" {
			t.Errorf("%s: get %s: %q %v", c.root, got[0], b, err)
		}
	}
}

// A pool directory that does not exist is one short line naming the fix,
// still fs.ErrNotExist; a file where a directory should be says so.
func TestNewDirMissingOrNotADirectory(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		notExist   bool
	}{
		{filepath.Join(root, "missing"), "no such directory; check the path (a pool's metadata directory, or s3://bucket[/prefix])", true},
		{file, `metadata dir "` + file + `" is not a directory`, false},
	} {
		_, err := NewDir(tc.path, "dir:test")
		if err == nil || err.Error() != tc.want || errors.Is(err, fs.ErrNotExist) != tc.notExist {
			t.Errorf("NewDir(%s) = %v, want %q (not-exist %v)", tc.path, err, tc.want, tc.notExist)
		}
	}
}

// Below a pool's root nothing is read, listed or written through a
// symbolic link: a linked ilm/ must not list as an empty pool while its
// records read, and a record or receipt that is a link into another pool
// must not count as this pool's copy. Each is an error naming the link,
// which a scan reports as incomplete and decom verify as blocking; a link
// outside what a listing looks at does not stop it.
func TestDirRefusesLinksBelowTheRoot(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	other := filepath.Join(base, "other")
	if err := os.MkdirAll(filepath.Join(other, "ilm", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "ilm", "a", "x.json"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	mk := func(t *testing.T, link, target string) *Dir {
		root := filepath.Join(t.TempDir(), "pool")
		if err := os.MkdirAll(filepath.Join(root, "decommission"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "decommission", "r.json"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
		d, err := NewDir(root, "dir:"+root)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var le *linkError
	for _, c := range []struct {
		name, link, target, key string
	}{
		{"linked ilm directory", "ilm", filepath.Join(other, "ilm"), "ilm/a/x.json"},
		{"linked record directory", "ilm/a", filepath.Join(other, "ilm", "a"), "ilm/a/x.json"},
		{"linked record", "ilm/a/x.json", filepath.Join(other, "ilm", "a", "x.json"), "ilm/a/x.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := mk(t, c.link, c.target)
			if _, err := d.List(ctx, "ilm/", "", 10); !errors.As(err, &le) {
				t.Errorf("list ilm/: %v, want the link named", err)
			}
			if b, _, err := d.Get(ctx, c.key); !errors.As(err, &le) {
				t.Errorf("get %s: %q %v, want the link named", c.key, b, err)
			}
			if err := d.DeleteIfMatch(ctx, c.key, etagOf([]byte("theirs"))); !errors.As(err, &le) {
				t.Errorf("delete %s: %v, want the link named", c.key, err)
			}
			if b, err := os.ReadFile(filepath.Join(other, "ilm", "a", "x.json")); err != nil || string(b) != "theirs" {
				t.Errorf("the other pool's record after the delete: %q %v", b, err)
			}
			if c.link != c.key {
				if _, err := d.PutIfAbsent(ctx, "ilm/a/y.json", []byte("new")); !errors.As(err, &le) {
					t.Errorf("put through the link: %v, want the link named", err)
				}
				if _, err := os.Stat(filepath.Join(other, "ilm", "a", "y.json")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a write went through the link into the other pool: %v", err)
				}
			}
			if p, err := d.List(ctx, "decommission/", "", 10); err != nil || len(p.Objects) != 1 {
				t.Errorf("list decommission/ beside the link: %+v %v, want its one record", p, err)
			}
		})
	}
}
