// Package dailyrun is the daily lifecycle pass: one meta-log subscription
// fanned out to per-shard processors, recovery and steady-state walker
// fires, identity-checked dispatch under a shared rate limiter, and
// per-shard cursors, as docs/design/daily-run.md describes.
package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"golang.org/x/time/rate"
)

// Config is one pass's input.
type Config struct {
	Store    filer.Store
	Snapshot *engine.Snapshot
	// RunNow is the pass clock, frozen for the whole pass: due times are
	// compared with it and the meta-log is read up to it.
	RunNow time.Time
	// Clock is the wall clock, used only to measure the pass duration.
	Clock func() time.Time
	// ServerNow is the store's own clock read before the pass
	// (filer.ServerClock); zero when the store's clock is the pass clock
	// (the embedded filer). The meta-log is replayed, and a quiet shard's
	// cursor advanced, only up to min(RunNow, ServerNow), so a cursor never
	// runs ahead of the events the filer has written.
	ServerNow time.Time
	// Shards to run; nil means all 16 (or HostShare's).
	Shards []int
	// HostShare, when Hosts is not 0, makes the pass one host of a fleet
	// sharing the 16 shards (docs/design/daily-run.md#host-shares): it
	// tries every shard's lease in HostShare.Order and runs the first
	// HostShare.Size it takes; the shards it found held end leased, the
	// rest are not in its Result. Shards must be nil.
	HostShare HostShare
	// MetaLogRetention is how far back the meta-log reaches; 0 means
	// unbounded, so the retention window is MaxEffectiveTTL and nothing is
	// promoted to the walker (docs/design/daily-run.md#cursor-hashes). On a
	// store without a meta-log (filer.MetaLogless) Run uses
	// WalkerOnlyRetention instead, whatever this says.
	MetaLogRetention time.Duration
	// WalkerInterval is the minimum time between steady-state walker fires
	// per shard; 0 fires every pass.
	WalkerInterval time.Duration
	// Limiter caps LifecycleDelete calls across every shard and the walker;
	// nil means unlimited.
	Limiter *rate.Limiter
	// OnLimiterWait, when set, is called with each wait on Limiter (one
	// per LifecycleDelete attempt while Limiter is set, measured with
	// Clock), so a caller can keep the distribution docs/metrics.md
	// exports (s3_lifecycle_dispatch_limiter_wait_seconds);
	// ShardResult.LimiterWait is only the sum.
	// Shards call it concurrently: it must be safe for concurrent use.
	OnLimiterWait func(time.Duration)
	// Progress, when set, receives the pass's live counters (see
	// Progress); nil counts nothing.
	Progress *Progress
	// DryRun evaluates and records every action that would be dispatched,
	// but deletes nothing and saves no cursor.
	DryRun bool
	// InFlight is how many deletes each shard keeps in flight at once,
	// all under Limiter; a key's deletes are still sent one after the
	// other, each once the previous has its outcome. 0 means the store's
	// choice (filer.GroupCommitter), else 8; 1 dispatches one at a time.
	InFlight int
	Retry    RetryPolicy
	// PageSize is the walker's listing page size; 0 means 1000.
	PageSize int
	// QueueLimit caps events buffered for one shard beyond its channel;
	// past it the meta-log is read on only as the shard takes events, so
	// memory does not grow with the meta-log. 0 means 4096.
	QueueLimit int
	// OnAction, when set, sees every Action as it is recorded (its outcome
	// known), in recording order, so a caller can stream a pass's actions
	// instead of waiting for Result.Actions. Calls are serialized, but run
	// on the goroutine that dispatched the action (a shard's or a walk's)
	// while the pass's action log is locked: it must be quick, as every
	// other shard's next action waits for it.
	OnAction func(Action)
	// DiscardActions keeps Result.Actions empty: each action reaches only
	// OnAction, and the pass holds counts (Result.Buckets, each shard's
	// Outcomes), so its memory does not grow with the actions it takes.
	DiscardActions bool
	// SpillDir is where the pass makes its scratch directory when the
	// targets it dispatched, or the keys a cold walk left pending, outgrow
	// their memory bound (a few tens of MiB); "" means the system's
	// temporary directory ($TMPDIR). The directory is removed when the
	// pass returns.
	SpillDir string
	// keyMemMax, when not 0, replaces every key table's memory bound
	// (seenMemMax, coldKeysMemMax): tests set it to spill at once.
	keyMemMax int
	// LeaseOwner names this pass in the shard leases it takes on a store
	// that lends them (filer.ShardLeaser), e.g. host and process id; the
	// holder other hosts see. "" means "ilmctl".
	LeaseOwner string
	// LeaseTTL is how long a shard lease lasts unless renewed, LeaseRenew
	// how often the pass renews it (docs/design/daily-run.md#shard-leases);
	// 0 means DefaultLeaseTTL, DefaultLeaseRenew. LeaseRenew must be
	// shorter than LeaseTTL.
	LeaseTTL   time.Duration
	LeaseRenew time.Duration
	// Ticker makes the ticker that paces lease renewals; nil means
	// time.NewTicker. Tests inject one they drive by hand.
	Ticker func(time.Duration) (<-chan time.Time, func())
	// RejectedBuckets counts the buckets whose lifecycle configuration was
	// rejected before the pass (none of their rules is in Snapshot). The
	// pass does not run them; they count in Result.Errors, so in the
	// heartbeat's errors=.
	RejectedBuckets int
}

// ShardStatus is how a shard's part of a pass ended
// (docs/design/daily-run.md#head-of-line-blocking). Its String is the
// spelling in `ilmctl run -o json` and the heartbeat's status=.
type ShardStatus string

// Shard statuses, from best to worst.
const (
	StatusOK         ShardStatus = "ok"
	StatusLeased     ShardStatus = "leased"     // another host holds the shard's lease and runs it: not run here, cursor untouched
	StatusIncomplete ShardStatus = "incomplete" // the pass's deadline (-runtime) ended it first: the designed cap, cursors saved
	StatusCancelled  ShardStatus = "cancelled"  // a signal (Ctrl-C, SIGTERM) ended the pass first
	StatusHalted     ShardStatus = "halted"     // a dispatch ended RETRY_LATER, BLOCKED, STUCK or in a transport error; a key or bucket could not be read
	StatusError      ShardStatus = "error"      // the shard could not run or save its cursor (corrupt cursor, failed save): look at it
)

func (s ShardStatus) String() string { return string(s) }

// worse reports whether s is a worse ending than t.
func (s ShardStatus) worse(t ShardStatus) bool { return statusRank[s] > statusRank[t] }

// leased ranks just above ok: the shard is being run, by its lease's
// holder, so nothing here needs a rerun, but a pass that met one says so
// (docs/design/daily-run.md#shard-leases).
var statusRank = map[ShardStatus]int{StatusOK: 0, StatusLeased: 1, StatusIncomplete: 2, StatusCancelled: 3, StatusHalted: 4, StatusError: 5}

// Unfinished reports whether the pass left work of its own undone, so
// needs a rerun (exit 3): its status is worse than leased.
func (r *Result) Unfinished() bool { return r.Status().worse(StatusLeased) }

// Result is what one pass did.
type Result struct {
	RunNow   time.Time
	Duration time.Duration
	DryRun   bool
	Shards   []ShardResult
	// Actions is every action in shard order; empty with
	// Config.DiscardActions.
	Actions []Action
	// Buckets counts the actions by bucket, rule and kind, sorted by the
	// three, whether or not Actions holds them.
	Buckets []BucketKindCounts
	// Notices are keys the pass left alone on purpose (ambiguous layouts,
	// those it met and those its shards' lists still hold), sorted by
	// bucket and key.
	Notices []Notice
	// AmbiguousSinceNs is when the longest-standing ambiguous key on the
	// run shards' lists was first seen (Unix nanoseconds); 0 when none.
	AmbiguousSinceNs int64
	// SubscribeErr is the meta-log subscription's error, if any.
	SubscribeErr error
	// RejectedBuckets is Config.RejectedBuckets.
	RejectedBuckets int
}

// ShardResult is one shard's pass.
type ShardResult struct {
	Shard         int
	Status        ShardStatus
	Err           error // why the shard did not end ok; nil when it did
	Recovery      RecoveryReason
	Walk          WalkKind
	EventsScanned int64
	Matches       int64 // matches found, due or not
	Pending       int64 // matches not yet due
	Outcomes      map[filer.Outcome]int64
	// MatchBytes, PendingBytes and OutcomeBytes are the bytes (the target
	// versions' sizes; uploads count 0) beside Matches, Pending and each
	// Outcomes count.
	MatchBytes   int64
	PendingBytes int64
	OutcomeBytes map[filer.Outcome]int64
	// BytesFreed sums Action.BytesFreed over the shard's DONE actions (a
	// dry run's DRY_RUN ones): what the pass freed, or would free.
	// HeldBytes is what Object Lock kept: SKIPPED_OBJECT_LOCK actions' and
	// a dry run's held ones'.
	BytesFreed int64
	HeldBytes  int64
	// CursorSaved says whether Cursor was written this pass; otherwise
	// Cursor is the persisted one (zero on cold start).
	CursorSaved bool
	Cursor      Cursor
	// WalkSaved says the shard's recovery walk stopped short and saved
	// its position (WalkPath): the next pass continues it there
	// (docs/design/daily-run.md#resumable-walks).
	WalkSaved bool
	// WalkResumed says the shard's recovery walk continued one an earlier
	// pass left unfinished, from its saved position: WalkResumedFrom, nil
	// when that position had every bucket done.
	WalkResumed     bool
	WalkResumedFrom *WalkPoint
	// WalkKeys counts the shard's keys (objects and incomplete uploads)
	// its walk listed this pass; WalkBucketsDone of WalkBuckets, the
	// buckets of the walk's view, are done for the shard, a continued
	// recovery walk's earlier passes included
	// (docs/design/daily-run.md#walk-progress). All 0 when it did not walk.
	WalkKeys        int64
	WalkBucketsDone int
	WalkBuckets     int
	// Truncated would say the shard's event queue overflowed and it
	// missed events; the fan-out now waits for a slow shard instead, so it
	// stays false (kept for the report's stable "truncated" field).
	Truncated   bool
	LimiterWait time.Duration
	// Duration is the shard's wall-clock time (Config.Clock) from the
	// start of the pass until it finished: walk, replay and cursor save.
	Duration time.Duration
}

// Action is one dispatched (or, in a dry run, would-be dispatched) action.
type Action struct {
	Shard     int
	Source    Source
	Bucket    string
	Key       string
	VersionID string
	UploadID  string
	Kind      lifecycle.ActionKind
	RuleID    string
	Due       time.Time     // zero: due as soon as found
	Outcome   filer.Outcome // the store's, or OutcomeDryRun, or OutcomeError
	Err       error         // the transport error of an ERROR outcome
	// Size is the target version's size in bytes (0 for a delete marker
	// or an upload). BytesFreed is what this action freed (a dry run's:
	// would free; lifecycle.BytesFreed): Size for a DONE permanent delete,
	// 0 when a delete marker only hides the version and for every outcome
	// that deleted nothing.
	Size       int64
	BytesFreed int64
	// Held is set when the pass saw the target under Object Lock (legal
	// hold, or retention past the pass clock): the store skips the delete
	// (SKIPPED_OBJECT_LOCK), so a dry run counts its bytes in HeldBytes,
	// not in BytesFreed. s3:// listings carry no lock state: there the
	// store finds it at the delete.
	Held bool
}

// BucketKindCounts counts one bucket's actions of one rule and kind.
type BucketKindCounts struct {
	Bucket string
	RuleID string
	Kind   lifecycle.ActionKind
	// Outcomes counts the actions by outcome (a filer.Outcome,
	// OutcomeDryRun or OutcomeError), and Bytes sums their targets' sizes
	// beside each count.
	Outcomes map[filer.Outcome]int64
	Bytes    map[filer.Outcome]int64
	// BytesFreed sums Action.BytesFreed over the DONE (a dry run's
	// DRY_RUN) actions; HeldBytes what Object Lock kept of the rest
	// (SKIPPED_OBJECT_LOCK, or a dry run's held actions).
	BytesFreed int64
	HeldBytes  int64
}

// Outcomes the pass itself gives an action, beside the store's.
const (
	// OutcomeDryRun marks actions a dry run would have dispatched.
	OutcomeDryRun filer.Outcome = "DRY_RUN"
	// OutcomeError marks a dispatch that failed in transport after all
	// retries.
	OutcomeError filer.Outcome = "ERROR"
)

// Source is the path that found an action; its String is the spelling in
// `ilmctl run -o jsonl` (`source`).
type Source string

// Action sources.
const (
	SourceReplay Source = "replay" // meta-log replay (docs/design/daily-run.md#replay)
	SourceWalker Source = "walker" // a walk (docs/design/daily-run.md#walker)
)

func (s Source) String() string { return string(s) }

// Run executes one pass. It returns an error only for bad configuration;
// shard failures are in the Result, whose Status says how the pass ended.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Store == nil || cfg.Snapshot == nil || cfg.RunNow.IsZero() || cfg.Clock == nil {
		return nil, errors.New("dailyrun: Store, Snapshot, RunNow and Clock are required")
	}
	shards, quota, err := cfg.shardOrder()
	if err != nil {
		return nil, err
	}
	if cfg.LeaseTTL > 0 || cfg.LeaseRenew > 0 {
		ttl, renew := cfg.LeaseTTL, cfg.LeaseRenew
		if ttl == 0 {
			ttl = DefaultLeaseTTL
		}
		if renew == 0 {
			renew = DefaultLeaseRenew
		}
		if renew >= ttl {
			return nil, fmt.Errorf("dailyrun: lease renewal every %v must be shorter than the lease ttl %v", renew, ttl)
		}
	}
	cfg.MetaLogRetention = EffectiveRetention(cfg.Store, cfg.MetaLogRetention)
	cfg.Snapshot = cfg.Snapshot.At(cfg.RunNow)
	started := cfg.Clock()
	p := newPass(cfg)
	defer p.spill.close()
	res := &Result{RunNow: cfg.RunNow, DryRun: cfg.DryRun, RejectedBuckets: cfg.RejectedBuckets}

	// Each shard takes its lease before anything of it is read for
	// running: a shard another host holds is not run and its cursor is
	// not touched (docs/design/daily-run.md#shard-leases).
	ls := p.leaser()
	states := make([]*shardRun, 0, len(shards))
	var leased []ShardResult
	var cancels []context.CancelCauseFunc
	defer func() {
		for _, cancel := range cancels {
			cancel(nil)
		}
	}()
	for _, id := range shards {
		if len(states) == quota {
			break
		}
		sctx, cancel := context.WithCancelCause(ctx)
		cancels = append(cancels, cancel)
		var l *shardLease
		var leaseErr error
		if ls != nil {
			if l, leaseErr = p.takeLease(sctx, ls, id, cancel); filer.AsLeaseHeld(leaseErr) != nil {
				leased = append(leased, p.leasedShard(ctx, id, leaseErr))
				continue
			}
		}
		var s *shardRun
		if leaseErr != nil {
			s = &shardRun{id: id, loadErr: leaseErr, res: ShardResult{Shard: id, Status: StatusOK, Outcomes: map[filer.Outcome]int64{}, OutcomeBytes: map[filer.Outcome]int64{}}}
			p.byID[id] = s
		} else {
			s = p.prepareShard(sctx, id)
		}
		s.ctx, s.lease = sctx, l
		states = append(states, s)
	}
	defer func() {
		for _, s := range states {
			s.lease.release()
		}
	}()

	p.startWalks(ctx, states)
	fan := newFanOut(states, p.queueLimit)
	var wg sync.WaitGroup
	subDone := make(chan error, 1)
	if spans := p.readSpans(states); len(spans) > 0 {
		go func() { subDone <- fan.run(ctx, cfg.Store, spans) }()
	} else {
		fan.close(true)
		subDone <- nil
	}
	for _, s := range states {
		wg.Add(1)
		go func(s *shardRun) {
			defer wg.Done()
			defer s.finish()
			p.runShard(s.ctx, s)
			p.lostLease(s)
			s.res.Duration = cfg.Clock().Sub(started)
		}(s)
	}
	wg.Wait()
	// The subscription ends with the pass's context: that is the
	// deadline or a signal, which the shards report, not a store failure.
	if err := <-subDone; err != nil && ctx.Err() == nil && !isCancel(err) {
		res.SubscribeErr = err
	}
	var held []int
	for _, s := range states {
		if s.lease.lostErr() == nil {
			held = append(held, s.id)
		}
	}
	p.trackAmbiguous(held)
	for _, s := range states {
		res.Shards = append(res.Shards, s.res)
	}
	res.Shards = append(res.Shards, leased...)
	sort.Slice(res.Shards, func(i, j int) bool { return res.Shards[i].Shard < res.Shards[j].Shard })
	res.Actions = p.actions
	res.Buckets = p.bucketCounts()
	res.Notices = p.notices
	res.AmbiguousSinceNs = p.ambiguousOldestNs
	sortNotices(res.Notices)
	sort.SliceStable(res.Actions, func(i, j int) bool { return res.Actions[i].Shard < res.Actions[j].Shard })
	res.Duration = cfg.Clock().Sub(started)
	return res, nil
}

// WalkerOnlyRetention is the meta-log retention a pass runs with on a store
// that keeps no meta-log (filer.MetaLogless, e.g. s3://): shorter than any
// rule's TTL, so every replay-eligible rule is promoted to the walker, and
// the cursor's promoted hash records that
// (docs/design/daily-run.md#engine-views).
const WalkerOnlyRetention = time.Nanosecond

// EffectiveRetention is the meta-log retention a pass over st runs with:
// WalkerOnlyRetention when st has no meta-log, retention otherwise.
func EffectiveRetention(st filer.Store, retention time.Duration) time.Duration {
	if !filer.HasMetaLog(st) {
		return WalkerOnlyRetention
	}
	return retention
}

// shardOrder is the order the pass tries its shards in and how many of
// them it runs: Shards sorted, or HostShare's order and size.
func (cfg Config) shardOrder() ([]int, int, error) {
	if cfg.HostShare.Hosts == 0 {
		shards, err := normalizeShards(cfg.Shards)
		return shards, len(shards), err
	}
	if cfg.Shards != nil {
		return nil, 0, fmt.Errorf("dailyrun: %w: Shards and HostShare both choose shards", ErrBadHostShare)
	}
	if err := cfg.HostShare.Check(); err != nil {
		return nil, 0, err
	}
	return cfg.HostShare.Order(), cfg.HostShare.Size(), nil
}

// normalizeShards validates and sorts a shard set; nil means all shards.
func normalizeShards(in []int) ([]int, error) {
	if in == nil {
		out := make([]int, lifecycle.ShardCount)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	seen := map[int]bool{}
	var out []int
	for _, s := range in {
		if s < 0 || s >= lifecycle.ShardCount {
			return nil, fmt.Errorf("shard %d out of range 0-%d", s, lifecycle.ShardCount-1)
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no shards selected")
	}
	sort.Ints(out)
	return out, nil
}

// Status is the pass status for the heartbeat: ok when every shard ended
// ok and the subscription succeeded, else the worst shard status.
func (r *Result) Status() ShardStatus {
	status := StatusOK
	for _, s := range r.Shards {
		if s.Status.worse(status) {
			status = s.Status
		}
	}
	if r.SubscribeErr != nil {
		status = StatusError
	}
	return status
}

// Errors counts shards that did not end ok (leased ones aside) and buckets whose lifecycle
// configuration was rejected: the heartbeat's errors=.
func (r *Result) Errors() int { return r.ShardErrors() + r.RejectedBuckets }

// ShardErrors counts shards that did not end ok; a leased shard is not
// one: its holder runs it.
func (r *Result) ShardErrors() int {
	n := 0
	for _, s := range r.Shards {
		if s.Status != StatusOK && s.Status != StatusLeased {
			n++
		}
	}
	return n
}
