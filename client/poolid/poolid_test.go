package poolid

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestS3 pins the normalisation of s3:// pools: spellings of one
// endpoint+bucket+prefix share a key, other pools do not.
func TestS3(t *testing.T) {
	for _, c := range []struct {
		url   string
		https bool
		key   string // "" when the url does not parse
	}{
		{"s3://10.0.0.5:9000/meta", false, "s3://10.0.0.5:9000/meta/"},
		{"s3://10.0.0.5:9000/meta/", false, "s3://10.0.0.5:9000/meta/"},
		{"s3://10.0.0.5:9000//meta//", false, "s3://10.0.0.5:9000/meta/"},
		{"s3://Node1.Example:9000/Meta/p", false, "s3://node1.example:9000/meta/p/"},
		{"s3://node1.example.:9000/meta/p/", false, "s3://node1.example:9000/meta/p/"},
		{"s3://node1.example./meta", false, "s3://node1.example/meta/"},
		{"s3://h:80/meta/p", false, "s3://h/meta/p/"},
		{"s3://h:/meta/p", false, "s3://h/meta/p/"},
		{"s3://h:443/meta/p", true, "s3://h/meta/p/"},
		{"s3://h:443/meta/p", false, "s3://h:443/meta/p/"}, // not the default port over http
		{"s3://h:8080/meta", false, "s3://h:8080/meta/"},
		{"s3://h/meta/a//b/./c/", false, "s3://h/meta/a/b/c/"},
		{"s3://h/meta/a/../b", false, "s3://h/meta/b/"},
		{"s3://h/meta/CaseKept", false, "s3://h/meta/CaseKept/"}, // keys are case-sensitive
		{"s3://[::1]:9000/meta", false, "s3://[::1]:9000/meta/"},
		{"s3://[::1]:80/meta", false, "s3://[::1]/meta/"},
		// One endpoint, other spellings: a port with leading zeros, an IP
		// address not in its canonical form.
		{"s3://127.0.0.1:09000/meta", false, "s3://127.0.0.1:9000/meta/"},
		{"s3://[0:0::1]:9000/meta", false, "s3://[::1]:9000/meta/"},
		{"s3://[0:0::1]/meta", false, "s3://[::1]/meta/"},
		{"s3://h:0080/meta", false, "s3://h/meta/"},
		{"s3://h:99999/meta", false, ""},
		{"s3://h:x/meta", false, ""},
		{"s3://h", false, ""},
		{"s3:///meta", false, ""},
		{"s3://h/", false, ""},
		{"s3://h//", false, ""},
	} {
		id, err := S3(c.url, c.https)
		switch {
		case c.key == "" && err == nil:
			t.Errorf("S3(%q, %v) = %q, want an error", c.url, c.https, id.Key)
		case c.key != "" && err != nil:
			t.Errorf("S3(%q, %v): %v", c.url, c.https, err)
		case c.key != "" && (id.Key != c.key || id.Kind != KindS3 || id.Spec != c.url):
			t.Errorf("S3(%q, %v) = %+v, want key %q", c.url, c.https, id, c.key)
		}
	}
}

// TestDistinct: every alias of one directory or s3:// pool is refused
// with both spellings; different pools pass.
func TestDistinct(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src", "tgt", "other/deep"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(root, "rellink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "other", "deep"), filepath.Join(root, "deeplink")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, c := range []struct {
		name  string
		specs []string
		twin  [2]int // positions of the pair; {0, 0} when distinct
	}{
		{"distinct dirs", []string{"src", "tgt", "other/deep"}, [2]int{}},
		{"distinct s3", []string{"s3://h:9000/meta", "s3://h:9000/other/p", "s3://h:9001/meta", "s3://h:9000/meta2"}, [2]int{}},
		{"distinct sibling dirs", []string{"src", "srcx"}, [2]int{}},
		{"dir and s3", []string{"src", "s3://h/src"}, [2]int{}},
		{"same spelling", []string{"src", "src"}, [2]int{0, 1}},
		{"dir: prefix", []string{"src", "dir:src"}, [2]int{0, 1}},
		{"trailing slash", []string{"src", "./src/"}, [2]int{0, 1}},
		{"absolute", []string{"src", filepath.Join(root, "src")}, [2]int{0, 1}},
		{"dot dot", []string{"src", "dir:tgt/../src"}, [2]int{0, 1}},
		{"symlink", []string{"src", "link"}, [2]int{0, 1}},
		{"relative symlink", []string{"dir:rellink", "src"}, [2]int{0, 1}},
		// Lexically root/deep (which does not exist); really root/other/deep.
		{"dot dot after a symlink", []string{"src", "other/deep", "dir:deeplink/../deep"}, [2]int{1, 2}},
		{"two targets", []string{"src", "tgt", "other/deep", "./tgt/"}, [2]int{1, 3}},
		{"s3 aliases", []string{"s3://H:9000/meta/p", "s3://h:9000/meta//p/"}, [2]int{0, 1}},
		{"missing dir, same text", []string{"gone", "./gone/"}, [2]int{0, 1}},
		{"s3 port spelling", []string{"s3://127.0.0.1:9000/meta", "s3://127.0.0.1:09000/meta"}, [2]int{0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ids, err := Distinct(c.specs)
			if c.twin == [2]int{} {
				if err != nil || len(ids) != len(c.specs) {
					t.Fatalf("Distinct(%q) = %d ids, %v; want all distinct", c.specs, len(ids), err)
				}
				return
			}
			var tw *TwinError
			if !errors.As(err, &tw) || !errors.Is(err, ErrSamePool) {
				t.Fatalf("Distinct(%q) = %v, want a TwinError", c.specs, err)
			}
			if [2]int{tw.First, tw.Second} != c.twin || tw.A.Spec != c.specs[c.twin[0]] || tw.B.Spec != c.specs[c.twin[1]] {
				t.Fatalf("Distinct(%q): pair %d,%d (%q, %q), want %v", c.specs, tw.First, tw.Second, tw.A.Spec, tw.B.Spec, c.twin)
			}
		})
	}
}

// TestSameFile: two keys the resolver kept apart still name one directory
// when device and inode agree (a bind mount, say).
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.Stat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := ID{Spec: "a", Key: "dir:/mnt/a", file: st}
	for _, c := range []struct {
		b    ID
		same bool
	}{
		{ID{Spec: "b", Key: "dir:/mnt/b", file: st}, true},
		{ID{Spec: "b", Key: "dir:/mnt/b", file: other}, false},
		{ID{Spec: "b", Key: "dir:/mnt/b"}, false},
		{ID{Spec: "b", Key: "dir:/mnt/a"}, true},
	} {
		if got := a.Same(c.b); got != c.same {
			t.Errorf("Same(%+v) = %v, want %v", c.b, got, c.same)
		}
	}
}

func TestOfRefuses(t *testing.T) {
	for _, spec := range []string{"", "dir:", "seaweedfs://h:8888", "http://h/b", "s3://h"} {
		if _, err := Of(spec); err == nil {
			t.Errorf("Of(%q): no error", spec)
		}
	}
}

// A pool inside another is refused as a twin is (ErrSamePool), naming
// which lies inside which: the inner one is removed with the outer, and a
// directory pool's files are the other's too.
func TestDistinctNested(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src/tgt", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	for _, c := range []struct {
		name  string
		specs []string
		inner int
		msg   string
	}{
		{"target inside the source", []string{"src", "src/tgt"}, 1, `"src/tgt" lies inside "src"`},
		{"source inside a target", []string{"src/tgt", "other", "dir:src/"}, 0, `"src/tgt" lies inside "dir:src/"`},
		{"through dot dot", []string{"src/tgt/..", "src/tgt"}, 1, `"src/tgt" lies inside "src/tgt/.."`},
		{"s3 prefix inside a bucket", []string{"s3://h:9000/meta", "s3://h:9000/meta/p"}, 1, `"s3://h:9000/meta/p" lies inside "s3://h:9000/meta"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Distinct(c.specs)
			var tw *TwinError
			if !errors.As(err, &tw) || !errors.Is(err, ErrSamePool) || !tw.Nested || tw.Inner != c.inner {
				t.Fatalf("Distinct(%q) = %#v, want nested with %d inside", c.specs, err, c.inner)
			}
			if got := err.Error(); !strings.Contains(got, c.msg) {
				t.Errorf("error %q, want %q", got, c.msg)
			}
		})
	}
}
