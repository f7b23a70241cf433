package dailyrun

import (
	"context"
	"errors"
	"sync"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// shardChanSize is the per-shard channel buffer
// (docs/design/daily-run.md#subscription).
const shardChanSize = 256

// errPastBoundary stops the subscription on the first event past runNow, the
// backstop for a filer that ignores until_ns.
var errPastBoundary = errors.New("event past the pass boundary")

// shardQueue sits between the fan-out and one shard's channel. It holds up
// to limit events beyond the channel; past that the fan-out waits for the
// shard to take some, so a pass holds a bounded number of events whatever
// the meta-log's length (a cold shard reads nothing until its recovery
// walk is done). A shard that stopped reading (halted, or done) never
// holds the fan-out up: its events are dropped and its cursor stays
// before them.
type shardQueue struct {
	ch   chan filer.Event
	done chan struct{} // closed when the shard stops reading
	mu   sync.Mutex
	buf  []filer.Event
	wake chan struct{}
	room chan struct{} // signalled when the pump empties buf
	// limit is how many events buf holds before push waits.
	limit int
	// closed and complete are written under mu before the pump closes ch,
	// so the shard reads them safely after ch is closed.
	closed   bool
	complete bool // the subscription delivered everything up to untilNs
	// truncated is never set since the fan-out waits instead of dropping
	// events; ShardResult.Truncated keeps its place in the report.
	truncated bool
}

func newShardQueue(limit int) *shardQueue {
	return &shardQueue{
		ch:    make(chan filer.Event, shardChanSize),
		done:  make(chan struct{}),
		wake:  make(chan struct{}, 1),
		room:  make(chan struct{}, 1),
		limit: limit,
	}
}

// push queues ev, waiting while the shard has limit events queued; it
// drops ev once the shard stopped reading or ctx ended.
func (q *shardQueue) push(ctx context.Context, ev filer.Event) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return
		}
		if len(q.buf) < q.limit {
			q.buf = append(q.buf, ev)
			q.mu.Unlock()
			q.signal()
			return
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-q.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (q *shardQueue) close(complete bool) {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		q.complete = complete && !q.truncated
	}
	q.mu.Unlock()
	q.signal()
}

func (q *shardQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pump moves buffered events into the shard's channel until the queue is
// closed and empty, or the shard stops reading.
func (q *shardQueue) pump() {
	defer close(q.ch)
	for {
		q.mu.Lock()
		batch := q.buf
		q.buf = nil
		closed := q.closed
		q.mu.Unlock()
		if len(batch) > 0 {
			select {
			case q.room <- struct{}{}:
			default:
			}
		}
		for _, ev := range batch {
			select {
			case q.ch <- ev:
			case <-q.done:
				return
			}
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		select {
		case <-q.wake:
		case <-q.done:
			return
		}
	}
}

// state reports, after ch is closed, whether the stream was complete and
// whether this shard was truncated.
func (q *shardQueue) state() (complete, truncated bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.complete, q.truncated
}

// fanOut routes one subscription's events to per-shard queues by ShardID.
type fanOut struct {
	queues map[int]*shardQueue
}

func newFanOut(states []*shardRun, limit int) *fanOut {
	f := &fanOut{queues: map[int]*shardQueue{}}
	for _, s := range states {
		q := newShardQueue(limit)
		s.queue = q
		f.queues[s.id] = q
		go q.pump()
	}
	return f
}

// run reads spans (sorted, disjoint) one after the other and closes every
// queue when the last ends; queues are marked complete only when every
// span ended cleanly.
func (f *fanOut) run(ctx context.Context, st filer.Store, spans []span) error {
	var err error
	for _, sp := range spans {
		if err = f.read(ctx, st, sp.since, sp.until); err != nil || ctx.Err() != nil {
			break
		}
	}
	f.close(err == nil && ctx.Err() == nil)
	return err
}

// read subscribes from sinceNs to untilNs and pushes each event to its
// shard's queue.
func (f *fanOut) read(ctx context.Context, st filer.Store, sinceNs, untilNs int64) error {
	err := st.SubscribeMetadata(ctx, sinceNs, untilNs, func(ev filer.Event) error {
		if ev.TsNs > untilNs {
			return errPastBoundary
		}
		if q, ok := f.queues[EventShard(ev)]; ok {
			q.push(ctx, ev)
		}
		return nil
	})
	if errors.Is(err, errPastBoundary) {
		err = nil
	}
	return err
}

// EventShard is the shard whose replay takes ev and whose cursor covers
// it: the shard that owns its key, lifecycle.ShardID(bucket, key), as a
// walk shards keys. Every dispatch target of a key (its versions, delete
// markers and uploads) has that one owner shard, the same in every process
// and on every host, and only the owner decides and dispatches it
// (docs/design/daily-run.md#one-owner-per-target). Its order guarantee
// (a key's deletes are sent one after the other, in event order) and its
// cursor (no event passed before its due matches completed) then hold for
// the key as a whole, and shard leases keep two hosts off one key.
//
// SeaweedFS's own reader shards by filer path instead (weed/s3api/
// s3lifecycle/reader/reader.go, extractBucketKey): "<key>.versions/v_<id>",
// "<key>.versions" and ".uploads/<id>" can land in shards other than the
// key's, so two of its shards can each decide one version. ev.Path keeps
// that path; it does not choose the shard here (see SharedCursors for what
// that costs a takeover of that worker's cursors).
func EventShard(ev filer.Event) int {
	return lifecycle.ShardID(ev.Bucket, ev.Key)
}

func (f *fanOut) close(complete bool) {
	for _, q := range f.queues {
		q.close(complete)
	}
}
