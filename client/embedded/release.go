package embedded

import (
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// How often an open filer gives back the pages of filer.db it has read
// (releaseMapped): releaseEvery while it serves a pass, releaseCheckEvery
// while bbolt's consistency check reads the whole file at disk speed.
const (
	releaseEvery      = 20 * time.Millisecond
	releaseCheckEvery = 5 * time.Millisecond
)

// mapReleaser keeps a process's resident memory from growing with the
// database it reads: bbolt maps the whole of filer.db, and every page a
// walk or replay touches stays resident (and counts in RSS) until the
// process ends, so a pass over a 1M-version filer would hold the ~1 GB
// file. Every releaseEvery it drops the mapped pages (see releaseMapped);
// the pages a pass reads again come back from the page cache. Peak RSS
// then stays near the heap plus what the pass touched in one interval.
//
// A release over a map with few resident pages costs well under a
// millisecond, and the pages read again after it (the B+tree's branch
// pages, mostly) come back as minor faults.
type mapReleaser struct {
	stop chan struct{}
	once sync.Once
	done sync.WaitGroup
}

// startMapReleaser runs releaseMapped on db every interval until
// stopped. A failed release is not an error of the filer: memory is left
// to the kernel, as without the releaser.
func startMapReleaser(db *bolt.DB, every time.Duration) *mapReleaser {
	return startReleaser(func() { _ = releaseMapped(db) }, every)
}

// startPinnedReleaser releases the map of tx's database, which tx keeps
// in place, without a transaction of its own: bbolt's Tx.Check loads the
// freelist of a read-only database lazily, racing with any transaction
// begun while it runs. It must be closed before tx ends.
func startPinnedReleaser(tx *bolt.Tx, every time.Duration) *mapReleaser {
	addr, size := tx.DB().Info().Data, tx.Size()
	return startReleaser(func() { _ = releaseRange(addr, size) }, every)
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
