package dailyrun

import (
	"context"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// drain replays the shard's events after startTsNs through the replay view
// and returns the cursor to save: the last event whose matches all
// completed, frozen before the first event with a match not yet due so
// pending matches stay in scope across passes (design 000 § Cursor). When
// the stream delivered everything up to runNow and nothing is pending, the
// cursor moves to runNow. A non-nil error halted the shard.
func (p *pass) drain(ctx context.Context, s *shardRun, view *engine.Snapshot, startTsNs int64) (int64, error) {
	lastOK := startTsNs
	frozen := false
	for {
		var ev filer.Event
		var ok bool
		select {
		case ev, ok = <-s.queue.ch:
		case <-ctx.Done():
			return lastOK, ctx.Err()
		}
		if !ok {
			break
		}
		if ev.TsNs <= startTsNs {
			continue
		}
		s.res.EventsScanned++
		pending, err := p.replayEvent(ctx, s, view, ev)
		if err != nil {
			return lastOK, err
		}
		frozen = frozen || pending
		if !frozen {
			lastOK = ev.TsNs
		}
	}
	complete, truncated := s.queue.state()
	s.res.Truncated = truncated
	if complete && !frozen && p.untilNs > lastOK {
		lastOK = p.untilNs
	}
	return lastOK, ctx.Err()
}

// triggers lists the replay kinds each event type can trigger (design 000
// § Action kinds): ExpirationDays on a latest-version PUT, NoncurrentDays on
// a demotion, AbortMPU on an upload's initiation.
var triggers = map[filer.EventType]lifecycle.ActionKind{
	filer.EventPut:     lifecycle.ExpirationDays,
	filer.EventDemote:  lifecycle.NoncurrentDays,
	filer.EventMPUInit: lifecycle.AbortMPU,
}

// replayEvent routes one event: it looks up the current state of the
// version the event names and evaluates the triggered kind against it, so a
// version overwritten or removed since the event no longer matches. pending
// is true when a match exists but is not due yet.
func (p *pass) replayEvent(ctx context.Context, s *shardRun, view *engine.Snapshot, ev filer.Event) (pending bool, err error) {
	kind, ok := triggers[ev.Type]
	if !ok {
		return false, nil
	}
	var acts []*engine.CompiledAction
	for _, a := range view.BucketActions(ev.Bucket) {
		if a.IsActive() && a.Key.Kind == kind {
			acts = append(acts, a)
		}
	}
	if len(acts) == 0 {
		return false, nil
	}
	if kind == lifecycle.AbortMPU {
		// The upload's initiation time is the event's TsNs; a completed or
		// aborted upload makes the dispatch NOOP_RESOLVED.
		up := filer.Upload{Key: ev.Key, UploadID: ev.UploadID, Initiated: unixNs(ev.TsNs)}
		best, found := bestUploadMatch(acts, &up, p.snap.Rounding)
		if !found {
			return false, nil
		}
		return p.handle(ctx, s, "replay", ev.Bucket, &up, nil, best)
	}
	var obj filer.Object
	var exists bool
	err = p.withRetry(ctx, func() error {
		var e error
		obj, exists, e = p.cfg.Store.LookupObject(ctx, ev.Bucket, ev.Key)
		return e
	})
	if err != nil || !exists {
		return false, err
	}
	idx := versionIndex(&obj, ev.VersionID)
	if idx < 0 {
		return false, nil
	}
	best, found := bestVersionMatch(acts, &obj, idx, p.snap.Rounding)
	if !found {
		return false, nil
	}
	return p.handle(ctx, s, "replay", ev.Bucket, nil, &versionTarget{obj: &obj, idx: idx}, best)
}

func versionIndex(obj *filer.Object, versionID string) int {
	for i := range obj.Versions {
		if obj.Versions[i].VersionID == versionID {
			return i
		}
	}
	return -1
}

// bestVersionMatch is the earliest-due match of acts on obj.Versions[idx]:
// a delete wins over nothing and the earliest due delete applies.
func bestVersionMatch(acts []*engine.CompiledAction, obj *filer.Object, idx int, rnd lifecycle.Rounding) (lifecycle.Match, bool) {
	var best lifecycle.Match
	found := false
	for _, a := range acts {
		if !a.IsActive() || a.Key.Kind == lifecycle.AbortMPU {
			continue
		}
		m, ok := lifecycle.EvaluateVersion(a.Rule, a.Key.Kind, obj, idx, rnd)
		if ok && (!found || m.Earlier(best)) {
			best, found = m, true
		}
	}
	return best, found
}

func bestUploadMatch(acts []*engine.CompiledAction, up *filer.Upload, rnd lifecycle.Rounding) (lifecycle.Match, bool) {
	var best lifecycle.Match
	found := false
	for _, a := range acts {
		if !a.IsActive() || a.Key.Kind != lifecycle.AbortMPU {
			continue
		}
		m, ok := lifecycle.EvaluateUpload(a.Rule, up, rnd)
		if ok && (!found || m.Earlier(best)) {
			best, found = m, true
		}
	}
	return best, found
}
