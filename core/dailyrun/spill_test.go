package dailyrun

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A keySet and a keyDues answer the same whether their entries are in
// memory or spilled to files, for every memory bound from one entry (a
// run per entry) to more than they hold (no spill).
func TestKeyTablesSpill(t *testing.T) {
	for _, tc := range []struct{ memMax, n int }{{1, 50}, {16, 2000}, {128, 2000}, {1000, 2000}, {5000, 2000}} {
		memMax, n := tc.memMax, tc.n
		t.Run(fmt.Sprint(memMax), func(t *testing.T) {
			sp := newSpill(t.TempDir())
			defer sp.close()
			set, dues := newKeySet(sp, memMax), newKeyDues(sp, memMax)
			for i := range n {
				k := fmt.Sprintf("bucket\x00key-%05d", i)
				if !set.add(k) {
					t.Fatalf("add(%q) = false for a new member", k)
				}
				// Three notes per key, the earliest in the middle: a note
				// may land in memory while an earlier one is spilled.
				dues.note(k, int64(i)+10)
				dues.note(k, int64(i)+1)
				dues.note(k, int64(i)+5)
			}
			for i := range n {
				k := fmt.Sprintf("bucket\x00key-%05d", i)
				if set.add(k) {
					t.Errorf("add(%q) = true for a member", k)
				}
				if ok, err := set.has(k); !ok || err != nil {
					t.Errorf("has(%q) = %v, %v", k, ok, err)
				}
				if d, ok, err := dues.get(k); d != int64(i)+1 || !ok || err != nil {
					t.Errorf("get(%q) = %d, %v, %v; want %d", k, d, ok, err, i+1)
				}
				other := fmt.Sprintf("bucket\x00other-%05d", i)
				if ok, err := set.has(other); ok || err != nil {
					t.Errorf("has(%q) = %v, %v for a non-member", other, ok, err)
				}
				if _, ok, err := dues.get(other); ok || err != nil {
					t.Errorf("get(%q) found a time, %v", other, err)
				}
			}
			if spilled := len(set.t.runs) > 0; spilled != (memMax <= n) {
				t.Errorf("memory bound %d: %d runs spilled for %d members", memMax, len(set.t.runs), n)
			}
			for _, tab := range []*keyTable{set.t, dues.t} {
				perLevel := map[int]int{}
				for _, r := range tab.runs {
					if perLevel[r.level]++; perLevel[r.level] >= mergeFanIn {
						t.Errorf("%d runs of level %d: they were not merged", perLevel[r.level], r.level)
					}
				}
			}
			if len(set.t.mem) >= memMax {
				t.Errorf("%d members in memory, bound %d", len(set.t.mem), memMax)
			}
		})
	}
}

// A table whose spill directory cannot be made keeps everything in
// memory and still answers right; close leaves nothing behind either way.
func TestKeyTableSpillFails(t *testing.T) {
	parent := t.TempDir()
	sp := newSpill(filepath.Join(parent, "missing"))
	set := newKeySet(sp, 2)
	for i := range 10 {
		set.add(fmt.Sprint(i))
	}
	for i := range 10 {
		if ok, err := set.has(fmt.Sprint(i)); !ok || err != nil {
			t.Errorf("has(%d) = %v, %v", i, ok, err)
		}
	}
	if len(set.t.runs) != 0 || len(set.t.mem) != 10 {
		t.Errorf("%d runs, %d in memory; want everything in memory", len(set.t.runs), len(set.t.mem))
	}
	if err := sp.close(); err != nil {
		t.Fatal(err)
	}

	sp = newSpill(parent)
	set = newKeySet(sp, 1)
	set.add("a")
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Fatalf("spill directory not made: %v", entries)
	}
	if err := sp.close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("close left %v", entries)
	}
}

// Passes whose key tables spill every three entries (the dispatched targets,
// the cold walk's pending and unsettled keys) delete, list in a dry run,
// and leave exactly what passes holding them in memory do, day by day
// over the generated histories of the summary's differential test; and
// each pass removes its spill directory.
func TestSpilledPassesMatchInMemory(t *testing.T) {
	snap := diffSnapshot()
	for _, tc := range []struct {
		name     string
		seed     uint64
		interval time.Duration
	}{
		{"walk daily", 5, 0},
		{"walk weekly", 6, 7 * day},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := ts("2026-03-01T06:00:00Z")
			spilled, inMem := newDiffWorld(tc.seed, start), newDiffWorld(tc.seed, start)
			spillParent := t.TempDir()
			sawSpill := false
			sameDays(start, 12, spilled, inMem, func(d int, now time.Time) {
				spill := func(c *Config) {
					c.WalkerInterval, c.keyMemMax, c.SpillDir = tc.interval, 3, spillParent
					c.OnAction = func(Action) {
						if entries, _ := os.ReadDir(spillParent); len(entries) > 0 {
							sawSpill = true
						}
					}
				}
				plain := func(c *Config) { c.WalkerInterval = tc.interval }
				dryRun := func(mod func(*Config)) func(*Config) {
					return func(c *Config) { mod(c); c.DryRun = true }
				}
				ds := runStoreLogged(t, spilled.st, snap, now, dryRun(spill))
				dm := runStoreLogged(t, inMem.st, snap, now, dryRun(plain))
				if diff := cmp.Diff(actionSet(dm), actionSet(ds)); diff != "" {
					t.Fatalf("day %d: dry-run actions differ (-in memory +spilled):\n%s", d, diff)
				}
				rs := runStoreLogged(t, spilled.st, snap, now, spill)
				rm := runStoreLogged(t, inMem.st, snap, now, plain)
				for _, r := range []*Result{rs, rm} {
					if r.Status() != StatusOK {
						t.Fatalf("day %d: status %s", d, r.Status())
					}
				}
				if diff := cmp.Diff(actionSet(rm), actionSet(rs)); diff != "" {
					t.Fatalf("day %d: actions differ (-in memory +spilled):\n%s", d, diff)
				}
				if diff := cmp.Diff(inMem.st.remaining(), spilled.st.remaining()); diff != "" {
					t.Fatalf("day %d: remaining differ (-in memory +spilled):\n%s", d, diff)
				}
				if entries, _ := os.ReadDir(spillParent); len(entries) != 0 {
					t.Fatalf("day %d: the pass left %v in its spill directory", d, entries)
				}
			})
			if !sawSpill {
				t.Error("no pass spilled: the test exercised nothing")
			}
		})
	}
}

// actionSet is every action of a pass with its outcome, sorted.
func actionSet(res *Result) []string {
	var out []string
	for _, a := range res.Actions {
		out = append(out, fmt.Sprintf("%s %s %s/%s@%s%s %s", a.Source, a.Kind, a.Bucket, a.Key, a.VersionID, a.UploadID, a.Outcome))
	}
	sort.Strings(out)
	return out
}

// BenchmarkKeySetSpill adds b.N new members to a dispatched-target set at
// its real memory bound, as a pass that dispatches b.N targets does (each
// preceded by the two membership tests dispatch makes), spills and merges
// included: run with -benchtime=5000000x for a 10M-version cold pass.
func BenchmarkKeySetSpill(b *testing.B) {
	sp := newSpill(b.TempDir())
	defer sp.close()
	set := newKeySet(sp, seenMemMax)
	b.ReportAllocs()
	for i := range b.N {
		k := fmt.Sprintf("b1-enabled\x00k/%08d.dat\x00v%d\x00", i/3, i%3)
		if ok, _ := set.has(k); ok {
			b.Fatal("member before it was added")
		}
		if ok, _ := set.has(k); ok {
			b.Fatal("member before it was added")
		}
		if !set.add(k) {
			b.Fatal("add of a new member returned false")
		}
	}
	b.ReportMetric(float64(len(set.t.runs)), "runs")
}

// A stable keyDues lists every key once, in hash order, with its earliest
// time, whether its entries are in memory, spilled or both, and answers
// the same afterwards; a new table fed that list, one entry at a time or
// as one run (a keys file round trip, walkkeys.go), answers the same too,
// and a list out of order is refused whole.
func TestStableKeyDuesSorted(t *testing.T) {
	for _, tc := range []struct{ memMax, n int }{{1, 40}, {16, 1000}, {5000, 1000}} {
		t.Run(fmt.Sprint(tc.memMax), func(t *testing.T) {
			sp := newSpill(t.TempDir())
			defer sp.close()
			dues := newStableKeyDues(sp, tc.memMax)
			for i := range tc.n {
				k := fmt.Sprintf("b\x00k-%05d", i)
				dues.note(k, int64(i)+10)
				dues.note(k, int64(i)+1)
			}
			again, asRun := newStableKeyDues(sp, tc.memMax), newStableKeyDues(sp, tc.memMax)
			var prev [2]uint64
			var list []byte
			n := 0
			err := dues.t.sorted(func(h [2]uint64, v int64) error {
				if n > 0 && cmpHash(prev, h) >= 0 {
					t.Fatalf("entry %d out of order", n)
				}
				prev, n = h, n+1
				again.noteHash(h, v)
				var e [entrySize]byte
				binary.BigEndian.PutUint64(e[:8], h[0])
				binary.BigEndian.PutUint64(e[8:16], h[1])
				binary.BigEndian.PutUint64(e[16:], uint64(v))
				list = append(list, e[:]...)
				return nil
			})
			if err != nil || n != tc.n {
				t.Fatalf("sorted: %d entries, %v; want %d", n, err, tc.n)
			}
			if err := asRun.t.addRun(list); err != nil {
				t.Fatal(err)
			}
			swapped := slices.Clone(list)
			copy(swapped[:entrySize], list[entrySize:2*entrySize])
			copy(swapped[entrySize:2*entrySize], list[:entrySize])
			if refused := newStableKeyDues(sp, tc.memMax); refused.t.addRun(swapped) == nil || len(refused.t.runs) != 0 {
				t.Fatal("addRun took entries out of order")
			}
			for i := range tc.n {
				k := fmt.Sprintf("b\x00k-%05d", i)
				for _, d := range []*keyDues{dues, again, asRun} {
					if got, ok, err := d.get(k); got != int64(i)+1 || !ok || err != nil {
						t.Fatalf("get(%q) = %d, %v, %v; want %d", k, got, ok, err, i+1)
					}
				}
			}
		})
	}
}

// stableKeyHash is the same in every process and every release: a keys
// file written by one pass is read by another, and a hash that changed
// between them would find none of the pending keys the file holds, so
// their lookups would be skipped. Changing it needs a new walkKeysVersion.
func TestStableKeyHashIsPinned(t *testing.T) {
	want := [2]uint64{0xc95651935c9c2d3b, 0x5a052f8fba0cd494} // FNV-128a of "bucket\x00key"
	if got := stableKeyHash(lookupKey("bucket", "key")); got != want {
		t.Fatalf("stableKeyHash = %#x, want %#x", got, want)
	}
}
