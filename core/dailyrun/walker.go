package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// WalkKind is which walk a shard fired in a pass, one of the three ways a
// shard walks (docs/design/daily-run.md#walker); "" when it did not walk.
// Its String is the spelling in `ilmctl run -o json` (`walk`).
type WalkKind string

// Walk kinds.
const (
	WalkRecovery    WalkKind = "recovery"     // RecoveryView: cold start, rule edit, partition flip, takeover, filer restart
	WalkSteadyState WalkKind = "steady_state" // walk view, when walkerDue and no recovery walk this pass
	WalkEmptyReplay WalkKind = "empty_replay" // walk view, no replay-eligible rule at all
)

func (k WalkKind) String() string { return string(k) }

// walkPlan decides, once per pass and from the cursor runShard will use,
// which walk shard s fires. A shard that walks RecoveryView never also
// walks the steady-state view in the same pass (walkedThisPass): the
// recovery view is a superset.
func (p *pass) walkPlan(s *shardRun) WalkKind {
	if s.loadErr != nil {
		return ""
	}
	due := walkerDue(s.persisted.LastWalkedNs, p.cfg.RunNow, p.cfg.WalkerInterval)
	switch {
	case p.rsh == ([32]byte{}):
		if due && !p.walkView.Empty() {
			return WalkEmptyReplay
		}
	case !s.found || p.mustRecover(s) || s.rewalkNow:
		return WalkRecovery
	case due && !p.walkView.Empty():
		return WalkSteadyState
	}
	return ""
}

// walkGroup is one shared walk over a view for every shard that planned
// it: each bucket is listed once per group, not once per shard
// (docs/design/daily-run.md#walker), and each due match is queued to the dispatcher of the
// shard that owns its key, so shards still dispatch in parallel and in
// order within a shard.
type walkGroup struct {
	view   *engine.Snapshot
	shards map[int]*shardRun
	done   chan struct{}
	work   map[int]chan walkItem

	mu sync.Mutex
	// errs holds, per shard, why its part of the walk stopped; read
	// without mu only after done is closed.
	errs map[int]error
}

// walkItem is one due match for a shard's dispatcher, or (mark) only a
// position of a recovery walk.
type walkItem struct {
	bucket string
	up     *filer.Upload
	vt     *versionTarget
	m      lifecycle.Match
	act    *engine.CompiledAction
	// err, when set, is a key of this shard the listing could not read;
	// the shard halts on it.
	err error
	// phase, pos and done are where a recovery walk's position moves
	// once this item, and every one queued before it, completed: to pos
	// ("" leaves it) in bucket's phase, and past the whole phase with
	// done. mark is an item that carries nothing else.
	phase walkPhase
	pos   string
	done  bool
	mark  bool
}

func (it *walkItem) key() string {
	if it.up != nil {
		return it.up.Key
	}
	return it.vt.obj.Key
}

// walkQueue is each shard dispatcher's backlog; past it the listing waits.
const walkQueue = 256

// startWalks plans every shard's walk and starts one goroutine per view.
func (p *pass) startWalks(ctx context.Context, states []*shardRun) {
	groups := map[WalkKind]*walkGroup{}
	for _, s := range states {
		s.walkPlan = p.walkPlan(s)
		if s.walkPlan == "" {
			continue
		}
		key, view := WalkSteadyState, p.walkView // steady-state and empty-replay walks share the walk view
		if s.walkPlan == WalkRecovery {
			key, view = WalkRecovery, p.recoveryView
		}
		g := groups[key]
		if g == nil {
			g = &walkGroup{view: view, shards: map[int]*shardRun{}, done: make(chan struct{}), errs: map[int]error{}}
			groups[key] = g
		}
		g.shards[s.id] = s
		s.walk = g
		var saved map[string]BucketPos
		if s.walkPos != nil {
			saved = s.walkPos.from.Buckets
		}
		s.startTally(view.BucketNames(), saved)
		p.trackColdKeys(s)
	}
	for _, g := range groups {
		go p.runWalk(ctx, g)
	}
}

// awaitWalk waits for s's shared walk, puts how far it got in s's result,
// and returns why s's part of it did not complete, nil when it did.
func (s *shardRun) awaitWalk() error {
	<-s.walk.done
	s.res.WalkKeys = s.tally.keys.Load()
	s.res.WalkBucketsDone, s.res.WalkBuckets = s.tally.bucketsDone(), s.tally.total
	if s.walkPos != nil && s.walkPos.resumed {
		s.res.WalkResumedFrom = resumePoint(s.walk.view.BucketNames(), s.walkPos.from.Buckets)
	}
	return s.walk.errs[s.id]
}

func (p *pass) runWalk(ctx context.Context, g *walkGroup) {
	defer close(g.done)
	var wg sync.WaitGroup
	g.work = map[int]chan walkItem{}
	for id, s := range g.shards {
		ch := make(chan walkItem, walkQueue)
		g.work[id] = ch
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The shard's own context: a lost lease stops its
			// dispatches, not the listing the other shards share.
			p.dispatchWalk(s.ctx, g, s, ch)
		}()
	}
	bucketErrs, err := p.listView(ctx, g)
	for _, ch := range g.work {
		close(ch)
	}
	wg.Wait()
	if err != nil {
		g.failAll(err)
	}
	// A bucket listing that failed was not any one shard's failure: every
	// shard of the group missed that bucket's keys, so none may record the
	// walk as done, but each has dispatched everything else it found.
	if len(bucketErrs) > 0 {
		g.failAll(errors.Join(bucketErrs...))
	}
}

// dispatchWalk dispatches one shard's queued matches, several at once
// (see flight) and a key's one after the other; after the first that does
// not complete it drains the rest without dispatching. A recovery walk's
// position moves, in queue order, past each item only once it and every
// item before it completed (positions).
func (p *pass) dispatchWalk(ctx context.Context, g *walkGroup, s *shardRun, ch <-chan walkItem) {
	fl := p.newFlight()
	var pos positions
	for it := range ch {
		if g.stopped(s.id) {
			continue
		}
		if it.err != nil {
			// A key this shard owns could not be read: the shard stops
			// here, in key order, after everything before it is
			// dispatched (a failure among those comes first).
			fl.wait()
			pos.settle(s)
			g.fail(s.id, it.err)
			continue
		}
		if it.mark {
			pos.add(nil, it)
			if pos.settle(s) {
				p.saveWalkEvery(ctx, s)
			}
			continue
		}
		key := lookupKey(it.bucket, it.key())
		job, _ := p.prepare(s, SourceWalker, it.bucket, it.up, it.vt, it.m, it.act)
		if job == nil {
			pos.add(nil, it)
			continue
		}
		if s.coldKeys != nil {
			job.onOutcome = func(out filer.Outcome) {
				if out != filer.OutcomeDone {
					s.coldMu.Lock()
					s.coldKeys.note(key, lookUpAlways)
					s.coldMu.Unlock()
				}
			}
		}
		t := fl.start(ctx, key, func() error {
			err := p.dispatch(ctx, s, job)
			if err != nil {
				g.fail(s.id, err)
			}
			return err
		})
		// A pass that ended while the dispatch waited for a slot gives a
		// finished ticket whose dispatch never ran: the shard's walk
		// stopped there too, or it would count as complete without it.
		select {
		case <-t.done:
			if t.err != nil {
				g.fail(s.id, t.err)
			}
		default:
		}
		pos.add(t, it)
	}
	fl.wait()
	pos.settle(s)
}

// positions is a shard's queue of recovery-walk positions waiting for
// the dispatches started before them: the head-of-line rule of cursors
// (docs/design/daily-run.md#head-of-line-blocking) applied to a walk.
type positions struct {
	q []posEntry
	// blocked is set at the first dispatch that did not complete: the
	// position never moves past it.
	blocked bool
}

type posEntry struct {
	t      *ticket // nil: nothing to wait for
	bucket string
	phase  walkPhase
	pos    string
	done   bool
}

// add queues it's position behind t (its dispatch, or nil). An item
// without a position still queues its ticket, so later positions wait for
// it.
func (q *positions) add(t *ticket, it walkItem) {
	if t == nil && it.pos == "" && !it.done {
		return
	}
	q.q = append(q.q, posEntry{t: t, bucket: it.bucket, phase: it.phase, pos: it.pos, done: it.done})
}

// settle moves s's recovery walk position past every queued position
// whose dispatches, and all before them, completed, and reports whether it
// moved; s's tally counts every phase of a bucket so finished, whatever
// the walk.
func (q *positions) settle(s *shardRun) (moved bool) {
	w := s.walkPos
	for len(q.q) > 0 && !q.blocked {
		e := q.q[0]
		if e.t != nil {
			select {
			case <-e.t.done:
			default:
				return moved
			}
			if e.t.err != nil {
				q.blocked, q.q = true, nil
				return moved
			}
		}
		if w != nil && (e.pos != "" || e.done) {
			w.advance(e.bucket, e.phase, e.pos, e.done)
			moved = true
		}
		if e.done {
			s.tally.finished(e.bucket, e.phase)
		}
		q.q = q.q[1:]
	}
	return moved
}

// listView lists every bucket the view has actions for and queues each due
// match; matches not yet due are left to replay or a later walk. A bucket
// whose listing fails (after retries) is skipped and the walk goes on with
// the next one; its failure is returned in bucketErrs. Only cancellation
// ends the walk at once (err). A resumed recovery walk lists each bucket's
// objects and uploads from the earliest position of the group's shards,
// and not at all where every shard is past them
// (docs/design/daily-run.md#resumable-walks).
func (p *pass) listView(ctx context.Context, g *walkGroup) (bucketErrs []error, err error) {
	for _, bucket := range g.view.BucketNames() {
		var versionActs, uploadActs []*engine.CompiledAction
		for _, a := range g.view.BucketActions(bucket) {
			switch {
			case !a.IsActive():
			case a.Key.Kind == lifecycle.AbortMPU:
				uploadActs = append(uploadActs, a)
			default:
				versionActs = append(versionActs, a)
			}
		}
		if from, all := g.startFrom(bucket, phaseObjects); !all {
			var err error
			if len(versionActs) > 0 {
				err = p.walkObjects(ctx, g, bucket, from, versionActs)
			}
			if err == nil {
				err = g.markAll(ctx, bucket, phaseObjects)
			}
			if err != nil {
				if isCancel(err) || ctx.Err() != nil {
					return bucketErrs, err
				}
				bucketErrs = append(bucketErrs, fmt.Errorf("walk of bucket %s stopped: %w", bucket, err))
			}
		}
		if _, all := g.startFrom(bucket, phaseUploads); !all {
			var err error
			if len(uploadActs) > 0 {
				err = p.walkUploads(ctx, g, bucket, uploadActs)
			}
			if err == nil {
				err = g.markAll(ctx, bucket, phaseUploads)
			}
			if err != nil {
				if isCancel(err) || ctx.Err() != nil {
					return bucketErrs, err
				}
				bucketErrs = append(bucketErrs, fmt.Errorf("walk of bucket %s uploads stopped: %w", bucket, err))
			}
		}
	}
	return bucketErrs, nil
}

// startFrom is where the group's listing of bucket's phase starts: the
// earliest position of its shards; all says every shard is past the whole
// phase.
func (g *walkGroup) startFrom(bucket string, ph walkPhase) (after string, all bool) {
	first := true
	for _, s := range g.shards {
		pos, done := s.walkPos.startFrom(bucket, ph)
		if done {
			continue
		}
		if first || pos < after {
			after = pos
		}
		first = false
	}
	return after, first
}

// markAll moves every shard of the group still walking past bucket's
// phase, once its dispatches there complete: a recovery walk's position,
// and every walk's tally.
func (g *walkGroup) markAll(ctx context.Context, bucket string, ph walkPhase) error {
	return g.markEach(ctx, walkItem{bucket: bucket, phase: ph, done: true, mark: true})
}

// markEach queues mark to every shard of the group still walking. A page
// mark moves only a recovery walk's position, but it also lets every
// shard's dispatcher drop the tickets settled before it, so its queue of
// positions holds a page's at most.
func (g *walkGroup) markEach(ctx context.Context, mark walkItem) error {
	for _, s := range g.shards {
		if g.stopped(s.id) {
			continue
		}
		if err := g.queue(ctx, s, mark); err != nil {
			return err
		}
	}
	return nil
}

func (g *walkGroup) fail(id int, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.errs[id] == nil {
		g.errs[id] = err
	}
}

// failAll stops every shard still walking with err (a listing error or
// cancellation ends the walk for all of them).
func (g *walkGroup) failAll(err error) {
	for id := range g.shards {
		g.fail(id, err)
	}
}

func (g *walkGroup) stopped(id int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.errs[id] != nil
}

func (g *walkGroup) allStopped() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.errs) == len(g.shards)
}

// owner returns the shard that owns bucket/key if it is in the group, its
// walk has not stopped, and its walk is not already past pos in bucket's
// phase (uploads: past the whole phase; pos is "").
func (g *walkGroup) owner(bucket, key string, ph walkPhase, pos string) *shardRun {
	s := g.shards[lifecycle.ShardID(bucket, key)]
	if s == nil || g.stopped(s.id) {
		return nil
	}
	if from, done := s.walkPos.startFrom(bucket, ph); done || (from != "" && pos <= from) {
		return nil
	}
	return s
}

// queue hands it to s's dispatcher, waiting while its backlog is full.
func (g *walkGroup) queue(ctx context.Context, s *shardRun, it walkItem) error {
	select {
	case g.work[s.id] <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// walkObjects lists bucket after from and queues every due match on keys
// of the group's shards. Only the key ranges some action's prefix can
// select are listed (walkPrefixes); keys outside them match none of acts.
func (p *pass) walkObjects(ctx context.Context, g *walkGroup, bucket, from string, acts []*engine.CompiledAction) error {
	for _, prefix := range walkPrefixes(acts) {
		if err := p.walkRange(ctx, g, bucket, prefix, from, acts); err != nil {
			return err
		}
	}
	return nil
}

// walkPrefixes is the sorted key prefixes a walk over acts lists: every
// action's filter prefix, less those inside another one (so the ranges are
// disjoint and, listed in order, keep key order). A single "" means the
// whole bucket: some action selects keys by tags or size alone.
func walkPrefixes(acts []*engine.CompiledAction) []string {
	var all []string
	for _, a := range acts {
		if a.Rule.Filter.Prefix == "" {
			return []string{""}
		}
		all = append(all, a.Rule.Filter.Prefix)
	}
	sort.Strings(all)
	var out []string
	for _, pfx := range all {
		if n := len(out); n > 0 && strings.HasPrefix(pfx, out[n-1]) {
			continue // inside the previous range (or the same prefix)
		}
		out = append(out, pfx)
	}
	return out
}

// beforePrefix is a listing start below every key with prefix pfx: pfx
// without its last rune (so still valid UTF-8, which the stores' listing
// APIs require). Keys between it and pfx are listed and skipped.
func beforePrefix(pfx string) string {
	_, size := utf8.DecodeLastRuneInString(pfx)
	return pfx[:len(pfx)-size]
}

// walkRange lists the keys of bucket with prefix ("" for all) after from
// and queues every due match on keys of the group's shards, each key's
// last match carrying the key as a recovery walk's position, and each page
// ending with a mark at its last key.
func (p *pass) walkRange(ctx context.Context, g *walkGroup, bucket, prefix, from string, acts []*engine.CompiledAction) error {
	after := beforePrefix(prefix)
	if from > after {
		if from >= prefix && !strings.HasPrefix(from, prefix) {
			return nil // every shard is past the whole range
		}
		after = from
	}
	for !g.allStopped() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var objs []filer.Object
		var next string
		err := p.withRetry(ctx, func() error {
			var e error
			objs, next, e = p.cfg.Store.ListObjects(ctx, bucket, after, p.pageSize)
			return e
		})
		if err != nil {
			return err
		}
		p.cfg.Progress.addWalked(len(objs))
		last, past, err := p.queueObjects(ctx, g, bucket, prefix, objs, acts)
		if err != nil {
			return err
		}
		// Every shard's part of the page up to last is queued.
		if last != "" {
			if err := g.markEach(ctx, walkItem{bucket: bucket, phase: phaseObjects, pos: last, mark: true}); err != nil {
				return err
			}
		}
		if past || next == "" {
			return nil
		}
		after = next
	}
	return nil
}

// queueObjects queues the due matches of one listed page of the range
// with prefix. last is the page's last key before the end of the range;
// past says the page went beyond it.
func (p *pass) queueObjects(ctx context.Context, g *walkGroup, bucket, prefix string, objs []filer.Object, acts []*engine.CompiledAction) (last string, past bool, err error) {
	var items []walkItem
	for i := range objs {
		obj := &objs[i]
		if !strings.HasPrefix(obj.Key, prefix) {
			if obj.Key > prefix {
				return last, true, nil // past the range
			}
			last = obj.Key
			continue // between the listing start and the range
		}
		last = obj.Key
		s := g.owner(bucket, obj.Key, phaseObjects, obj.Key)
		if s == nil {
			continue
		}
		s.tally.walked(1)
		if obj.Err != nil {
			if p.keyNotice(s.id, bucket, obj.Key, obj.Err) {
				continue // ambiguous: no action, reported
			}
			if err := g.queue(ctx, s, walkItem{bucket: bucket, err: obj.Err}); err != nil {
				return last, false, err
			}
			continue
		}
		p.noteColdKey(s, bucket, obj, acts)
		items = items[:0]
		key := p.snap.ForKey(obj)
		for idx := range obj.Versions {
			m, act, ok := key.BestVersionMatch(acts, idx)
			if !ok || !m.IsDue(p.cfg.RunNow) {
				continue
			}
			items = append(items, walkItem{bucket: bucket, vt: &versionTarget{obj: obj, idx: idx}, m: m, act: act, phase: phaseObjects})
		}
		if n := len(items); n > 0 && s.walkPos != nil {
			items[n-1].pos = obj.Key // the key is done once its last match is
		}
		for _, it := range items {
			if err := g.queue(ctx, s, it); err != nil {
				return last, false, err
			}
		}
	}
	return last, false, nil
}

// trackColdKeys starts recording, for a cold-start shard, which keys the
// recovery walk leaves with a replay match not yet due or a dispatch not
// DONE. The walk lists every key after runNow and dispatches every due
// match, so the replay that follows in the same pass can only find pending
// matches, and only on those keys: it skips the lookup for every other key
// (each lookup is a round trip, and a cold start replays up to the longest
// rule's TTL of meta-log). A walk resumed from earlier passes starts from
// what they saved (walkkeys.go).
func (p *pass) trackColdKeys(s *shardRun) {
	if s.walkPlan == WalkRecovery && !s.found {
		s.coldKeys = newStableKeyDues(p.spill, memMax(p.cfg, coldKeysMemMax))
		s.takeLoadedKeys()
	}
}

// settledByColdWalk reports whether the cold-start recovery walk of the
// shard owning bucket/key (by key, as walks shard) finished without error
// this pass, listed the key no earlier than the event at tsNs (this pass,
// or an earlier pass of a resumed walk), so dispatched every match due
// then, and left no replay match on it that is due now or was not
// settled: replaying the event can find nothing more. With anyPending, a
// key the walk left with only matches not due yet counts as settled too,
// with pendingDue the earliest of their due times: the replaying shard's
// cursor is frozen already, so the event only needs to be marked pending,
// not looked up. The shard replaying an event is the key's owner
// (EventShard), whose walk it waits for.
func (p *pass) settledByColdWalk(bucket, key string, tsNs int64, anyPending bool) (settled bool, pendingDue int64) {
	o := p.byID[lifecycle.ShardID(bucket, key)]
	if o == nil || o.walk == nil {
		return false, 0
	}
	select {
	case <-o.walk.done:
	default:
		return false, 0
	}
	if o.walk.errs[o.id] != nil || o.coldKeys == nil || o.walkPos == nil {
		return false, 0
	}
	if at, ok := o.walkPos.walkedAt(bucket, key, p.runNowNs); !ok || tsNs > at {
		return false, 0
	}
	// A spill file that cannot be read settles nothing: the key is looked
	// up.
	due, pending, err := o.coldKeys.get(lookupKey(bucket, key))
	if err != nil {
		return false, 0
	}
	if !pending {
		return true, 0
	}
	if due <= p.runNowNs { // not settled, or come due since
		return false, 0
	}
	return anyPending, due
}

// noteColdKey records obj's key, with the earliest due time, when a replay
// action matches one of its versions but is not due yet.
func (p *pass) noteColdKey(s *shardRun, bucket string, obj *filer.Object, acts []*engine.CompiledAction) {
	if s.coldKeys == nil {
		return
	}
	k := lookupKey(bucket, obj.Key)
	key := p.snap.ForKey(obj)
	for idx := range obj.Versions {
		for _, a := range acts {
			if !a.Key.Kind.ReplayEligible() {
				continue
			}
			if m, ok := key.EvaluateVersion(a, idx); ok && !m.IsDue(p.cfg.RunNow) {
				s.coldMu.Lock()
				s.coldKeys.note(k, dueNs(m))
				s.coldMu.Unlock()
			}
		}
	}
}

// walkUploads lists bucket's incomplete uploads and queues every due match
// on keys of the group's shards. A recovery walk records only that a
// bucket's uploads are done: ListUploads' markers are the store's own
// (opaque, in the store's order), so a listing cut short is listed again
// from its start, and an upload aborted already is NOOP_RESOLVED.
func (p *pass) walkUploads(ctx context.Context, g *walkGroup, bucket string, acts []*engine.CompiledAction) error {
	after := ""
	for !g.allStopped() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var ups []filer.Upload
		var next string
		err := p.withRetry(ctx, func() error {
			var e error
			ups, next, e = p.cfg.Store.ListUploads(ctx, bucket, after, p.pageSize)
			return e
		})
		if err != nil {
			return err
		}
		p.cfg.Progress.addWalked(len(ups))
		for i := range ups {
			up := &ups[i]
			s := g.owner(bucket, up.Key, phaseUploads, "")
			if s == nil {
				continue
			}
			s.tally.walked(1)
			m, act, ok := p.snap.BestUploadMatch(acts, up)
			if !ok || !m.IsDue(p.cfg.RunNow) {
				continue
			}
			if err := g.queue(ctx, s, walkItem{bucket: bucket, up: up, m: m, act: act, phase: phaseUploads}); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
	return nil
}
