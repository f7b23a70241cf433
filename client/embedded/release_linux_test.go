//go:build linux

package embedded

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// mappedRssKiB is how much of path's memory map is resident in this
// process, from /proc/self/smaps.
func mappedRssKiB(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") {
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			continue
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); in && ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("smaps %q: %v", line, err)
			}
			total += kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// openBigRecords is a filer holding bucket "b" with n keys k00000…, each
// one version whose size is its index and whose tag makes the record
// about 4 KB.
func openBigRecords(t *testing.T, n int) *Filer {
	t.Helper()
	tag := strings.Repeat("t", 4000)
	var objs []map[string]any
	for i := 0; i < n; i++ {
		objs = append(objs, map[string]any{"key": fmt.Sprintf("k%05d", i), "versions": []any{map[string]any{
			"version_id": "v", "mtime": "2026-01-01T00:00:00Z", "size": i, "etag": "e", "tags": map[string]string{"t": tag}}}})
	}
	fixture, err := json.Marshal(map[string]any{"buckets": []any{map[string]any{"name": "b", "versioning": "Enabled", "objects": objs}}})
	if err != nil {
		t.Fatal(err)
	}
	f := openTest(t, Options{})
	loadTest(t, f, string(fixture))
	return f
}

// TestReleaseMapped: after a read of the whole database its pages are
// resident; releaseMapped gives them back, and every record still reads
// the same afterwards.
func TestReleaseMapped(t *testing.T) {
	const objects = 3000
	f := openBigRecords(t, objects) // ~12 MB of records
	path := filepath.Join(f.Dir(), DBFile)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := openDB(filepath.Dir(path), path, modeReadWrite) // no releaser running
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	read := func() (n int, sizes int64) {
		t.Helper()
		err := db.View(func(tx *bolt.Tx) error {
			return tx.Bucket(bktObjects).Bucket([]byte("b")).ForEach(func(k, v []byte) error {
				var o objectRecord
				if err := decode("object", v, &o); err != nil {
					return err
				}
				n++
				sizes += o.Versions[0].Size
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return n, sizes
	}
	n, sizes := read()
	before := mappedRssKiB(t, path)
	if before < 8<<10 {
		t.Fatalf("after reading every record %d KiB of filer.db resident, want the ~12 MB read", before)
	}
	if err := releaseMapped(db); err != nil {
		t.Fatal(err)
	}
	if after := mappedRssKiB(t, path); after > 1<<10 {
		t.Errorf("after releaseMapped %d KiB of filer.db resident (was %d), want under 1 MiB", after, before)
	}
	if n2, sizes2 := read(); n2 != n || sizes2 != sizes || n != objects {
		t.Errorf("after release read %d records (sizes %d), before %d (%d), want %d", n2, sizes2, n, sizes, objects)
	}
}

// TestAfterReadReleases: with the timer stopped, lookups alone give the
// mapped pages back once every releaseReadEvery reads past the budget,
// and every lookup still reads its record.
func TestAfterReadReleases(t *testing.T) {
	const objects = 2 * releaseReadEvery
	f := openBigRecords(t, objects) // ~2 MB of records
	f.release.close()               // only afterRead releases from here on
	f.readBudget = 0                // any resident page is over it
	path := filepath.Join(f.Dir(), DBFile)
	lookup := func(i int) {
		t.Helper()
		obj, found, err := f.LookupObject(t.Context(), "b", fmt.Sprintf("k%05d", i))
		if err != nil || !found || obj.Versions[0].Size != int64(i) {
			t.Fatalf("lookup %d: found %v, %v, %+v", i, found, err, obj.Versions)
		}
	}
	f.reads.Store(0)
	for i := range releaseReadEvery - 1 {
		lookup(i)
	}
	before := mappedRssKiB(t, path)
	if before < 512 {
		t.Fatalf("after %d lookups %d KiB of filer.db resident, want the ~1 MB read", releaseReadEvery-1, before)
	}
	lookup(releaseReadEvery - 1) // the releaseReadEvery-th read releases
	if after := mappedRssKiB(t, path); after > before/4 {
		t.Errorf("after the %dth lookup %d KiB of filer.db resident (was %d): not released", releaseReadEvery, after, before)
	}
	for i := releaseReadEvery; i < objects; i++ {
		lookup(i)
	}
}
