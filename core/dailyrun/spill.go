package dailyrun

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"

	"github.com/bits-and-blooms/bloom/v3"
)

// Memory bounds of the pass's key tables, in entries (about 40 bytes each
// in memory, 24 in a spill file): the targets dispatched this pass (65,536,
// about 3 MiB), and per cold-start shard the keys its recovery walk left
// pending or unsettled (8,192 each, about 10 MiB over 16 shards). A cold
// pass over 1M versions dispatches about 500k targets; past the bound the
// entries move to spill files, so a 10M-version pass holds what a 1M one
// does plus about 1.3 bytes per spilled entry (each run's Bloom filter and
// block index). Lower bounds cost more spill reads: at 1M the tables cost
// a cold pass about 5 CPU-seconds (Bloom tests and block reads).
const (
	seenMemMax     = 1 << 16
	coldKeysMemMax = 1 << 13
)

// memMax is bound, or cfg's test override.
func memMax(cfg Config, bound int) int {
	if cfg.keyMemMax > 0 {
		return cfg.keyMemMax
	}
	return bound
}

// spill is the pass's scratch directory for key tables that outgrow their
// memory bound (Config.SpillDir, else the system's temporary directory).
// The directory is made on the first spill and removed by close; each
// file is unlinked as soon as it is open where the system allows, so a
// killed pass leaves at most an empty directory behind.
type spill struct {
	parent string
	mu     sync.Mutex
	dir    string
	files  []*os.File
}

func newSpill(parent string) *spill { return &spill{parent: parent} }

// create opens a new spill file.
func (sp *spill) create() (*os.File, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.dir == "" {
		dir, err := os.MkdirTemp(sp.parent, "ilmctl-pass-*")
		if err != nil {
			return nil, err
		}
		sp.dir = dir
	}
	f, err := os.CreateTemp(sp.dir, "keys-*")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name()) // where the system refuses, close removes it
	sp.files = append(sp.files, f)
	return f, nil
}

// release closes f, a spill file no table reads any more.
func (sp *spill) release(f *os.File) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if i := slices.Index(sp.files, f); i >= 0 {
		sp.files = slices.Delete(sp.files, i, i+1)
	}
	f.Close()
}

// close closes every spill file and removes the directory; the pass's
// tables must not be used after it.
func (sp *spill) close() error {
	if sp == nil {
		return nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for _, f := range sp.files {
		f.Close()
	}
	sp.files = nil
	if sp.dir == "" {
		return nil
	}
	err := os.RemoveAll(sp.dir)
	sp.dir = ""
	return err
}

// keyTable maps 128-bit key hashes to int64 values: up to memMax in a map,
// the rest in sorted runs written to spill files, each with a Bloom filter
// (1 % false positives) and the first hash of each block of runBlock
// entries kept in memory. A lookup that misses memory costs a filter test
// per run and, when a filter answers maybe, one read of one block. A key
// may have entries in memory and in several runs; each caller decides how
// to combine them (keySet: any; keyDues: the earliest). When a spill file
// cannot be written the table keeps everything in memory from then on:
// correct, only no longer flat.
type keyTable struct {
	sp     *spill
	mem    map[[2]uint64]int64
	memMax int
	runs   []*keyRun
	noMore bool // a spill failed
}

// keyRun is one spill file: n entries of entrySize bytes (the hash's two
// halves and the value, big-endian), sorted by hash. A spill of memory is
// level 0; a merge of runs of level l is level l+1.
type keyRun struct {
	f     *os.File
	n     int
	level int
	first [][2]uint64
	bloom *bloom.BloomFilter
}

const (
	entrySize = 24
	runBlock  = 128
	// mergeFanIn runs of one level merge into one of the next.
	mergeFanIn = 4
)

func newKeyTable(sp *spill, memMax int) *keyTable {
	return &keyTable{sp: sp, mem: map[[2]uint64]int64{}, memMax: max(memMax, 1)}
}

// put sets h's in-memory value, spilling the memory to a new run (level
// 0) once it holds memMax entries. Runs merge by size, as a log-structured
// merge does: mergeFanIn runs of one level become one of the next, so a
// table of n entries has at most mergeFanIn-1 runs per level (a lookup
// tests each run's filter) and each entry is rewritten once per level.
func (t *keyTable) put(h [2]uint64, v int64) {
	t.mem[h] = v
	if len(t.mem) < t.memMax || t.noMore {
		return
	}
	if err := t.spillMem(); err != nil {
		t.noMore = true
		return
	}
	for n := len(t.runs); n >= mergeFanIn; n = len(t.runs) {
		level := t.runs[n-1].level
		if t.runs[n-mergeFanIn].level != level {
			break // levels only fall along runs, so the ones between match too
		}
		if err := t.mergeRuns(n-mergeFanIn, level+1); err != nil {
			t.noMore = true
			return
		}
	}
}

// each calls fn with every value held for h, in memory first, until fn
// returns false. A run that cannot be read stops it with the error.
func (t *keyTable) each(h [2]uint64, fn func(v int64) bool) error {
	if v, ok := t.mem[h]; ok && !fn(v) {
		return nil
	}
	var hb [16]byte
	binary.BigEndian.PutUint64(hb[:8], h[0])
	binary.BigEndian.PutUint64(hb[8:], h[1])
	for i := len(t.runs) - 1; i >= 0; i-- {
		v, ok, err := t.runs[i].get(h, hb[:])
		if err != nil {
			return err
		}
		if ok && !fn(v) {
			return nil
		}
	}
	return nil
}

func cmpHash(a, b [2]uint64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// spillMem writes the in-memory entries to a new run and empties memory.
func (t *keyTable) spillMem() error {
	entries := make([]keyEntry, 0, len(t.mem))
	for h, v := range t.mem {
		entries = append(entries, keyEntry{h, v})
	}
	slices.SortFunc(entries, func(a, b keyEntry) int { return cmpHash(a.h, b.h) })
	w, err := t.newRun(len(entries))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := w.add(e); err != nil {
			return err
		}
	}
	run, err := w.finish()
	if err != nil {
		return err
	}
	t.runs = append(t.runs, run)
	clear(t.mem)
	return nil
}

// mergeRuns replaces the runs from t.runs[from] on by one run of level
// holding their entries, the earliest value of each hash (a keySet's
// values are all 0). It reads each run once, in order, a block at a time.
func (t *keyTable) mergeRuns(from, level int) error {
	total := 0
	merged := t.runs[from:]
	heads := make([]*runReader, 0, len(merged))
	for _, r := range merged {
		total += r.n
		rr := &runReader{r: bufio.NewReaderSize(io.NewSectionReader(r.f, 0, int64(r.n)*entrySize), runBlock*entrySize), left: r.n}
		if err := rr.next(); err != nil {
			return err
		}
		heads = append(heads, rr)
	}
	w, err := t.newRun(total)
	if err != nil {
		return err
	}
	var last keyEntry
	have := false
	for {
		var lo *runReader
		for _, rr := range heads {
			if rr.ok && (lo == nil || cmpHash(rr.cur.h, lo.cur.h) < 0) {
				lo = rr
			}
		}
		if lo == nil {
			break
		}
		e := lo.cur
		if err := lo.next(); err != nil {
			return err
		}
		if have && e.h == last.h {
			last.v = min(last.v, e.v)
			continue
		}
		if have {
			if err := w.add(last); err != nil {
				return err
			}
		}
		last, have = e, true
	}
	if have {
		if err := w.add(last); err != nil {
			return err
		}
	}
	run, err := w.finish()
	if err != nil {
		return err
	}
	for _, r := range merged {
		t.sp.release(r.f)
	}
	run.level = level
	t.runs = append(t.runs[:from], run)
	return nil
}

// keyEntry is one hash and its value.
type keyEntry struct {
	h [2]uint64
	v int64
}

// runReader reads a run's entries in order.
type runReader struct {
	r    *bufio.Reader
	left int
	cur  keyEntry
	ok   bool
}

func (rr *runReader) next() error {
	if rr.left == 0 {
		rr.ok = false
		return nil
	}
	var buf [entrySize]byte
	if _, err := io.ReadFull(rr.r, buf[:]); err != nil {
		return fmt.Errorf("read spill file: %w", err)
	}
	rr.left--
	rr.cur, rr.ok = keyEntry{entryHash(buf[:]), int64(binary.BigEndian.Uint64(buf[16:]))}, true
	return nil
}

// runWriter writes a new run of entries added in hash order.
type runWriter struct {
	run *keyRun
	w   *bufio.Writer
}

// newRun starts a run for up to n entries.
func (t *keyTable) newRun(n int) (*runWriter, error) {
	f, err := t.sp.create()
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	run := &keyRun{f: f, bloom: bloom.NewWithEstimates(uint(max(n, 1)), 0.01),
		first: make([][2]uint64, 0, (n+runBlock-1)/runBlock)}
	return &runWriter{run: run, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

func (rw *runWriter) add(e keyEntry) error {
	if rw.run.n%runBlock == 0 {
		rw.run.first = append(rw.run.first, e.h)
	}
	rw.run.n++
	var buf [entrySize]byte
	binary.BigEndian.PutUint64(buf[:8], e.h[0])
	binary.BigEndian.PutUint64(buf[8:16], e.h[1])
	binary.BigEndian.PutUint64(buf[16:], uint64(e.v))
	rw.run.bloom.Add(buf[:16])
	if _, err := rw.w.Write(buf[:]); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	return nil
}

func (rw *runWriter) finish() (*keyRun, error) {
	if err := rw.w.Flush(); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return rw.run, nil
}

// get reads h's value from the run; hb is h's 16 big-endian bytes.
func (r *keyRun) get(h [2]uint64, hb []byte) (int64, bool, error) {
	if !r.bloom.Test(hb) {
		return 0, false, nil
	}
	b := sort.Search(len(r.first), func(i int) bool { return cmpHash(r.first[i], h) > 0 }) - 1
	if b < 0 {
		return 0, false, nil
	}
	n := min(runBlock, r.n-b*runBlock)
	var block [runBlock * entrySize]byte
	if _, err := r.f.ReadAt(block[:n*entrySize], int64(b)*runBlock*entrySize); err != nil {
		return 0, false, fmt.Errorf("read spill file: %w", err)
	}
	i := sort.Search(n, func(i int) bool { return cmpHash(entryHash(block[i*entrySize:]), h) >= 0 })
	if i == n || entryHash(block[i*entrySize:]) != h {
		return 0, false, nil
	}
	return int64(binary.BigEndian.Uint64(block[i*entrySize+16:])), true, nil
}

func entryHash(e []byte) [2]uint64 {
	return [2]uint64{binary.BigEndian.Uint64(e[:8]), binary.BigEndian.Uint64(e[8:16])}
}

// sorted calls fn with every hash and its earliest value, in hash order,
// and stops at fn's first error. A spilled table is merged into one run
// first; it holds the same entries afterwards.
func (t *keyTable) sorted(fn func(h [2]uint64, v int64) error) error {
	if len(t.runs) == 0 {
		entries := make([]keyEntry, 0, len(t.mem))
		for h, v := range t.mem {
			entries = append(entries, keyEntry{h, v})
		}
		slices.SortFunc(entries, func(a, b keyEntry) int { return cmpHash(a.h, b.h) })
		for _, e := range entries {
			if err := fn(e.h, e.v); err != nil {
				return err
			}
		}
		return nil
	}
	if len(t.mem) > 0 {
		if t.noMore {
			return errors.New("spill: the table could not spill")
		}
		if err := t.spillMem(); err != nil {
			return err
		}
	}
	if len(t.runs) > 1 {
		top := 0
		for _, r := range t.runs {
			top = max(top, r.level)
		}
		if err := t.mergeRuns(0, top+1); err != nil {
			return err
		}
	}
	r := t.runs[0]
	rr := &runReader{r: bufio.NewReaderSize(io.NewSectionReader(r.f, 0, int64(r.n)*entrySize), runBlock*entrySize), left: r.n}
	for {
		if err := rr.next(); err != nil {
			return err
		}
		if !rr.ok {
			return nil
		}
		if err := fn(rr.cur.h, rr.cur.v); err != nil {
			return err
		}
	}
}

// addRun adds entries, 24 bytes each (entrySize) in strictly increasing
// hash order, as one run of its own, without passing them through
// memory. Entries out of order are an error and add nothing: a run's
// lookups search it by hash.
func (t *keyTable) addRun(entries []byte) error {
	n := len(entries) / entrySize
	if n == 0 {
		return nil
	}
	if len(entries)%entrySize != 0 {
		return errors.New("spill: entries cut short")
	}
	for i := 1; i < n; i++ {
		if cmpHash(entryHash(entries[(i-1)*entrySize:]), entryHash(entries[i*entrySize:])) >= 0 {
			return fmt.Errorf("spill: entry %d out of order", i)
		}
	}
	w, err := t.newRun(n)
	if err != nil {
		return err
	}
	for e := entries; len(e) > 0; e = e[entrySize:] {
		if err := w.add(keyEntry{entryHash(e), int64(binary.BigEndian.Uint64(e[16:]))}); err != nil {
			t.sp.release(w.run.f)
			return err
		}
	}
	run, err := w.finish()
	if err != nil {
		t.sp.release(w.run.f)
		return err
	}
	// The level a run of n entries would reach by merging: later spills
	// of memory merge among themselves before they merge into it.
	for size := t.memMax; size < n; size *= mergeFanIn {
		run.level++
	}
	t.runs = append(t.runs, run)
	return nil
}
