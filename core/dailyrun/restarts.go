package dailyrun

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// A store that keeps its newest meta-log events in memory
// (filer.MetaLogRestarts: SeaweedFS) loses them when its server dies
// uncleanly, and replay cannot decide an event that is gone. So every
// shard's cursor keeps the meta-log writers known to it; a writer that a
// later listing finds, that the cursor does not know, that began after
// the listing the cursor knows and that followed another writer, may have
// replaced one that died. Its start is a restart: every event it lost was
// stamped before. A restart, and a restart plus each replay rule's
// effective TTL (when what it lost can come due), that lies after the
// start of the last completed walk of every rule and not after the pass
// clock makes the shard walk every rule (recovery: filer_restart), then
// replay from its cursor as usual
// (docs/design/daily-run.md#filer-restarts).

// maxWriters bounds Cursor.Writers: the writers listed come first, then
// the known ones the listing no longer shows, and the oldest go.
const maxWriters = 64

// maxRestarts bounds Cursor.Restarts: past it the two closest times merge
// into the later one, whose walks come later and never sooner.
const maxRestarts = 32

// restartMargin: a writer whose first file is named up to this long
// before the listing a cursor knows may not have been persisted yet when
// that listing ran (a file names the minute its flush window began, and
// is written up to two minutes later), so it still counts as new.
const restartMargin = 3 * time.Minute

// metaLogWriters lists the store's meta-log writers once per pass; ok is
// false for a store that cannot lose events.
func (p *pass) metaLogWriters(ctx context.Context) (ws []filer.MetaLogWriter, ok bool, err error) {
	rs, ok := p.cfg.Store.(filer.MetaLogRestarts)
	if !ok {
		return nil, false, nil
	}
	p.writersOnce.Do(func() {
		p.writers, p.writersErr = rs.MetaLogWriters(ctx, p.runNowNs)
	})
	return p.writers, true, p.writersErr
}

// planRestarts sets what shard s's cursor saves about restarts and
// whether this pass walks every rule because of one.
func (p *pass) planRestarts(ctx context.Context, s *shardRun) error {
	if p.rsh == ([32]byte{}) { // nothing replays, so nothing is lost to replay
		return nil
	}
	ws, ok, err := p.metaLogWriters(ctx)
	if !ok {
		return nil
	}
	if err != nil {
		return fmt.Errorf("look for a filer restart in the meta-log: %w", err)
	}
	var known []string
	if s.found {
		known = s.persisted.Writers
		s.restarts = slices.Clone(s.persisted.Restarts)
		s.walkedAllNs = s.persisted.WalkedAllNs
	}
	// A restart's time is when its writer began by, but never past the
	// clock of the server (or of the pass, when later: a pass dated in
	// the past still records a restart after its clock as it was).
	nowNs := p.runNowNs
	if !p.cfg.ServerNow.IsZero() {
		nowNs = max(nowNs, p.cfg.ServerNow.UnixNano())
	}
	for _, w := range ws {
		var restart bool
		switch listed := s.persisted.WritersListedNs; {
		case !s.found:
			// A cold start replays from the floor: a restart the
			// listing shows after it lost events replay needs.
			restart = w.FollowsListed && w.BeganByNs > p.floorNs()
		case listed > 0:
			restart = w.Successor && !slices.Contains(known, w.ID) && w.BeganByNs > listed-int64(restartMargin)
		default:
			// A cursor no listing stamped (an older ilmctl, SeaweedFS's
			// worker) has nothing to compare with: this pass records.
		}
		if restart {
			s.restarts = append(s.restarts, min(w.BeganByNs, nowNs))
		}
	}
	s.restarts = mergeRestarts(s.restarts)
	for _, r := range s.restarts {
		for _, ttl := range append([]time.Duration{0}, p.effectiveTTLs...) {
			if at := r + int64(ttl); at > s.walkedAllNs && at <= p.runNowNs {
				s.rewalkNow = true
				s.rewalkFromNs = max(s.rewalkFromNs, at)
			}
		}
	}
	s.writers = knownWriters(ws, known)
	s.listedNs = p.runNowNs
	return nil
}

// knownWriters is what a cursor keeps: the writers listed, in the order
// they first wrote, then those known before that the listing no longer
// shows, at most maxWriters of them, the oldest dropped first.
func knownWriters(listed []filer.MetaLogWriter, known []string) []string {
	out := make([]string, 0, len(listed)+len(known))
	for _, w := range listed {
		if !slices.Contains(out, w.ID) {
			out = append(out, w.ID)
		}
	}
	var gone []string
	for _, id := range known {
		if !slices.Contains(out, id) && !slices.Contains(gone, id) {
			gone = append(gone, id)
		}
	}
	out = append(gone, out...) // oldest first
	return out[max(0, len(out)-maxWriters):]
}

// mergeRestarts sorts ts, drops repeats and, past maxRestarts, merges the
// two closest times into the later one.
func mergeRestarts(ts []int64) []int64 {
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for len(ts) > maxRestarts {
		at := 1
		for i := 2; i < len(ts); i++ {
			if ts[i]-ts[i-1] < ts[at]-ts[at-1] {
				at = i
			}
		}
		ts = slices.Delete(ts, at-1, at)
	}
	if len(ts) == 0 {
		return nil
	}
	return ts
}

// withRestarts is c with what planRestarts found for s. A shard that
// never asked (its store cannot lose events) saves none of it.
func (s *shardRun) withRestarts(c Cursor) Cursor {
	if s.listedNs == 0 {
		return c
	}
	c.Writers, c.WritersListedNs = s.writers, s.listedNs
	c.Restarts, c.WalkedAllNs = s.restarts, s.walkedAllNs
	return c
}

// increasing reports whether ts is positive and strictly increasing.
func increasing(ts []int64) bool {
	for i, t := range ts {
		if t <= 0 || i > 0 && t <= ts[i-1] {
			return false
		}
	}
	return true
}
