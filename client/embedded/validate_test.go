package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// goodDB is a whole filer.db built by Load over several transactions, big
// enough that its buckets span pages, and what its meta pages say.
type goodDB struct {
	data []byte
	meta boltMeta // the meta bbolt uses
	// dataPage is a reachable page that is neither the root nor the
	// freelist: the meta-log bucket's root page.
	dataPage uint64
}

func buildGoodDB(t *testing.T) goodDB {
	t.Helper()
	var objs []string
	for i := range 120 {
		objs = append(objs, fmt.Sprintf(`{"key":"app/%03d.log","versions":[
			{"version_id":"a%d","mtime":"2026-01-01T10:00:00Z","size":10,"etag":"e"},
			{"version_id":"b%d","mtime":"2026-02-01T10:00:00Z","size":10,"etag":"e"}]}`, i, i, i))
	}
	fixture := `{"buckets":[{"name":"logs","versioning":"Enabled","objects":[` + strings.Join(objs, ",") + `]}]}`
	dir := t.TempDir()
	if _, err := Load(context.Background(), dir, strings.NewReader(fixture), LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir, Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // more transactions: both meta pages in use
		if err := f.WriteFile(context.Background(), fmt.Sprintf("/cursor/%d", i), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	var g goodDB
	err = f.db.View(func(tx *bolt.Tx) error {
		g.dataPage = uint64(tx.Bucket(bktMetalog).RootPage())
		return nil
	})
	if err != nil || g.dataPage == 0 {
		t.Fatalf("meta-log root page %d, %v: want a bucket of its own pages", g.dataPage, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if g.data, err = os.ReadFile(filepath.Join(dir, DBFile)); err != nil {
		t.Fatal(err)
	}
	m0, err0 := decodeMeta(g.data, 0)
	m1, err1 := decodeMeta(g.data[m0.pageSize:], 1)
	if err0 != nil || err1 != nil {
		t.Fatalf("good db metas: %v, %v", err0, err1)
	}
	g.meta = m0
	if m1.txid > m0.txid {
		g.meta = m1
	}
	if g.meta.pgid < 8 || g.dataPage == g.meta.root || g.dataPage == g.meta.freelist {
		t.Fatalf("good db too small for the cases: %+v, data page %d", g.meta, g.dataPage)
	}
	return g
}

// placeDB writes data as dir/filer.db with an mtime in the past, so a
// write by Open would show in the mtime as well as the bytes.
func placeDB(t *testing.T, data []byte) (dir string, mtime time.Time) {
	t.Helper()
	dir = t.TempDir()
	path := filepath.Join(dir, DBFile)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	mtime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return dir, mtime
}

// assertUntouched fails unless dir holds just filer.db, with data and mtime.
func assertUntouched(t *testing.T, dir string, data []byte, mtime time.Time) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != DBFile {
		t.Errorf("dir holds %v, want only %s", entries, DBFile)
	}
	path := filepath.Join(dir, DBFile)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("%s changed: %d bytes, was %d", path, len(got), len(data))
	}
	if fi, err := os.Stat(path); err != nil || !fi.ModTime().Equal(mtime) {
		t.Errorf("%s mtime %v (%v), was %v", path, fi.ModTime(), err, mtime)
	}
}

var openModes = []struct {
	name string
	opts Options
}{
	{"read-only", Options{ReadOnly: true}},
	{"must exist", Options{MustExist: true}},
	{"create if missing", Options{}},
}

// TestOpenRefusesDamage: every kind of damage is refused by every kind of
// Open with a DamagedError naming it, in one line, and the file stays as it
// was. The truncated cases would fault (SIGBUS) or panic inside bbolt
// without the checks, which would crash this test binary.
func TestOpenRefusesDamage(t *testing.T) {
	g := buildGoodDB(t)
	ps, hwm := g.meta.pageSize, g.meta.pgid
	garbage := func(n uint64) []byte {
		b := make([]byte, n)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	overwrite := func(at uint64, with []byte) []byte {
		d := bytes.Clone(g.data)
		copy(d[at:], with)
		return d
	}
	bare := func() []byte { // a bbolt database that is not a filer
		path := filepath.Join(t.TempDir(), "bare.db")
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err }); err != nil {
			t.Fatal(err)
		}
		db.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	metaField := func(page, off uint64, v uint32) []byte {
		d := bytes.Clone(g.data)
		ne.PutUint32(d[page*ps+pageHeaderSize+off:], v)
		return d
	}

	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "is empty (0 bytes)"},
		{"shorter than a meta", g.data[:50], "is 50 bytes, too short for a bbolt meta page"},
		{"one page", g.data[:ps], fmt.Sprintf("is %d bytes, shorter than its two %d-byte meta pages", ps, ps)},
		{"two pages", g.data[:2*ps], fmt.Sprintf("uses %d pages of %d bytes", hwm, ps)},
		{"half the pages", g.data[:hwm/2*ps], fmt.Sprintf("is %d bytes, but transaction %d (meta page %d) uses %d pages", hwm/2*ps, g.meta.txid, g.meta.page, hwm)},
		{"one page short of the high-water mark", g.data[:(hwm-1)*ps], fmt.Sprintf("is %d bytes, but transaction %d", (hwm-1)*ps, g.meta.txid)},
		{"mid-page", g.data[:(hwm-2)*ps+100], fmt.Sprintf("not a whole number of %d-byte pages", ps)},
		{"one byte short", g.data[:len(g.data)-1], "not a whole number"},
		{"garbage header", overwrite(0, garbage(ps)), "meta page 0 has no bbolt magic number"},
		{"not a database", bytes.Repeat([]byte("hello, world\n"), 5000), "meta page 0 has no bbolt magic number"},
		{"second meta zeroed", overwrite(ps, make([]byte, 100)), "meta page 1 has no bbolt magic number"},
		{"meta checksum", metaField(0, 44, 0xFFFF), "meta page 0 fails its checksum"}, // high half of pgid
		{"other format version", metaField(1, 4, 3), "meta page 1 has bbolt format version 3, want 2"},
		{"root page garbage", overwrite(g.meta.root*ps, garbage(ps)), fmt.Sprintf("root page %d is not a branch or leaf page", g.meta.root)},
		{"freelist page garbage", overwrite(g.meta.freelist*ps, garbage(ps)), fmt.Sprintf("freelist page %d is not a freelist page", g.meta.freelist)},
		{"data page garbage", overwrite(g.dataPage*ps, garbage(ps)), "fails bbolt's consistency check: assertion failed"},
		{"bbolt database, not a filer", bare(), `holds no "buckets" bucket (not an ilmctl filer?)`},
	}
	for _, tc := range tests {
		for _, mode := range openModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				dir, mtime := placeDB(t, tc.data)
				f, err := Open(dir, mode.opts)
				if err == nil {
					f.Close()
					t.Fatal("Open succeeded")
				}
				msg := err.Error()
				if !errors.Is(err, ErrDamaged) || !strings.HasPrefix(msg, "filer.db is damaged: "+filepath.Join(dir, DBFile)+" ") ||
					!strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "panic") {
					t.Errorf("err = %v\nwant one line matching ErrDamaged, naming the file and %q", err, tc.want)
				}
				assertUntouched(t, dir, tc.data, mtime)
			})
		}
	}
}

// TestOpenAcceptsWholeDB: a good filer opens in every mode, and opening,
// reading and closing it writes nothing; nor does a file cut back to its
// high-water mark (every page in use is still there).
func TestOpenAcceptsWholeDB(t *testing.T) {
	g := buildGoodDB(t)
	hwmBytes := g.meta.pgid * g.meta.pageSize
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"as written", g.data},
		{"cut to the high-water mark", g.data[:hwmBytes]},
	} {
		for _, mode := range openModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				dir, mtime := placeDB(t, tc.data)
				f, err := Open(dir, mode.opts)
				if err != nil {
					t.Fatal(err)
				}
				bs, err := f.ListBuckets(context.Background())
				if err != nil || len(bs) != 1 || bs[0].Name != "logs" {
					t.Errorf("ListBuckets = %v, %v", bs, err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				assertUntouched(t, dir, tc.data, mtime)
			})
		}
	}
}

// TestOpenReadOnly: read-only opens share the file, write nothing and
// refuse writes; a writer cannot open it meanwhile, and a reader cannot
// while a writer has it.
func TestOpenReadOnly(t *testing.T) {
	g := buildGoodDB(t)
	dir, mtime := placeDB(t, g.data)
	ctx := context.Background()

	r1, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("second read-only open beside the first: %v", err)
	}
	for _, r := range []*Filer{r1, r2} {
		if bs, err := r.ListBuckets(ctx); err != nil || len(bs) != 1 {
			t.Errorf("ListBuckets = %v, %v", bs, err)
		}
	}
	if err := r1.WriteFile(ctx, "/x", []byte("1")); !errors.Is(err, bolterrors.ErrDatabaseReadOnly) {
		t.Errorf("read-only WriteFile err = %v, want bbolt's ErrDatabaseReadOnly", err)
	}
	if w, err := Open(dir, Options{MustExist: true}); err == nil || !strings.Contains(err.Error(), "in use by another ilmctl process") {
		if w != nil {
			w.Close()
		}
		t.Errorf("writer beside readers: err = %v, want in use", err)
	}
	r1.Close()
	r2.Close()
	assertUntouched(t, dir, g.data, mtime)

	w, err := Open(dir, Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if r, err := Open(dir, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "in use by another ilmctl process") {
		if r != nil {
			r.Close()
		}
		t.Errorf("reader beside a writer: err = %v, want in use", err)
	}
}

// TestOpenReadOnlyNeverCreates: a read-only open of a directory without
// filer.db is ErrNoFiler and creates neither the directory nor the file.
func TestOpenReadOnlyNeverCreates(t *testing.T) {
	empty := t.TempDir()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, dir := range []string{empty, missing} {
		if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrNoFiler) {
			t.Errorf("Open(%s) err = %v, want ErrNoFiler", dir, err)
		}
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("read-only open left %v in %s (%v)", entries, empty, err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only open created %s (stat err %v)", missing, err)
	}
}
