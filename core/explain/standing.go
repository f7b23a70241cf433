package explain

import (
	"context"
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// standing fills rep.Pass: the plan of the shard that walks the key and,
// from the meta-log the pass would replay, the key's last event and the
// shard that replays it. On a store without a meta-log every rule is
// walked and there is no event to find.
func standing(ctx context.Context, cfg Config, rep *Report) error {
	plans, untilNs, err := dailyrun.Plan(ctx, dailyrun.Config{
		Store: cfg.Store, Snapshot: cfg.Snapshot, RunNow: cfg.Now, ServerNow: cfg.ServerNow,
		MetaLogRetention: cfg.MetaLogRetention, WalkerInterval: cfg.WalkerInterval,
	})
	if err != nil {
		return fmt.Errorf("plan the pass: %w", err)
	}
	byShard := map[int]dailyrun.ShardPlan{}
	for _, p := range plans {
		byShard[p.Shard] = p
	}
	st := &rep.Pass
	st.Shard = lifecycle.ShardID(cfg.Bucket.Name, cfg.Key)
	st.Plan = byShard[st.Shard]
	st.UntilNs = untilNs
	st.MetaLog = !cfg.NoMetaLog
	if !st.MetaLog {
		return nil
	}
	// Read from the earliest replay start of any shard, and at least the
	// window a cold start replays, the longest replay rule's TTL: an event
	// before every cursor is then still found and placed against its
	// key's shard (EventShard).
	from, any := int64(0), false
	for _, p := range plans {
		if p.Replays && (!any || p.ReplayFromNs < from) {
			from, any = p.ReplayFromNs, true
		}
	}
	if !any {
		return nil
	}
	from = min(from, cfg.Now.UnixNano()-int64(engine.MaxEffectiveTTL(cfg.Snapshot)))
	if from >= untilNs {
		return nil
	}
	st.Scanned, st.ScannedFromNs = true, from
	err = cfg.Store.SubscribeMetadata(ctx, from, untilNs, func(ev filer.Event) error {
		if ev.Bucket != cfg.Bucket.Name || ev.Key != cfg.Key {
			return nil
		}
		shard := dailyrun.EventShard(ev)
		p := byShard[shard]
		e := &Event{Event: ev, Shard: shard, Plan: p, AfterCursor: p.Replays && ev.TsNs > p.ReplayFromNs}
		if e.AfterCursor {
			st.Pending++
			st.pending = append(st.pending, ev)
		}
		st.LastEvent = e
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the meta-log: %w", err)
	}
	return nil
}

// reach says whether the next pass dispatches d's match, and how or why
// not, from the plan of the shard that walks the key and the key's events
// still to be replayed: the walks and replay triggers of dailyrun.
func reach(cfg Config, st *Standing, d *Dispatch) (bool, string) {
	if !d.DueNow {
		return false, "not due yet"
	}
	plan := st.Plan
	if !d.replayOnly {
		switch {
		case plan.Err != nil:
			return false, fmt.Sprintf("shard %02d's cursor cannot be read, so the pass halts that shard", plan.Shard)
		case plan.Walk == "recovery":
			return true, fmt.Sprintf("the recovery walk (%s) of shard %02d", plan.Recovery, plan.Shard)
		case d.Walk && plan.Walk != "":
			return true, fmt.Sprintf("the steady-state walk of shard %02d", plan.Shard)
		}
	}
	if d.Replay {
		for _, ev := range st.pending {
			if triggers(cfg, d, ev) {
				return true, fmt.Sprintf("replay of its %s event at %s", ev.Type, time.Unix(0, ev.TsNs).UTC().Format(time.RFC3339))
			}
		}
	}
	if d.Walk {
		return false, fmt.Sprintf("shard %02d does not walk next pass (last walk %s, --walker-interval %s)", plan.Shard,
			time.Unix(0, plan.Cursor.LastWalkedNs).UTC().Format(time.RFC3339), cfg.WalkerInterval)
	}
	return false, "none of its meta-log events is left to replay and the pass does not walk it"
}

// triggers reports whether replaying ev decides d's action on its target,
// as dailyrun's replay does (dailyrun.EventActs): an abort on the upload's
// initiation; on a version, the replay actions ev's type decides on it on
// the key as it is now (its own put or demotion, or a removal beside it).
func triggers(cfg Config, d *Dispatch, ev filer.Event) bool {
	if d.act == nil {
		return false
	}
	if d.act.Key.Kind == lifecycle.AbortMPU {
		return ev.Type == filer.EventMPUInit && ev.UploadID == d.uploadID
	}
	if d.obj == nil {
		return false
	}
	for _, a := range dailyrun.EventActs(cfg.Snapshot, cfg.MetaLogRetention, ev, d.obj, d.idx) {
		if a.Key == d.act.Key {
			return true
		}
	}
	return false
}

// replayAlternative is what the replay of the key's pending events
// dispatches on d's version when the pass does not reach d itself (a
// walked action whose walk does not fire): replay decides each event with
// the replay view's actions of the kind the event triggers, as dailyrun's
// router does, so another rule's due match can go first. nil when none.
func replayAlternative(cfg Config, st *Standing, d *Dispatch) *Dispatch {
	if d.obj == nil {
		return nil
	}
	for _, ev := range st.pending {
		acts := dailyrun.EventActs(cfg.Snapshot, cfg.MetaLogRetention, ev, d.obj, d.idx)
		if len(acts) == 0 {
			continue
		}
		m, act, ok := cfg.Snapshot.BestVersionMatch(acts, d.obj, d.idx)
		if !ok || !m.IsDue(cfg.Now) {
			continue
		}
		alt := *d
		alt.RuleID, alt.Kind, alt.Due, alt.DueNow, alt.act = m.RuleID, m.Kind, m.Due, true, act
		alt.BytesFreed = lifecycle.BytesFreed(m.Kind, cfg.Snapshot.Versioning(cfg.Bucket.Name), d.obj, d.idx)
		alt.Replay, alt.Walk = dailyrun.ReplayMode(cfg.Snapshot, cfg.MetaLogRetention, act.Key)
		alt.Held = ""
		if why, _ := heldBy(m.Kind, cfg.Bucket.Versioning, d.obj, d.idx, cfg.Now); why != "" {
			alt.Held = why
		}
		alt.NextPass = true
		alt.Via = fmt.Sprintf("replay of its %s event at %s (the earlier due %s of rule %s waits for a walk: %s)",
			ev.Type, time.Unix(0, ev.TsNs).UTC().Format(time.RFC3339), d.Kind, d.RuleID, d.Via)
		return &alt
	}
	return nil
}
