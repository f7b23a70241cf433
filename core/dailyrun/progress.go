package dailyrun

import (
	"sync/atomic"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Progress is a pass's live counters, for a display that shows the pass
// while it runs (Config.Progress). Run adds to them from every shard's and
// walk's goroutine, so each is an atomic a reader may load at any time; the
// Result holds the same figures once the pass is over. A nil *Progress
// counts nothing.
type Progress struct {
	// EventsReplayed counts meta-log events the replay decided: at the end,
	// the sum of ShardResult.EventsScanned.
	EventsReplayed atomic.Int64
	// EntriesWalked counts objects and multipart uploads the walks listed,
	// every key of a listed page whichever shard owns it (one shared
	// listing serves every shard of a walk).
	EntriesWalked atomic.Int64
	// Dispatched counts recorded actions, whatever their outcome (DRY_RUN
	// and ERROR included): at the end, len(Result.Actions).
	Dispatched atomic.Int64
	// Done counts actions whose outcome is DONE.
	Done atomic.Int64
	// LimiterWaitNs is the time, in nanoseconds of Config.Clock, that
	// dispatches spent waiting on Config.Limiter: at the end, the sum of
	// ShardResult.LimiterWait.
	LimiterWaitNs atomic.Int64
}

// LimiterWait is LimiterWaitNs as a duration.
func (p *Progress) LimiterWait() time.Duration { return time.Duration(p.LimiterWaitNs.Load()) }

// The add methods are nil-safe so the pass calls them unconditionally.

func (p *Progress) addEvent() {
	if p != nil {
		p.EventsReplayed.Add(1)
	}
}

func (p *Progress) addWalked(n int) {
	if p != nil {
		p.EntriesWalked.Add(int64(n))
	}
}

func (p *Progress) addAction(a *Action) {
	if p == nil {
		return
	}
	p.Dispatched.Add(1)
	if a.Outcome == filer.OutcomeDone {
		p.Done.Add(1)
	}
}

func (p *Progress) addLimiterWait(d time.Duration) {
	if p != nil {
		p.LimiterWaitNs.Add(int64(d))
	}
}
