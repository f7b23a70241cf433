package dailyrun

import (
	"context"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// replayWindow is how many events a shard looks up ahead of the one it is
// deciding. Lookups are the replay's round trips and do not depend on each
// other; decisions, dispatches and the cursor stay in event order.
const replayWindow = 16

// drain replays the shard's events after pl.start through the replay view
// and returns the cursor to save, with its pending summary: the last event
// whose matches all completed, frozen before the first event with a match
// not yet due so pending matches stay in scope across passes
// (docs/design/daily-run.md#cursor). When the stream delivered everything
// up to the boundary and nothing is pending, the cursor moves to the
// boundary. With a usable summary in pl, only the segments due now and the
// events after the summary's DecidedThroughNs are decided; the other
// segments are carried forward unread and count as pending
// (docs/design/daily-run.md#pending-summary). A non-nil error halted the
// shard.
func (p *pass) drain(ctx context.Context, s *shardRun, view *engine.Snapshot, pl replayPlan) (int64, *Summary, error) {
	startTsNs := pl.start
	lastOK := startTsNs
	// throughOK is how far every event is decided with its dispatches
	// finished (or carried, or pending): the summary's DecidedThroughNs.
	throughOK := startTsNs
	frozen := false
	in := s.queue.ch
	var window []*replayStep
	b := newSummaryBuilder()
	due, carried := pl.due, pl.carried
	// needed says whether the event at ts is one this shard decides: the
	// fan-out may deliver events other shards need.
	needed := func(ts int64) bool {
		if ts <= startTsNs {
			return false
		}
		if pl.sum == nil || ts > pl.sum.DecidedThroughNs {
			return true
		}
		for len(due) > 0 && due[0].LastTsNs < ts {
			due = due[1:]
		}
		return len(due) > 0 && due[0].FirstTsNs <= ts
	}
	// Decisions are made in event order; their deletes run several at once
	// (fl), and the cursor moves past an event only once it and every
	// event before it completed (decided).
	fl := p.newFlight()
	var decided []decidedEvent
	// carryBefore queues every carried segment that starts before ts: it
	// is pending, so the cursor stops before it.
	carryBefore := func(ts int64) {
		for len(carried) > 0 && carried[0].FirstTsNs < ts {
			g := carried[0]
			carried = carried[1:]
			decided = append(decided, decidedEvent{tsNs: g.FirstTsNs - 1, throughNs: g.LastTsNs, advances: !frozen})
			frozen = true
			s.frozen = true
			b.carry(g)
		}
	}
	settle := func(block bool) error {
		for len(decided) > 0 {
			d := decided[0]
			if d.t != nil {
				if block {
					<-d.t.done
				} else {
					select {
					case <-d.t.done:
					default:
						return nil
					}
				}
				if d.t.err != nil {
					return d.t.err
				}
			}
			if d.advances {
				lastOK = d.tsNs
			}
			throughOK = d.throughNs
			decided = decided[1:]
		}
		return nil
	}
	halt := func(err error) (int64, *Summary, error) {
		fl.wait()
		if serr := settle(true); serr != nil {
			err = serr // the earliest failure in event order
		}
		return lastOK, b.summary(lastOK, throughOK), err
	}
	for in != nil || len(window) > 0 {
		if fl.anyFailed() {
			return halt(nil)
		}
		// Top the window up; wait for an event only when it is empty.
		for in != nil && len(window) < replayWindow {
			var ev filer.Event
			ok, waited := true, len(window) == 0
			if waited {
				select {
				case ev, ok = <-in:
				case <-ctx.Done():
					return halt(ctx.Err())
				}
			} else {
				select {
				case ev, ok = <-in:
				default:
					waited = true // nothing buffered: decide what we have
				}
				if waited {
					break
				}
			}
			if !ok {
				in = nil
				break
			}
			if needed(ev.TsNs) {
				window = append(window, p.startReplay(ctx, s, view, ev))
			}
		}
		if len(window) == 0 {
			continue
		}
		step := window[0]
		window = window[1:]
		carryBefore(step.ev.TsNs)
		s.res.EventsScanned++
		p.cfg.Progress.addEvent()
		jobs, pendingDue, err := p.finishReplay(ctx, s, step)
		if err != nil {
			return halt(err)
		}
		if pendingDue != 0 {
			frozen = true
			b.pending(step.ev.TsNs, pendingDue)
		}
		s.frozen = frozen
		d := decidedEvent{tsNs: step.ev.TsNs, throughNs: step.ev.TsNs, advances: !frozen}
		if len(jobs) > 0 {
			d.t = fl.start(ctx, lookupKey(step.ev.Bucket, step.ev.Key), func() error {
				// A key's deletes go one after the other, as a walk's do.
				var err error
				for _, job := range jobs {
					if err = p.dispatch(ctx, s, job); err != nil {
						break
					}
				}
				if step.look != nil {
					p.forgetLookup(lookupKey(step.ev.Bucket, step.ev.Key), step.look)
				}
				return err
			})
		}
		decided = append(decided, d)
		if err := settle(false); err != nil {
			return halt(err)
		}
	}
	if last, sum, err := halt(nil); err != nil {
		return last, sum, err
	}
	complete, truncated := s.queue.state()
	s.res.Truncated = truncated
	if complete && ctx.Err() == nil {
		// Every span was delivered: the carried segments left are all
		// before the boundary, and everything up to it is decided.
		carryBefore(p.untilNs + 1)
		if err := settle(true); err != nil {
			return halt(err)
		}
		if !frozen && p.untilNs > lastOK {
			lastOK = p.untilNs
		}
		throughOK = max(throughOK, p.untilNs)
	}
	return lastOK, b.summary(lastOK, throughOK), ctx.Err()
}

// decidedEvent is a replayed event whose dispatch (t, nil when it had
// none) may still be in flight; advances is false once an earlier event
// had a match not yet due, which freezes the cursor. A carried segment
// is one too, at its first event's TsNs - 1, that never advances what
// follows. throughNs is how far the summary may claim once it settled.
type decidedEvent struct {
	tsNs      int64
	throughNs int64
	advances  bool
	t         *ticket
}

// replayStep is one event on its way through the replay: the actions it
// can trigger and, for version events, the lookup of the key's current
// state, started ahead and finished when done is closed.
type replayStep struct {
	ev   filer.Event
	acts []*engine.CompiledAction
	look *lookup // nil when no lookup is needed
	// coldDue, when not 0, is the earliest due time (Unix ns) of a replay
	// match the cold-start recovery walk left pending on the key: the
	// event is pending without a lookup (see settledByColdWalk).
	coldDue int64
}

// lookup is one key's LookupObject, shared by every event of that key until
// the shard dispatches on the key (see lookups).
type lookup struct {
	done   chan struct{}
	obj    filer.Object
	exists bool
	err    error
}

// lookups caches the pass's key lookups: a key has several events (puts,
// demotions, metadata updates), which shards by path spread over several
// shards (EventShard), and one read serves them all. A shard forgets a key
// after dispatching on it, so the next event reads the state its delete
// left; a change by anyone else, another shard included, only makes the
// identity-checked delete NOOP_RESOLVED. Past lookupCacheMax keys the cache
// starts over.
type lookups map[string]*lookup

// lookupCacheMax is small: a key's events come close together in the
// meta-log (a put and the demotion it causes share an instant), and a
// lookup left pending (a match not due yet) holds the key's versions.
const lookupCacheMax = 1 << 16

// cachedLookup returns the pass's lookup of bucket/key, and whether it is
// new: the caller then starts it.
func (p *pass) cachedLookup(k string) (l *lookup, isNew bool) {
	p.lookupsMu.Lock()
	defer p.lookupsMu.Unlock()
	if l = p.lookups[k]; l != nil {
		return l, false
	}
	if len(p.lookups) >= lookupCacheMax {
		clear(p.lookups)
	}
	l = &lookup{done: make(chan struct{})}
	p.lookups[k] = l
	return l, true
}

// forgetLookup drops l from the cache unless another shard replaced it.
func (p *pass) forgetLookup(k string, l *lookup) {
	p.lookupsMu.Lock()
	defer p.lookupsMu.Unlock()
	if p.lookups[k] == l {
		delete(p.lookups, k)
	}
}

func lookupKey(bucket, key string) string { return bucket + "\x00" + key }

// startReplay selects the actions ev can trigger and starts the lookup of
// the version it names, so a version overwritten or removed since the event
// no longer matches.
func (p *pass) startReplay(ctx context.Context, s *shardRun, view *engine.Snapshot, ev filer.Event) *replayStep {
	st := &replayStep{ev: ev, acts: eventActs(view, ev)}
	if len(st.acts) == 0 || ev.Type == filer.EventMPUInit {
		return st
	}
	if settled, due := p.settledByColdWalk(ev.Bucket, ev.Key, ev.TsNs, s.frozen); settled {
		// The recovery walk left nothing to do on this key, or only
		// matches not due yet (due), which keep the event pending.
		st.acts, st.coldDue = nil, due
		return st
	}
	l, isNew := p.cachedLookup(lookupKey(ev.Bucket, ev.Key))
	st.look = l
	if !isNew {
		return st
	}
	go func() {
		defer close(l.done)
		l.err = p.withRetry(ctx, func() error {
			var e error
			l.obj, l.exists, e = p.cfg.Store.LookupObject(ctx, ev.Bucket, ev.Key)
			return e
		})
	}()
	return st
}

// finishReplay decides one event in order: jobs are the dispatches it
// needs (a removal can need more than one, see removalTargets), pendingDue
// the earliest due time (Unix ns) of a match that exists but is not due
// yet (0 when none); an error halts the shard.
func (p *pass) finishReplay(ctx context.Context, s *shardRun, st *replayStep) (jobs []*dispatchJob, pendingDue int64, err error) {
	if st.coldDue != 0 {
		return nil, st.coldDue, nil
	}
	if len(st.acts) == 0 {
		return nil, 0, nil
	}
	if st.ev.Type == filer.EventMPUInit {
		// The upload's initiation time is the event's TsNs; a completed or
		// aborted upload makes the dispatch NOOP_RESOLVED.
		up := ReplayedUpload(st.ev)
		best, act, found := p.snap.BestUploadMatch(st.acts, &up)
		if !found {
			return nil, 0, nil
		}
		job, pending := p.prepare(s, SourceReplay, st.ev.Bucket, &up, nil, best, act)
		return jobsOf(job), dueIf(pending, best), nil
	}
	l := st.look
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	if l.err != nil {
		if p.keyNotice(s.id, st.ev.Bucket, st.ev.Key, l.err) {
			return nil, 0, nil // ambiguous: no action, reported
		}
		return nil, 0, l.err
	}
	if !l.exists {
		return nil, 0, nil
	}
	anyFound, anyPending := false, false
	key := p.snap.ForKey(&l.obj)
	for _, t := range eventTargets(st.acts, st.ev, &l.obj) {
		idx := t.idx
		best, act, found := key.BestVersionMatch(t.acts, idx)
		if !found {
			continue
		}
		anyFound = true
		job, pending := p.prepare(s, SourceReplay, st.ev.Bucket, nil, &versionTarget{obj: &l.obj, idx: idx}, best, act)
		jobs = append(jobs, jobsOf(job)...)
		if d := dueIf(pending, best); d != 0 && (pendingDue == 0 || d < pendingDue) {
			pendingDue = d
		}
		anyPending = anyPending || pending
	}
	if anyFound && len(jobs) == 0 && !anyPending {
		// As before removals had several targets: a lookup that found a
		// match settled at once is dropped; one that found none serves
		// the key's next events.
		p.forgetLookup(lookupKey(st.ev.Bucket, st.ev.Key), l)
	}
	return jobs, pendingDue, nil
}

// replayDecides reports whether replaying an event of type t decides
// actions of kind k (docs/design/daily-run.md#replay; eventTargets says on
// which versions): ExpirationDays on a latest-version PUT (a delete
// marker's too: a lone one is an expired object delete marker),
// NoncurrentDays on a demotion, AbortMPU on an upload's initiation; the
// walker-bound kinds never. A removal decides ExpirationDays on the key's
// latest version as it is now: a lone delete marker (the removal of the
// last version beneath a marker is what makes it an expired object delete
// marker, long after the marker's own PUT was replayed) or the version the
// removal made latest again. A removal the store marks Noncurrent
// (filer.Event) decides the latest version only when that is a delete
// marker: removing a noncurrent version can make a marker lone but changes
// nothing else about the latest version, whose own events decide it;
// without this, every removal of a noncurrent version kept a pending match
// on its key's latest version and its stretch of meta-log came due again
// each day. A removal also decides NoncurrentDays on the versions whose
// successor it may have been (removalTargets), and a PUT of a version that
// was already noncurrent (a tag or metadata update) decides NoncurrentDays
// on it as well (putActs). Every change that can give a version a replay
// match is thus an event that decides that version
// (docs/design/daily-run.md#pending-summary).
func replayDecides(t filer.EventType, k lifecycle.ActionKind) bool {
	switch k {
	case lifecycle.ExpirationDays:
		return t == filer.EventPut || t == filer.EventRemove
	case lifecycle.NoncurrentDays:
		return t == filer.EventPut || t == filer.EventRemove || t == filer.EventDemote
	case lifecycle.AbortMPU:
		return t == filer.EventMPUInit
	}
	return false
}

// eventActs is the view's active actions of ev's bucket that replaying ev
// decides.
func eventActs(view *engine.Snapshot, ev filer.Event) []*engine.CompiledAction {
	var out []*engine.CompiledAction
	for _, a := range view.BucketActions(ev.Bucket) {
		if a.IsActive() && replayDecides(ev.Type, a.Key.Kind) {
			out = append(out, a)
		}
	}
	return out
}

// eventTarget is one version an event decides, and the actions it decides
// on it.
type eventTarget struct {
	idx  int
	acts []*engine.CompiledAction
}

// eventTargets is what replaying ev with acts (eventActs) decides on the
// key as obj holds it now: a removal decides removalTargets; a put or a
// demotion decides the version it names (a put NoncurrentDays only when
// the version was already noncurrent, putActs).
func eventTargets(acts []*engine.CompiledAction, ev filer.Event, obj *filer.Object) []eventTarget {
	if ev.Type == filer.EventRemove {
		var out []eventTarget
		for _, idx := range removalTargets(obj, ev.Noncurrent) {
			out = append(out, eventTarget{idx: idx, acts: acts})
		}
		return out
	}
	named := versionIndex(obj, ev.VersionID)
	if named < 0 {
		return nil
	}
	if ev.Type == filer.EventPut {
		acts = putActs(acts, &obj.Versions[named], ev.TsNs)
	}
	return []eventTarget{{idx: named, acts: acts}}
}

// EventActs is the actions of the replay view (as a pass with
// metaLogRetention builds it) that replaying ev decides on
// obj.Versions[idx], the key as it is now: what `ilmctl explain` says the
// replay of a pending event reaches.
func EventActs(snap *engine.Snapshot, metaLogRetention time.Duration, ev filer.Event, obj *filer.Object, idx int) []*engine.CompiledAction {
	retention := metaLogRetention
	if retention == 0 {
		retention = engine.MaxEffectiveTTL(snap)
	}
	rv, _ := snap.RulesForShard(0, retention)
	var out []*engine.CompiledAction
	for _, t := range eventTargets(eventActs(rv, ev), ev, obj) {
		if t.idx == idx {
			out = append(out, t.acts...)
		}
	}
	return out
}

// removalTargets is what a removal decides on the key as it is now: the
// latest version, which is either a lone delete marker (the removal of the
// last version beneath a marker is what makes it an expired object delete
// marker) or a version the removal made latest again (unless the store
// marks the removal as one of a noncurrent version and the latest is no
// marker: that changed nothing about it); and every noncurrent version
// whose successor may be the removed one. S3 counts a version's noncurrent
// days from the creation of the successor it has (lifecycle
// noncurrentSince), so removing a successor moves the due time of the
// version below it later, with no event of its own: that version is one
// whose demotion stamp is earlier than its successor's mtime (the stamp
// was written for a successor since removed), or that has no stamp. The
// removed version is gone from the listing, so every such version is
// decided; each is a target of its own.
func removalTargets(obj *filer.Object, noncurrent bool) []int {
	var out []int
	if idx := latestIndex(obj); idx >= 0 && !(noncurrent && !obj.Versions[idx].DeleteMarker) {
		out = append(out, idx)
	}
	for i := 1; i < len(obj.Versions); i++ {
		if ns := obj.Versions[i].NoncurrentSinceNs; ns == 0 || ns < obj.Versions[i-1].MtimeNs {
			out = append(out, i)
		}
	}
	return out
}

// jobsOf is job as a list: none for nil.
func jobsOf(job *dispatchJob) []*dispatchJob {
	if job == nil {
		return nil
	}
	return []*dispatchJob{job}
}

// dueIf is m's due time in Unix ns when pending, else 0.
func dueIf(pending bool, m lifecycle.Match) int64 {
	if !pending {
		return 0
	}
	return dueNs(m)
}

// dueNs is m's due time in Unix ns, at least 1: 0 means "no pending
// match" wherever a due time is kept.
func dueNs(m lifecycle.Match) int64 { return max(m.Due.UnixNano(), 1) }

// putActs is the actions a PUT of v at tsNs decides: ExpirationDays, and
// NoncurrentDays too when v was already noncurrent at that PUT (a tag or
// metadata update of a noncurrent version; a version demoted after its
// PUT is decided by its demotion's event). A version without a
// noncurrent-since stamp counts as already noncurrent.
func putActs(acts []*engine.CompiledAction, v *filer.Version, tsNs int64) []*engine.CompiledAction {
	if v.IsLatest || v.NoncurrentSinceNs == 0 || v.NoncurrentSinceNs <= tsNs {
		return acts
	}
	out := make([]*engine.CompiledAction, 0, len(acts))
	for _, a := range acts {
		if a.Key.Kind != lifecycle.NoncurrentDays {
			out = append(out, a)
		}
	}
	return out
}

func versionIndex(obj *filer.Object, versionID string) int {
	for i := range obj.Versions {
		if obj.Versions[i].VersionID == versionID {
			return i
		}
	}
	return -1
}

// latestIndex is 0 when obj has a latest version (a lone delete marker
// included), else -1.
func latestIndex(obj *filer.Object) int {
	if len(obj.Versions) > 0 && obj.Versions[0].IsLatest {
		return 0
	}
	return -1
}
