package dailyrun

import (
	"context"
	"fmt"
	"slices"

	"github.com/ilmctl/ilmctl/core/filer"
)

// A store that keeps its newest meta-log events in memory
// (filer.MetaLogRestarts: SeaweedFS) loses them when its server dies
// uncleanly. Replay cannot decide an event that is gone, so every shard's
// cursor keeps the meta-log writers its pass found; a writer found later
// that is missing there, and that followed another, may have replaced one
// that died. The shard then walks every rule (recovery: filer_restart),
// and once more at each time a lost event's match can come due: the
// restart plus each replay rule's effective TTL (Cursor.Rewalks)
// (docs/design/daily-run.md#filer-restarts).

// maxWriters bounds Cursor.Writers: the pass keeps the newest ones. A
// writer dropped and found again looks new, which costs a walk.
const maxWriters = 64

// maxRewalks bounds Cursor.Rewalks: past it the two closest times merge
// into the later one, which walks later and never deletes sooner.
const maxRewalks = 32

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

// planRestarts sets, for shard s, the writers and rewalks its cursor
// saves and whether this pass walks every rule because of a restart.
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
	var rewalks []int64
	if s.found {
		rewalks = slices.Clone(s.persisted.Rewalks)
	}
	// A cursor that never recorded writers (older ilmctl, SeaweedFS's
	// worker) has nothing to compare with: this pass records them.
	if s.found && s.persisted.Writers != nil {
		for _, w := range ws {
			if w.Successor && !slices.Contains(s.persisted.Writers, w.ID) {
				// This pass walks, after the writer began: its file
				// exists. BeganByNs bounds the start from above and can
				// be past the pass clock.
				s.restartedBy = append(s.restartedBy, w.ID)
				s.rewalkFromNs = max(s.rewalkFromNs, min(w.BeganByNs, p.runNowNs))
				for _, ttl := range p.effectiveTTLs {
					rewalks = append(rewalks, w.BeganByNs+int64(ttl))
				}
			}
		}
	}
	rewalks = mergeRewalks(rewalks)
	for len(rewalks) > 0 && rewalks[0] <= p.runNowNs {
		s.rewalkNow = true
		s.rewalkFromNs = max(s.rewalkFromNs, rewalks[0])
		rewalks = rewalks[1:]
	}
	s.rewalks = rewalks
	s.writers = make([]string, 0, len(ws))
	for _, w := range ws[max(0, len(ws)-maxWriters):] {
		s.writers = append(s.writers, w.ID)
	}
	return nil
}

// mergeRewalks sorts ts, drops repeats and, past maxRewalks, merges the
// two closest times into the later one.
func mergeRewalks(ts []int64) []int64 {
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for len(ts) > maxRewalks {
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

// withRestarts is c with what planRestarts found for s.
func (s *shardRun) withRestarts(c Cursor) Cursor {
	c.Writers, c.Rewalks = s.writers, s.rewalks
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

// restartWalk reports whether s walks every rule this pass because of a
// restart: one found now, or a rewalk come due.
func (s *shardRun) restartWalk() bool { return s.rewalkNow || len(s.restartedBy) > 0 }
