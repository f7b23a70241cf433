package dailyrun

import (
	"context"
	"errors"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// ShardPlan is where a pass with Config would stand on one shard before
// it runs: the cursor it would load and what it would do with it. Plan
// computes it with the pass's own planning code (prepareShard, walkPlan,
// drains), reading cursors only, so `ilmctl explain` says what the next
// pass will do and cannot drift from it.
type ShardPlan struct {
	Shard int
	// Found is false when the shard has no cursor (cold start).
	Found  bool
	Cursor Cursor
	// Err is why the cursor could not be read (ErrCorruptCursor, a read
	// error); the pass halts such a shard.
	Err error
	// Walk is the walk the pass fires for the shard: "recovery",
	// "steady_state", "empty_replay", or "" for none.
	Walk WalkKind
	// Recovery is why a recovery walk fires: cold_start, rule_edit,
	// partition_flip, takeover, filer_restart; "" otherwise.
	Recovery RecoveryReason
	// Replays says whether the shard replays the meta-log this pass, and
	// ReplayFromNs from where (Unix ns, exclusive): its cursor, or on a
	// cold start the floor runNow minus the longest replay rule.
	Replays      bool
	ReplayFromNs int64
}

// Plan returns the plan of each shard in cfg.Shards (nil: all 16) and the
// Unix-ns time up to which the pass would read the meta-log (inclusive).
// It writes nothing; cfg.DryRun, Limiter and the callbacks are ignored.
func Plan(ctx context.Context, cfg Config) ([]ShardPlan, int64, error) {
	if cfg.Store == nil || cfg.Snapshot == nil || cfg.RunNow.IsZero() {
		return nil, 0, errors.New("dailyrun: Store, Snapshot and RunNow are required")
	}
	shards, quota, err := cfg.shardOrder()
	if err != nil {
		return nil, 0, err
	}
	shards = shards[:quota] // no lease is taken: a fleet host plans its block
	p := newPass(cfg)
	defer p.spill.close()
	out := make([]ShardPlan, 0, len(shards))
	for _, id := range shards {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		s := p.prepareShard(ctx, id)
		sp := ShardPlan{Shard: id, Found: s.found, Cursor: s.persisted, Err: s.loadErr, Walk: p.walkPlan(s)}
		if sp.Walk == WalkRecovery {
			sp.Recovery = p.recoveryReason(s)
		}
		// A rule edit, partition flip or takeover walks, rewinds and
		// stops; a cold start and a filer restart replay after their
		// recovery walk (runShard).
		if p.drains(s) {
			sp.Replays = true
			sp.ReplayFromNs = p.replayFloor(s)
			if s.found {
				sp.ReplayFromNs = s.persisted.TsNs
			}
		}
		out = append(out, sp)
	}
	return out, p.untilNs, nil
}

// ReplayMode says how a pass with snap's rules and retention (as
// Config.MetaLogRetention) finds an action's matches: replay of its
// meta-log events, walks, or both (replay kinds in Object Lock buckets).
// It is RulesForShard's partition, as the pass computes it.
func ReplayMode(snap *engine.Snapshot, metaLogRetention time.Duration, key engine.ActionKey) (replay, walk bool) {
	retention := metaLogRetention
	if retention == 0 {
		retention = engine.MaxEffectiveTTL(snap)
	}
	rv, wv := snap.RulesForShard(0, retention)
	has := func(v *engine.Snapshot) bool {
		for _, a := range v.BucketActions(key.Bucket) {
			if a.Key == key {
				return true
			}
		}
		return false
	}
	return has(rv), has(wv)
}

// ReplayedUpload is the upload replay decides on for an mpu_init event:
// initiated at the event's TsNs. Replay does not look the upload up: one
// completed or aborted since makes the abort NOOP_RESOLVED.
func ReplayedUpload(ev filer.Event) filer.Upload {
	return filer.Upload{Key: ev.Key, UploadID: ev.UploadID, Initiated: unixNs(ev.TsNs)}
}

// ReplayActions is the replay view's active actions of kind in bucket, as
// a pass with metaLogRetention (Config.MetaLogRetention) replays them.
func ReplayActions(snap *engine.Snapshot, metaLogRetention time.Duration, bucket string, kind lifecycle.ActionKind) []*engine.CompiledAction {
	retention := metaLogRetention
	if retention == 0 {
		retention = engine.MaxEffectiveTTL(snap)
	}
	rv, _ := snap.RulesForShard(0, retention)
	var out []*engine.CompiledAction
	for _, a := range rv.BucketActions(bucket) {
		if a.IsActive() && a.Key.Kind == kind {
			out = append(out, a)
		}
	}
	return out
}
