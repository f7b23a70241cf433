package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
)

// cursorSaveTimeout bounds a cursor save. The save uses a fresh context
// because -runtime or Ctrl-C has usually cancelled the pass's own; saving
// with it would drop the cursor and the next pass would replay from the
// same floor again (docs/design/daily-run.md#cursor).
const cursorSaveTimeout = 5 * time.Second

// pass is the state shared by every shard of one Run.
type pass struct {
	cfg  Config
	snap *engine.Snapshot
	// replayView and walkView are RulesForShard's views; it partitions by
	// action, not by shard, so one pair serves every shard.
	replayView, walkView, recoveryView *engine.Snapshot
	rsh                                [32]byte // ReplayContentHash: zero when nothing replays
	maxTTL                             time.Duration
	retention                          time.Duration
	promoted                           [32]byte
	stamp                              cursorStamp
	runNowNs                           int64
	untilNs                            int64
	pageSize                           int
	queueLimit                         int

	// byID holds every shard of the pass, filled before any shard runs.
	byID map[int]*shardRun
	// takeoverOnce reads the cursors of every shard the first time a
	// shard's cursor is the shared worker's (see takeover).
	takeoverOnce   sync.Once
	takeoverOK     bool
	takeoverFromNs int64
	// effectiveTTLs are engine.EffectiveTTLs of the snapshot: how long
	// after a lost event its match can come due (planRestarts).
	effectiveTTLs []time.Duration
	// writersOnce lists the store's meta-log writers the first time a
	// shard asks (metaLogWriters).
	writersOnce sync.Once
	writers     []filer.MetaLogWriter
	writersErr  error

	mu      sync.Mutex
	actions []Action
	counts  map[bucketKind]*BucketKindCounts
	notices []Notice
	noticed map[string]bool
	// spill holds the key tables that outgrow memory; closed by Run.
	spill *spill
	// seen holds the targets dispatched (or, in a dry run, listed) this
	// pass, by any shard; under p.mu.
	seen *keySet
	// noops holds the targets in seen whose dispatch ended NOOP_RESOLVED;
	// under p.mu.
	noops *keySet
	// inflight holds the targets whose delete is being sent now, by seen
	// key, each closed when that dispatch ends; under p.mu. A second
	// dispatch of the same target waits for it instead of sending a second
	// delete beside it (see claim).
	inflight map[string]chan struct{}
	// ambiguousOldestNs is the earliest FirstSeenNs of the ambiguous keys
	// the pass's lists hold after it (trackAmbiguous); 0 when none.
	ambiguousOldestNs int64
	// lookups is replay's cache of key reads, shared by every shard; under
	// lookupsMu.
	lookupsMu sync.Mutex
	lookups   lookups
}

func newPass(cfg Config) *pass {
	sp := newSpill(cfg.SpillDir)
	p := &pass{
		cfg:           cfg,
		snap:          cfg.Snapshot,
		rsh:           engine.ReplayContentHash(cfg.Snapshot),
		maxTTL:        engine.MaxEffectiveTTL(cfg.Snapshot),
		effectiveTTLs: engine.EffectiveTTLs(cfg.Snapshot),
		runNowNs:      cfg.RunNow.UnixNano(),
		pageSize:      cfg.PageSize,
		queueLimit:    cfg.QueueLimit,
		byID:          map[int]*shardRun{},
		spill:         sp,
		seen:          newKeySet(sp, memMax(cfg, seenMemMax)),
		noops:         newKeySet(sp, memMax(cfg, seenMemMax)),
		counts:        map[bucketKind]*BucketKindCounts{},
		lookups:       lookups{},
		inflight:      map[string]chan struct{}{},
	}
	// The meta-log is read only to just before the pass clock (or the
	// server's own clock, when earlier): a cursor saved past it would
	// claim events the filer has not written yet. Strictly before,
	// because what the pass itself writes (delete markers, demotions) is
	// stamped at that clock or later (the embedded filer's clock is the
	// pass clock), after the stream may have ended: such an event belongs
	// to the next pass, never under a cursor that did not see it.
	p.untilNs = p.runNowNs - 1
	if !cfg.ServerNow.IsZero() {
		p.untilNs = min(p.untilNs, cfg.ServerNow.UnixNano()-1)
	}
	p.retention = cfg.MetaLogRetention
	if p.retention == 0 {
		p.retention = p.maxTTL
	}
	p.promoted = engine.PromotedHash(p.snap, p.retention)
	p.stamp = newCursorStamp(cfg.Store, p.snap, cfg.MetaLogRetention, p.rsh, p.promoted)
	p.replayView, p.walkView = p.snap.RulesForShard(0, p.retention)
	p.recoveryView = engine.RecoveryView(p.snap)
	if p.pageSize <= 0 {
		p.pageSize = 1000
	}
	if p.queueLimit <= 0 {
		p.queueLimit = 4096
	}
	return p
}

// shardRun is one shard's state for the pass.
type shardRun struct {
	id int
	// ctx is the pass's context, cancelled too when the shard's lease is
	// lost, so every dispatch of the shard (replay's and its walks') stops.
	ctx context.Context
	// lease is the shard's lease; nil when the pass takes none.
	lease     *shardLease
	persisted Cursor
	found     bool
	// refused is set when persisted is path-sharded (the shared worker's)
	// and the pass cannot take it over (see takeover): the shard walks.
	refused bool
	loadErr error
	queue   *shardQueue
	// mu guards the parts of res that dispatches in flight update
	// (Outcomes, LimiterWait); the rest is written by the shard's own
	// goroutine.
	mu       sync.Mutex
	res      ShardResult
	walkPlan WalkKind // "" when the shard does not walk this pass
	walk     *walkGroup
	// walkPos, for a shard that walks the recovery view, is where its walk
	// starts and how far it got (docs/design/daily-run.md#resumable-walks);
	// nil for every other shard.
	walkPos *walkProgress
	// tally is how far the shard's walk got this pass; nil when it does
	// not walk.
	tally *walkTally
	// coldKeys, on a cold start, holds the keys where the recovery walk
	// found a replay match not yet due, with the earliest due time, and
	// those where one of its dispatches did not end DONE (a version
	// another of its deletes changed, so a rule the walk did not try may
	// still apply), with lookUpAlways; on a resumed walk, also what the
	// earlier passes left (walkkeys.go). nil when not tracked (see
	// trackColdKeys). Written under coldMu; read once the walk is done.
	coldMu   sync.Mutex
	coldKeys *keyDues
	// plan is what the shard's replay reads and carries this pass
	// (readSpans fills it before the subscription opens).
	plan replayPlan
	// frozen is set by the shard's replay once an event had a match not
	// yet due: its cursor moves no further this pass. Read and written by
	// the replaying goroutine only.
	frozen bool
	// writers, listedNs, restarts and walkedAllNs are what the shard's
	// cursor saves about restarts (Cursor.Writers ...); rewalkNow says a
	// restart makes the shard walk every rule this pass: rewalkFromNs is
	// the latest time that came due for it, and a saved walk position
	// from before it is not continued (planRestarts).
	writers      []string
	listedNs     int64
	restarts     []int64
	walkedAllNs  int64
	rewalkNow    bool
	rewalkFromNs int64
}

func (s *shardRun) finish() {
	if s.queue != nil {
		close(s.queue.done)
	}
}

// drains reports whether the shard will read the meta-log this pass.
func (p *pass) drains(s *shardRun) bool {
	if s.loadErr != nil || p.rsh == ([32]byte{}) {
		return false
	}
	return !s.found || !p.mustRecover(s)
}

func (p *pass) mustRecover(s *shardRun) bool {
	return s.found && (s.refused || p.stamp.changed(s.persisted) != "")
}

func (p *pass) floorNs() int64 { return p.runNowNs - int64(p.maxTTL) }

func (p *pass) prepareShard(ctx context.Context, id int) *shardRun {
	s := &shardRun{id: id, res: ShardResult{Shard: id, Status: StatusOK, Outcomes: map[filer.Outcome]int64{}, OutcomeBytes: map[filer.Outcome]int64{}}}
	s.persisted, s.found, s.loadErr = LoadCursor(ctx, p.cfg.Store, id)
	s.res.Cursor = s.persisted
	if s.loadErr == nil && s.found && p.stamp.pathSharded(s.persisted) && p.stamp.changed(s.persisted) == "" {
		// The cursor names a shard of events by filer path, not this
		// shard's: replay from the oldest of all, or walk.
		if from, ok := p.takeover(ctx); ok {
			s.persisted.TsNs, s.persisted.Summary = from, nil
		} else {
			s.refused = true
		}
	}
	if s.loadErr == nil {
		s.loadErr = p.planRestarts(ctx, s)
	}
	if s.loadErr == nil && p.walkPlan(s) == WalkRecovery {
		s.loadErr = p.planWalkState(ctx, s)
	}
	p.byID[id] = s
	return s
}

// readSpans is what the pass's one meta-log subscription reads: the union
// of what every draining shard's replay plan needs (planned here), each
// shard's saved cursor or, on a cold start, the floor runNow - maxTTL, up
// to the boundary, less what pending summaries let shards carry forward
// unread (docs/design/daily-run.md#subscription). Empty when no shard
// drains, so no subscription is opened.
func (p *pass) readSpans(states []*shardRun) []span {
	var all []span
	for _, s := range states {
		if !p.drains(s) {
			continue
		}
		s.plan = p.planReplay(s)
		for _, sp := range s.plan.spans(p.untilNs) {
			if sp.since < sp.until {
				all = append(all, sp)
			}
		}
	}
	return mergeSpans(all, maxSubscriptions)
}

// walkerDue (docs/design/daily-run.md#walker): fire when the interval is 0, when
// no walk happened yet, or when the interval has elapsed.
func walkerDue(lastWalkedNs int64, runNow time.Time, interval time.Duration) bool {
	return interval == 0 || lastWalkedNs == 0 || runNow.Sub(time.Unix(0, lastWalkedNs)) >= interval
}

// runShard is one shard's part of the pass
// (docs/design/daily-run.md#shape-of-a-pass). Its walks were planned and started
// by startWalks (shared per view); runShard waits for its part.
func (p *pass) runShard(ctx context.Context, s *shardRun) {
	res := &s.res
	if s.loadErr != nil {
		res.Status, res.Err = StatusError, s.loadErr
		return
	}
	lastWalked := s.persisted.LastWalkedNs

	if p.rsh == ([32]byte{}) { // pure walker: no replay-eligible rule
		if s.walkPlan == WalkEmptyReplay {
			res.Walk = WalkEmptyReplay
			if err := s.awaitWalk(); err != nil {
				p.halt(s, err)
				return
			}
			lastWalked = p.runNowNs
		}
		// Nothing replays now, but the restarts the cursor knew are
		// kept for when something does again.
		c := p.stamp.cursor(0, lastWalked)
		if s.found {
			c.Writers, c.WritersListedNs = s.persisted.Writers, s.persisted.WritersListedNs
			c.Restarts, c.WalkedAllNs = s.persisted.Restarts, s.persisted.WalkedAllNs
		}
		p.save(s, c)
		return
	}

	switch s.walkPlan {
	case WalkRecovery:
		res.Recovery = p.recoveryReason(s)
		res.Walk = WalkRecovery
		res.WalkResumed = s.walkPos.resumed
		if err := s.awaitWalk(); err != nil {
			// No new cursor: the next pass continues the recovery walk
			// from the position saved here
			// (docs/design/daily-run.md#resumable-walks). A shard with
			// a cursor of its own saves it as it was with the restarts
			// recorded (its hashes unchanged, so a rule edit is still
			// one), so the next pass knows when a restart was even if
			// the listing no longer says.
			p.halt(s, err)
			p.walkSaved(s, p.saveWalk(s, false))
			if s.found && !p.stamp.pathSharded(s.persisted) { // a refused takeover is path-sharded too
				p.save(s, s.withRestarts(s.persisted))
			}
			return
		}
		// The walk began with its first attempt: a later pass's steady
		// walk is due from then, and so is every restart's.
		lastWalked = s.walkPos.from.StartedNs
		s.walkedAllNs = lastWalked
		if p.mustRecover(s) { // rule edit, partition flip, takeover: rewind and stop
			p.save(s, s.withRestarts(p.stamp.cursor(p.replayFloor(s), lastWalked)))
			p.completeWalk(s)
			return
		}
	case WalkSteadyState:
		res.Walk = WalkSteadyState
		if err := s.awaitWalk(); err != nil {
			p.halt(s, err)
			p.save(s, s.persisted)
			return
		}
		lastWalked = p.runNowNs
	}

	lastOK, sum, err := p.drain(ctx, s, p.replayView, s.plan)
	if err != nil {
		p.halt(s, err)
	}
	c := p.stamp.cursor(lastOK, lastWalked)
	c.Summary = sum
	p.save(s, s.withRestarts(c))
	if s.walkPlan == WalkRecovery {
		p.completeWalk(s)
	}
}

// completeWalk marks the shard's recovery walk finished once the cursor
// after it is saved; until then the next pass would continue it.
func (p *pass) completeWalk(s *shardRun) {
	if s.res.CursorSaved {
		p.walkSaved(s, p.saveWalk(s, true))
	}
}

// walkSaved records a failed save of the walk position as the shard's
// error, as a failed cursor save is: the next pass walks from the first
// bucket again, or continues a walk already finished.
func (p *pass) walkSaved(s *shardRun, err error) {
	if err != nil {
		s.res.Status = StatusError
		s.res.Err = joinErr(s.res.Err, err)
	}
}

// RecoveryReason is why a shard ran a recovery walk
// (docs/design/daily-run.md#recovery-triggers); "" when it did not. Its
// String is the spelling in `ilmctl run -o json` (`recovery`).
type RecoveryReason string

// Recovery reasons.
const (
	RecoveryColdStart     RecoveryReason = "cold_start"
	RecoveryRuleEdit      RecoveryReason = "rule_edit"
	RecoveryPartitionFlip RecoveryReason = "partition_flip"
	// RecoveryTakeover: the cursor is one the store's own worker saved
	// (SharedCursors) and the pass cannot take it over.
	RecoveryTakeover RecoveryReason = "takeover"
	// RecoveryFilerRestart: a filer restart, or a restart plus a replay
	// rule's effective TTL, came after the last walk of every rule
	// (restarts.go).
	RecoveryFilerRestart RecoveryReason = "filer_restart"
)

func (r RecoveryReason) String() string { return string(r) }

func (p *pass) recoveryReason(s *shardRun) RecoveryReason {
	if !s.found {
		return RecoveryColdStart
	}
	if r := p.stamp.changed(s.persisted); r != "" {
		return r
	}
	if s.refused {
		return RecoveryTakeover
	}
	if s.rewalkNow {
		return RecoveryFilerRestart
	}
	return ""
}

// halt records why a shard stopped: incomplete when the pass's deadline
// (-runtime) ended it, cancelled when a signal did, halted otherwise.
func (p *pass) halt(s *shardRun, err error) {
	s.res.Err = err
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		s.res.Status = StatusIncomplete
	case isCancel(err):
		s.res.Status = StatusCancelled
	default:
		s.res.Status = StatusHalted
	}
}

// save writes the cursor with a fresh context (see cursorSaveTimeout). A dry
// run saves nothing.
func (p *pass) save(s *shardRun, c Cursor) {
	if p.cfg.DryRun {
		return
	}
	// A cursor is saved only under a lease shown held just now: a host
	// that lost it must not overwrite the holder's cursor.
	if err := s.lease.renew(); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cursorSaveTimeout)
	defer cancel()
	if err := SaveCursor(ctx, p.cfg.Store, s.id, c); err != nil {
		s.res.Status = StatusError
		s.res.Err = joinErr(s.res.Err, err)
		return
	}
	s.res.CursorSaved = true
	s.res.Cursor = c
}

// lostLease turns the ending of a shard whose lease was lost before its
// cursor was saved into halted, with the lease as the reason: the
// cancellation its dispatches saw is not a signal's.
func (p *pass) lostLease(s *shardRun) {
	err := s.lease.lostErr()
	if err == nil || s.res.CursorSaved {
		return
	}
	s.res.Status, s.res.Err = StatusHalted, err
}

// joinErr is a and b in one line, "a; b", both matchable by errors.Is.
func joinErr(a, b error) error {
	if a == nil {
		return b
	}
	return fmt.Errorf("%w; %w", a, b)
}
