package embedded

import (
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// How often an open filer looks at how much of filer.db it holds
// resident: releaseEvery while it serves a pass, releaseCheckEvery while
// bbolt's consistency check reads the whole file at disk speed. It gives
// the pages back (releaseMapped) once the process's file-backed resident
// memory (its binary's pages included, about 25 MiB) passes
// releaseBudget.
const (
	releaseEvery      = 20 * time.Millisecond
	releaseCheckEvery = 5 * time.Millisecond
	releaseBudget     = 48 << 20
)

// releaseReadEvery is how many reads (lookups, listing pages, meta-log
// batches) pass between two looks of afterRead at the resident memory.
const releaseReadEvery = 256

// afterRead gives the mapped pages back from the reading goroutine itself,
// once every releaseReadEvery reads, when the file-backed resident memory
// is over releaseBudget. The timer (mapReleaser) alone falls behind when a
// busy machine starves it while a pass reads all over a large file: a 10M-
// version pass on a loaded machine peaked at 482 MiB, 329 of it mapped
// pages. It must be called outside any transaction: a read transaction
// begun inside another can wait behind a writer that waits for the outer
// one.
func (f *Filer) afterRead() {
	if f.reads.Add(1)%releaseReadEvery == 0 && fileResidentOver(f.readBudget) {
		_ = releaseMapped(f.db)
	}
}

// mapReleaser keeps a process's resident memory from growing with the
// database it reads: bbolt maps the whole of filer.db, and every page a
// walk or replay touches stays resident (and counts in RSS) until the
// process ends, so a pass over a 1M-version filer would hold most of the
// ~640 MB file. When the file-backed part of the resident set passes
// releaseBudget it drops the mapped pages (see releaseMapped); the pages a
// pass reads again come back from the page cache as minor faults. Peak
// RSS then stays near the heap plus the budget.
//
// Releasing on a budget rather than on every tick matters: the pages read
// again after a release (the B+tree's branch pages, mostly) each cost a
// fault, and releasing every 20ms cost a 1M-version cold pass about 16
// CPU-seconds (most of it system time); on the budget a release comes
// once per ~20 MiB of pages newly read. `filer load` releases after its
// commits instead (streamWriter.commit), on the same budget.
type mapReleaser struct {
	stop chan struct{}
	once sync.Once
	done sync.WaitGroup
}

// startMapReleaser runs releaseMapped on db every interval until
// stopped. A failed release is not an error of the filer: memory is left
// to the kernel, as without the releaser.
func startMapReleaser(db *bolt.DB, every time.Duration) *mapReleaser {
	return startReleaser(func() {
		if fileResidentOver(releaseBudget) {
			_ = releaseMapped(db)
		}
	}, every)
}

// startPinnedReleaser releases the map of tx's database, which tx keeps
// in place, without a transaction of its own: bbolt's Tx.Check loads the
// freelist of a read-only database lazily, racing with any transaction
// begun while it runs. It must be closed before tx ends.
func startPinnedReleaser(tx *bolt.Tx, every time.Duration) *mapReleaser {
	addr, size := tx.DB().Info().Data, tx.Size()
	return startReleaser(func() {
		if fileResidentOver(releaseBudget) {
			_ = releaseRange(addr, size)
		}
	}, every)
}

func startReleaser(release func(), every time.Duration) *mapReleaser {
	r := &mapReleaser{stop: make(chan struct{})}
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				release()
			}
		}
	}()
	return r
}

// close stops the releaser and waits for a release in progress, so the
// database can be closed after it returns. It may be called again.
func (r *mapReleaser) close() {
	if r == nil {
		return
	}
	r.once.Do(func() { close(r.stop) })
	r.done.Wait()
}
