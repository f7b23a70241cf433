package dailyrun

import (
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Past its limit a queue drops every later event and reports truncation, so
// the shard's cursor stays before the first event it missed; the stream is
// then never "complete" for that shard.
func TestShardQueueTruncates(t *testing.T) {
	q := newShardQueue(2)
	for i := int64(1); i <= 5; i++ {
		q.push(filer.Event{TsNs: i})
	}
	q.close(true)
	go q.pump()
	var got []int64
	for ev := range q.ch {
		got = append(got, ev.TsNs)
	}
	complete, truncated := q.state()
	if len(got) != 2 || got[0] != 1 || got[1] != 2 || complete || !truncated {
		t.Fatalf("got %v complete=%v truncated=%v", got, complete, truncated)
	}
}

// A shard that stops reading (done closed) releases its pump, which would
// otherwise block on the full channel forever.
func TestShardQueueReleasedByDone(t *testing.T) {
	q := newShardQueue(1 << 20)
	for i := int64(1); i <= 3*shardChanSize; i++ {
		q.push(filer.Event{TsNs: i})
	}
	finished := make(chan struct{})
	go func() { q.pump(); close(finished) }()
	<-q.ch
	close(q.done)
	<-finished // the pump returned: the test would hang here otherwise
}
