package explain

import (
	"context"
	"fmt"

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
	// Read from the earliest replay start of any shard (the key's events
	// shard by filer path, so they may fall to any shard), and at least
	// the window a cold start replays, the longest replay rule's TTL: an
	// event before every cursor is then still found and placed.
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
			if ev.Type == filer.EventMPUInit {
				st.pendingInits = append(st.pendingInits, ev)
			}
		}
		st.LastEvent = e
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the meta-log: %w", err)
	}
	return nil
}
