package embedded

import (
	"context"
	"errors"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// maxGroupCommit bounds how many deletes share one commit.
const maxGroupCommit = 512

// deletesInFlight is what the filer asks each shard of a pass to keep in
// flight (filer.GroupCommitter): 16 shards × 64 fill a group of up to
// maxGroupCommit while the previous one commits. Measured on a real 1M-
// version cold pass (2 cores, loaded machine): 69 s with 64 against 148 s
// with the networked stores' 8, system time 7.9 s against 21.3 s.
const deletesInFlight = 64

var _ filer.GroupCommitter = (*Filer)(nil)

// DeletesInFlight implements filer.GroupCommitter.
func (f *Filer) DeletesInFlight() int { return deletesInFlight }

// errFilerClosed is a delete submitted after Close.
var errFilerClosed = errors.New("embedded filer: closed")

// groupCommit applies LifecycleDeletes in batches, one bbolt write
// transaction (so one fsync) per batch instead of one per delete: the
// fsync is what a delete costs on a disk, and bbolt serialises writers
// anyway. One goroutine takes the first waiting delete, then every other
// already waiting (up to maxGroupCommit), applies them in order in one
// transaction and commits. Nothing waits to fill a batch: a lone delete
// commits at once, and deletes arriving during a commit form the next
// batch.
//
// Each delete is decided inside the transaction on what the database holds
// there (earlier deletes of the same batch included), exactly as alone.
// Its outcome is handed back only after the commit returned, so an
// outcome a caller sees is durable; a crash before the commit loses the
// whole batch, and none of its outcomes was reported. When a delete fails
// (an I/O error, a corrupt record) the transaction is rolled back and each
// delete of the batch is applied again in its own transaction, so one bad
// record fails only its own delete.
type groupCommit struct {
	f         *Filer
	once      sync.Once // starts the loop, or (close) marks it never started
	closeOnce sync.Once
	reqs      chan *pendingDelete
	// quit is closed by Close; the loop then fails what is still queued.
	quit chan struct{}
	done chan struct{}
	// beforeCommit is a TEST SEAM (Options.BeforeCommit).
	beforeCommit func([]filer.DeleteRequest) error
}

// pendingDelete is one LifecycleDelete waiting for its batch's commit.
type pendingDelete struct {
	req  filer.DeleteRequest
	out  filer.Outcome
	err  error
	done chan struct{}
}

func newGroupCommit(f *Filer, beforeCommit func([]filer.DeleteRequest) error) *groupCommit {
	return &groupCommit{f: f, reqs: make(chan *pendingDelete, maxGroupCommit), quit: make(chan struct{}),
		done: make(chan struct{}), beforeCommit: beforeCommit}
}

// submit queues req and waits for its committed outcome. Once queued, it
// waits even when ctx ends: the delete may already be in a batch being
// committed, and its outcome must be reported as it is.
func (g *groupCommit) submit(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	g.once.Do(func() { go g.loop() })
	pd := &pendingDelete{req: req, done: make(chan struct{})}
	select {
	case <-g.quit:
		return "", errFilerClosed
	default:
	}
	select {
	case g.reqs <- pd:
	case <-ctx.Done():
		return "", ctx.Err()
	case <-g.quit:
		return "", errFilerClosed
	}
	select {
	case <-pd.done:
	case <-g.done:
		// Queued as the loop stopped: failQueued may have missed it, and
		// nothing was applied for it.
		select {
		case <-pd.done:
		default:
			return "", errFilerClosed
		}
	}
	return pd.out, pd.err
}

func (g *groupCommit) loop() {
	defer close(g.done)
	batch := make([]*pendingDelete, 0, maxGroupCommit)
	for {
		var first *pendingDelete
		select {
		case first = <-g.reqs:
		case <-g.quit:
			g.failQueued()
			return
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxGroupCommit {
			select {
			case pd := <-g.reqs:
				batch = append(batch, pd)
			default:
				break fill
			}
		}
		g.commit(batch)
	}
}

// commit applies batch in one transaction, or, when that fails, each
// delete alone.
func (g *groupCommit) commit(batch []*pendingDelete) {
	if err := g.apply(batch); err != nil && len(batch) > 1 {
		for _, pd := range batch {
			pd.err = g.apply([]*pendingDelete{pd})
		}
	} else {
		for _, pd := range batch {
			pd.err = err
		}
	}
	for _, pd := range batch {
		if pd.err != nil {
			pd.out = ""
		}
		close(pd.done)
	}
}

func (g *groupCommit) apply(batch []*pendingDelete) error {
	return g.f.db.Update(func(tx *bolt.Tx) error {
		buckets := map[string]bucketRecord{}
		for _, pd := range batch {
			m := &mutation{tx: tx, now: g.f.clock(), bucket: pd.req.Bucket, key: pd.req.Key, buckets: buckets}
			out, err := m.apply(pd.req)
			if err != nil {
				return err
			}
			pd.out = out
		}
		if g.beforeCommit != nil {
			reqs := make([]filer.DeleteRequest, len(batch))
			for i, pd := range batch {
				reqs[i] = pd.req
			}
			return g.beforeCommit(reqs)
		}
		return nil
	})
}

// failQueued answers every delete still queued at Close.
func (g *groupCommit) failQueued() {
	for {
		select {
		case pd := <-g.reqs:
			pd.err = errFilerClosed
			close(pd.done)
		default:
			return
		}
	}
}

// close stops the loop after the batch it is committing, if any, and
// waits for it; deletes submitted afterwards fail with errFilerClosed.
func (g *groupCommit) close() {
	g.closeOnce.Do(func() {
		g.once.Do(func() { close(g.done) }) // never started: nothing to stop
		close(g.quit)
		<-g.done
	})
}
