package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const threeBuckets = `{"buckets":[
 {"name":"a","versioning":"Enabled","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z","size":1}]}]},
 {"name":"b","objects":[{"key":"k","versions":[{"mtime":"2026-01-02T00:00:00Z","size":2}]}]},
 {"name":"c","uploads":[{"upload_id":"u","key":"big","initiated":"2026-01-03T00:00:00Z"}]}]}`

// crash is what a hook panics with to stand for a kill at that point: the
// panic unwinds past every tidy-up, as a kill does, while deferred closes
// release files and locks, as the kernel does for a killed process.
type crash struct{}

func crashAt(at LoadPoint) func(LoadPoint) error {
	return func(p LoadPoint) error {
		if p == at {
			panic(crash{})
		}
		return nil
	}
}

// loadCrashing runs Load with hook and reports whether it "crashed".
func loadCrashing(t *testing.T, dir, fixture string, hook func(LoadPoint) error) (crashed bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	if _, err := Load(context.Background(), dir, strings.NewReader(fixture), LoadOptions{Hook: hook}); err != nil {
		t.Fatalf("Load before the crash point: %v", err)
	}
	return false
}

func bucketNames(t *testing.T, dir string) []string {
	t.Helper()
	f, err := Open(dir, Options{MustExist: true})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer f.Close()
	bs, err := f.ListBuckets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return names
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestLoadCrash crashes a load at each point between its first write and
// the rename, then checks what ls and run would find (no filer, or the
// filer as it was) and that the next load succeeds and removes the
// leftover. On the code before Load existed (build in place) the first
// three rows found a valid filer holding fewer buckets than the fixture.
func TestLoadCrash(t *testing.T) {
	cases := []struct {
		name  string
		setup string // "" no DIR; "empty" an empty DIR; "filer" DIR holds a filer with bucket "old"
		at    LoadPoint
	}{
		{"new dir, after the first bucket", "", LoadPoint{Buckets: 1}},
		{"new dir, every bucket written, before commit", "", LoadPoint{Buckets: 3}},
		{"new dir, committed and synced, before rename", "", LoadPoint{Buckets: 3, Durable: true}},
		{"empty dir, after the second bucket", "empty", LoadPoint{Buckets: 2}},
		{"existing filer, after the second bucket", "filer", LoadPoint{Buckets: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "D")
			switch tc.setup {
			case "empty":
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			case "filer":
				if _, err := Load(context.Background(), dir, strings.NewReader(`{"buckets":[{"name":"old"}]}`), LoadOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if !loadCrashing(t, dir, threeBuckets, crashAt(tc.at)) {
				t.Fatalf("the load never reached %+v", tc.at)
			}

			var leftovers []string
			if tc.setup == "filer" {
				if got := bucketNames(t, dir); !slices.Equal(got, []string{"old"}) {
					t.Fatalf("after the crash the filer holds %v, want it unchanged: [old]", got)
				}
				if got := dirNames(t, dir); !slices.Equal(got, []string{DBFile}) {
					t.Fatalf("after the crash %s holds %v, want only %s", dir, got, DBFile)
				}
			} else {
				_, err := Open(dir, Options{MustExist: true})
				var nf *NoFilerError
				if !errors.As(err, &nf) || len(nf.Unfinished) != 1 {
					t.Fatalf("after the crash Open = %v, want no filer naming one unfinished load", err)
				}
				leftovers = nf.Unfinished
				if msg := err.Error(); !strings.Contains(msg, "no filer at "+dir+", only the unfinished load "+leftovers[0]) ||
					nf.Hint() != "run 'ilmctl filer load FIXTURE.json --filer "+dir+"' first" {
					t.Errorf("no-filer message = %q, hint %q", msg, nf.Hint())
				}
				if !strings.HasPrefix(filepath.Base(leftovers[0]), UnfinishedPrefix) {
					t.Errorf("leftover %s is not named %s*", leftovers[0], UnfinishedPrefix)
				}
			}

			res, err := Load(context.Background(), dir, strings.NewReader(threeBuckets), LoadOptions{})
			if err != nil {
				t.Fatalf("load after the crash: %v", err)
			}
			if !slices.Equal(res.Removed, leftovers) || res.Created != (tc.setup != "filer") || res.Buckets != 3 {
				t.Errorf("load after the crash = %+v, want Removed %v", res, leftovers)
			}
			want := []string{"a", "b", "c"}
			if tc.setup == "filer" {
				want = []string{"a", "b", "c", "old"}
			}
			if got := bucketNames(t, dir); !slices.Equal(got, want) {
				t.Errorf("buckets = %v, want %v", got, want)
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{DBFile}) {
				t.Errorf("%s holds %v, want only %s", dir, got, DBFile)
			}
		})
	}
}

// TestLoadFailure: a load that fails (not crashes) tidies up after itself.
func TestLoadFailure(t *testing.T) {
	failing := func(at LoadPoint) func(LoadPoint) error {
		return func(p LoadPoint) error {
			if p == at {
				return errors.New("injected")
			}
			return nil
		}
	}
	cases := []struct {
		name    string
		fixture string
		hook    func(LoadPoint) error
		want    string
	}{
		{"bad fixture", `{"buckets":[{"name":"b","colour":"red"}]}`, nil, `bucket b: unknown field "colour": want one of name, versioning, object_lock, lifecycle_xml, objects, uploads (byte 24)`},
		{"error after a bucket", threeBuckets, failing(LoadPoint{Buckets: 2}), "fixture: injected"},
		{"error before the rename", threeBuckets, failing(LoadPoint{Buckets: 3, Durable: true}), "injected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "D")
			_, err := Load(context.Background(), dir, strings.NewReader(tc.fixture), LoadOptions{Hook: tc.hook})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the failed load left %s behind (stat: %v)", dir, err)
			}
		})
	}
}

// TestLoadLocking: a load in progress keeps a second one out, and where the
// directory cannot be locked an unfinished load is refused, not removed.
func TestLoadLocking(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	unlock, locked, err := lockDir(dir)
	if err != nil || !locked {
		t.Fatalf("lockDir = %v, %v: this test needs a file system with flock", locked, err)
	}
	_, err = Load(ctx, dir, strings.NewReader(threeBuckets), LoadOptions{})
	if !errors.Is(err, ErrLoadBusy) || !strings.Contains(err.Error(), "wait for it to finish") {
		t.Errorf("load while another holds the lock: %v, want ErrLoadBusy", err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("the refused load wrote %v", got)
	}
	unlock()

	leftover := filepath.Join(dir, UnfinishedPrefix+"123")
	if err := os.WriteFile(leftover, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = load(ctx, dir, strings.NewReader(threeBuckets), false, LoadOptions{})
	var ue *UnfinishedLoadError
	if !errors.As(err, &ue) || !strings.Contains(ue.Hint(), "remove it (rm "+leftover+") and load again") {
		t.Errorf("unlocked load beside a leftover: %v, want UnfinishedLoadError naming it", err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{filepath.Base(leftover)}) {
		t.Errorf("the refused load left %v, want only the leftover", got)
	}
}
