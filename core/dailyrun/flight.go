package dailyrun

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/ilmctl/ilmctl/core/filer"
)

// defaultInFlight is Config.InFlight's default for a store that does not
// choose its own (filer.GroupCommitter).
const defaultInFlight = 8

// inFlight is how many deletes a shard keeps in flight: cfg's choice, else
// the store's, else defaultInFlight.
func inFlight(cfg Config) int {
	if cfg.InFlight > 0 {
		return cfg.InFlight
	}
	if g, ok := cfg.Store.(filer.GroupCommitter); ok && g.DeletesInFlight() > 0 {
		return g.DeletesInFlight()
	}
	return defaultInFlight
}

// flight runs one shard's dispatches, up to limit at once, so the shard's
// delete rate is bounded by the store and the rate limiter rather than by
// one round trip (or, on the embedded filer, one commit) at a time.
// Dispatches of one key still run one after the other, in the order they
// were started: a key's second action is sent only once its first has an
// outcome, as when the shard dispatched alone. Every dispatch still waits
// on the shared rate limiter.
//
// Dispatches run on worker goroutines that stay until wait, rather than a
// goroutine each: a fresh goroutine's stack grows (and is copied) again
// for every dispatch, which a pass of a million deletes pays a million
// times. There are at most 2×limit workers: limit running, and at most
// limit more between releasing their slot and taking the next dispatch.
type flight struct {
	// inline runs each dispatch in the caller, one at a time: a dry run's
	// dispatch only records, and a goroutine each would cost more.
	inline bool
	slots  chan struct{}
	// jobs hands a dispatch to an idle worker; unbuffered, so a dispatch
	// nobody is waiting for gets a new worker.
	jobs    chan func()
	quit    chan struct{} // closed by wait: idle workers exit
	workers sync.WaitGroup
	// started counts workers ever started (tests read it).
	started atomic.Int64
	wg      sync.WaitGroup // started dispatches not yet returned
	mu      sync.Mutex
	// tails holds, per key, the ticket of the latest dispatch started on
	// it while that one is unfinished.
	tails  map[string]*ticket
	failed atomic.Bool
}

// ticket is one dispatch started by flight: done is closed once it
// returned, err is then its error.
type ticket struct {
	done chan struct{}
	err  error
}

// newFlight is the pass's flight for one shard: inline for a dry run or
// InFlight 1.
func (p *pass) newFlight() *flight {
	n := inFlight(p.cfg)
	if p.cfg.DryRun || n == 1 {
		return &flight{inline: true}
	}
	return newFlight(n)
}

func newFlight(limit int) *flight {
	if limit <= 0 {
		limit = defaultInFlight
	}
	return &flight{slots: make(chan struct{}, limit), jobs: make(chan func()),
		quit: make(chan struct{}), tails: map[string]*ticket{}}
}

// start runs fn once a slot is free (waiting for one here, so the caller
// never gets more than limit ahead) and, on a worker, once the previous
// dispatch started on key has finished. A ctx that ends while waiting for
// a slot gives a finished ticket with ctx's error. start and wait are
// called from one goroutine (the shard's).
func (f *flight) start(ctx context.Context, key string, fn func() error) *ticket {
	t := &ticket{done: make(chan struct{})}
	if f.inline {
		t.err = fn()
		if t.err != nil {
			f.failed.Store(true)
		}
		close(t.done)
		return t
	}
	select {
	case f.slots <- struct{}{}:
	case <-ctx.Done():
		t.err = ctx.Err()
		close(t.done)
		return t
	}
	f.mu.Lock()
	prev := f.tails[key]
	f.tails[key] = t
	f.mu.Unlock()
	f.wg.Add(1)
	run := func() {
		if prev != nil {
			<-prev.done
		}
		t.err = fn()
		if t.err != nil {
			f.failed.Store(true)
		}
		f.mu.Lock()
		if f.tails[key] == t {
			delete(f.tails, key)
		}
		f.mu.Unlock()
		close(t.done)
		f.wg.Done()
		<-f.slots
	}
	select {
	case f.jobs <- run:
	default:
		f.workers.Add(1)
		f.started.Add(1)
		go f.work(run, f.quit)
	}
	return t
}

// work runs dispatches until quit is closed. A dispatch waiting on its
// key's previous one blocks only its worker; that one was handed out
// earlier and holds a slot, so it always finishes.
func (f *flight) work(run func(), quit <-chan struct{}) {
	defer f.workers.Done()
	for {
		run()
		select {
		case run = <-f.jobs:
		case <-quit:
			return
		}
	}
}

// anyFailed reports whether a dispatch started so far returned an error.
func (f *flight) anyFailed() bool { return f.failed.Load() }

// wait returns once every started dispatch has returned and the workers
// have exited; start may be called again afterwards.
func (f *flight) wait() {
	if f.inline {
		return
	}
	f.wg.Wait()
	close(f.quit)
	f.workers.Wait()
	f.quit = make(chan struct{})
}
