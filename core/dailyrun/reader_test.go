package dailyrun

import (
	"context"
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Past its limit a queue makes the fan-out wait for the shard instead of
// holding more events: every event arrives, in order, and the stream is
// complete.
func TestShardQueueWaitsForTheShard(t *testing.T) {
	q := newShardQueue(2)
	go q.pump()
	const n = 3*shardChanSize + 5
	go func() {
		for i := int64(1); i <= n; i++ {
			q.push(context.Background(), filer.Event{TsNs: i})
			q.mu.Lock()
			held := len(q.buf)
			q.mu.Unlock()
			if held > 2 {
				t.Errorf("queue holds %d events beyond its channel, limit 2", held)
			}
		}
		q.close(true)
	}()
	var got []int64
	for ev := range q.ch {
		got = append(got, ev.TsNs)
	}
	for i, ts := range got {
		if ts != int64(i+1) {
			t.Fatalf("event %d is %d: out of order", i, ts)
		}
	}
	complete, truncated := q.state()
	if len(got) != n || !complete || truncated {
		t.Fatalf("got %d of %d complete=%v truncated=%v", len(got), n, complete, truncated)
	}
}

// A shard that stops reading (done closed) releases its pump, which would
// otherwise block on the full channel forever, and the fan-out, which
// would otherwise wait for room.
func TestShardQueueReleasedByDone(t *testing.T) {
	q := newShardQueue(4)
	finished := make(chan struct{})
	go func() { q.pump(); close(finished) }()
	pushed := make(chan struct{})
	go func() {
		for i := int64(1); i <= 3*shardChanSize; i++ {
			q.push(context.Background(), filer.Event{TsNs: i})
		}
		close(pushed)
	}()
	<-q.ch
	close(q.done)
	<-finished // the pump returned: the test would hang here otherwise
	<-pushed   // and so did the fan-out
}
