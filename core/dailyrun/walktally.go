package dailyrun

import (
	"sync"
	"sync/atomic"
)

// walkTally is how far a shard's walk got, for the report and the
// per-shard walk gauges (docs/design/daily-run.md#walk-progress): the keys
// of the shard the walk listed this pass, and the buckets of the walk's
// view whose objects and uploads are done for the shard, every due match
// of the shard there completed. A continued recovery walk counts the
// buckets its earlier passes finished too, so the count grows pass after
// pass until the walk completes; the keys are this pass's only.
type walkTally struct {
	keys  atomic.Int64
	total int

	mu   sync.Mutex
	done map[string]BucketPos // only the Done flags are used
}

// startTally sizes s's tally for a walk over buckets, counting as done
// those from finished (a continued recovery walk's saved position).
func (s *shardRun) startTally(buckets []string, from map[string]BucketPos) {
	t := &walkTally{total: len(buckets), done: make(map[string]BucketPos, len(buckets))}
	for _, b := range buckets {
		if pos, ok := from[b]; ok {
			t.done[b] = BucketPos{ObjectsDone: pos.ObjectsDone, UploadsDone: pos.UploadsDone}
		}
	}
	s.tally = t
}

// walked counts n keys of the shard the walk listed.
func (t *walkTally) walked(n int) {
	if t != nil {
		t.keys.Add(int64(n))
	}
}

// finished records that every due match of the shard in bucket's phase
// completed.
func (t *walkTally) finished(bucket string, ph walkPhase) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.done[bucket]
	b.advance(ph, "", true)
	t.done[bucket] = b
}

// bucketsDone counts the buckets whose objects and uploads are both done.
func (t *walkTally) bucketsDone() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, b := range t.done {
		if b.ObjectsDone && b.UploadsDone {
			n++
		}
	}
	return n
}

// WalkPoint is where a continued recovery walk picked up: the first bucket,
// in the walk's order, that its earlier passes had not finished, and in it
// the last key whose deletes had all completed (After; "" means from the
// bucket's first key). Uploads says the bucket's objects were done and its
// incomplete uploads are listed again from their start.
type WalkPoint struct {
	Bucket  string
	After   string
	Uploads bool
}

// resumePoint is where a walk over buckets (in listing order) continues
// from saved; nil when saved finished every bucket.
func resumePoint(buckets []string, saved map[string]BucketPos) *WalkPoint {
	for _, b := range buckets {
		pos := saved[b]
		switch {
		case !pos.ObjectsDone:
			return &WalkPoint{Bucket: b, After: pos.ObjectsAfter}
		case !pos.UploadsDone:
			return &WalkPoint{Bucket: b, Uploads: true}
		}
	}
	return nil
}
