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
	WalkRecovery    WalkKind = "recovery"     // RecoveryView: cold start, rule edit, partition flip
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
	case !s.found || p.mustRecover(s):
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

// walkItem is one due match for a shard's dispatcher.
type walkItem struct {
	bucket string
	up     *filer.Upload
	vt     *versionTarget
	m      lifecycle.Match
	act    *engine.CompiledAction
	// err, when set, is a key of this shard the listing could not read;
	// the shard halts on it.
	err error
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
		p.trackColdKeys(s)
	}
	for _, g := range groups {
		go p.runWalk(ctx, g)
	}
}

// awaitWalk waits for s's shared walk and returns why s's part of it did
// not complete, nil when it did.
func (s *shardRun) awaitWalk() error {
	<-s.walk.done
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
			p.dispatchWalk(ctx, g, s, ch)
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
// not complete it drains the rest without dispatching.
func (p *pass) dispatchWalk(ctx context.Context, g *walkGroup, s *shardRun, ch <-chan walkItem) {
	fl := p.newFlight()
	defer fl.wait()
	for it := range ch {
		if g.stopped(s.id) {
			continue
		}
		if it.err != nil {
			// A key this shard owns could not be read: the shard stops
			// here, in key order, after everything before it is
			// dispatched (a failure among those comes first).
			fl.wait()
			g.fail(s.id, it.err)
			continue
		}
		key := lookupKey(it.bucket, it.key())
		job, _ := p.prepare(s, SourceWalker, it.bucket, it.up, it.vt, it.m, it.act)
		if job == nil {
			continue
		}
		if s.coldUnsettled != nil {
			job.onOutcome = func(out filer.Outcome) {
				if out != filer.OutcomeDone {
					s.coldMu.Lock()
					s.coldUnsettled.add(key)
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
	}
}

// listView lists every bucket the view has actions for and queues each due
// match; matches not yet due are left to replay or a later walk. A bucket
// whose listing fails (after retries) is skipped and the walk goes on with
// the next one; its failure is returned in bucketErrs. Only cancellation
// ends the walk at once (err).
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
		if len(versionActs) > 0 {
			if err := p.walkObjects(ctx, g, bucket, versionActs); err != nil {
				if isCancel(err) || ctx.Err() != nil {
					return bucketErrs, err
				}
				bucketErrs = append(bucketErrs, fmt.Errorf("walk of bucket %s stopped: %w", bucket, err))
			}
		}
		if len(uploadActs) > 0 {
			if err := p.walkUploads(ctx, g, bucket, uploadActs); err != nil {
				if isCancel(err) || ctx.Err() != nil {
					return bucketErrs, err
				}
				bucketErrs = append(bucketErrs, fmt.Errorf("walk of bucket %s uploads stopped: %w", bucket, err))
			}
		}
	}
	return bucketErrs, nil
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

// owner returns the shard that owns bucket/key if it is in the group and
// its walk has not stopped.
func (g *walkGroup) owner(bucket, key string) *shardRun {
	s := g.shards[lifecycle.ShardID(bucket, key)]
	if s == nil || g.stopped(s.id) {
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

// walkObjects lists bucket and queues every due match on keys of the
// group's shards. Only the key ranges some action's prefix can select are
// listed (walkPrefixes); keys outside them match none of acts.
func (p *pass) walkObjects(ctx context.Context, g *walkGroup, bucket string, acts []*engine.CompiledAction) error {
	for _, prefix := range walkPrefixes(acts) {
		if err := p.walkRange(ctx, g, bucket, prefix, acts); err != nil {
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

// walkRange lists the keys of bucket with prefix ("" for all) and queues
// every due match on keys of the group's shards.
func (p *pass) walkRange(ctx context.Context, g *walkGroup, bucket, prefix string, acts []*engine.CompiledAction) error {
	after := beforePrefix(prefix)
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
		for i := range objs {
			obj := &objs[i]
			if !strings.HasPrefix(obj.Key, prefix) {
				if obj.Key > prefix {
					return nil // past the range
				}
				continue // between the listing start and the range
			}
			s := g.owner(bucket, obj.Key)
			if s == nil {
				continue
			}
			if obj.Err != nil {
				if p.keyNotice(s.id, bucket, obj.Key, obj.Err) {
					continue // ambiguous: no action, reported
				}
				if err := g.queue(ctx, s, walkItem{bucket: bucket, err: obj.Err}); err != nil {
					return err
				}
				continue
			}
			p.noteColdKey(s, bucket, obj, acts)
			for idx := range obj.Versions {
				m, act, ok := p.snap.BestVersionMatch(acts, obj, idx)
				if !ok || !m.IsDue(p.cfg.RunNow) {
					continue
				}
				if err := g.queue(ctx, s, walkItem{bucket: bucket, vt: &versionTarget{obj: obj, idx: idx}, m: m, act: act}); err != nil {
					return err
				}
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
	return nil
}

// trackColdKeys starts recording, for a cold-start shard, which keys the
// recovery walk leaves with a replay match not yet due. The walk lists
// every key after runNow and dispatches every due match, so the replay
// that follows in the same pass can only find pending matches, and only on
// those keys: it skips the lookup for every other key (each lookup is a
// round trip, and a cold start replays up to the longest rule's TTL of
// meta-log).
func (p *pass) trackColdKeys(s *shardRun) {
	if s.walkPlan == WalkRecovery && !s.found {
		s.coldKeys, s.coldUnsettled = newKeyDues(p.spill, memMax(p.cfg, coldKeysMemMax)), newKeySet(p.spill, memMax(p.cfg, coldKeysMemMax))
	}
}

// settledByColdWalk reports whether the cold-start recovery walk of the
// shard owning bucket/key (by key, as walks shard) finished without error
// this pass, so dispatched every due match on the key, and left no replay
// match pending on it: replaying the key's events can find nothing more.
// With anyPending, a key the walk left pending counts as settled too,
// with pendingDue the earliest due time the walk found on it: the
// replaying shard's cursor is frozen already, so the event only needs to
// be marked pending, not looked up, and the walk dispatched every due
// match. The shard replaying an event is the owner unless the store
// shards events by path (see EventShard); another shard relies on the
// owner's walk only once it has finished, and otherwise looks the key up.
func (p *pass) settledByColdWalk(bucket, key string, anyPending bool) (settled bool, pendingDue int64) {
	o := p.byID[lifecycle.ShardID(bucket, key)]
	if o == nil || o.walk == nil {
		return false, 0
	}
	select {
	case <-o.walk.done:
	default:
		return false, 0
	}
	if o.walk.errs[o.id] != nil || o.coldKeys == nil {
		return false, 0
	}
	k := lookupKey(bucket, key)
	// A spill file that cannot be read settles nothing: the key is looked
	// up.
	if unsettled, err := o.coldUnsettled.has(k); err != nil || unsettled {
		return false, 0
	}
	due, pending, err := o.coldKeys.get(k)
	if err != nil {
		return false, 0
	}
	if !pending {
		return true, 0
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
	for idx := range obj.Versions {
		for _, a := range acts {
			if !a.Key.Kind.ReplayEligible() {
				continue
			}
			if m, ok := p.snap.EvaluateVersion(a, obj, idx); ok && !m.IsDue(p.cfg.RunNow) {
				s.coldKeys.note(k, dueNs(m))
			}
		}
	}
}

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
			s := g.owner(bucket, up.Key)
			if s == nil {
				continue
			}
			m, act, ok := p.snap.BestUploadMatch(acts, up)
			if !ok || !m.IsDue(p.cfg.RunNow) {
				continue
			}
			if err := g.queue(ctx, s, walkItem{bucket: bucket, up: up, m: m, act: act}); err != nil {
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
