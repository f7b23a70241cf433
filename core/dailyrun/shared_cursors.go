package dailyrun

import (
	"context"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// SharedCursors is implemented by a store whose own lifecycle worker reads
// and writes the same cursor files: on SeaweedFS, weed shell
// s3.lifecycle.run-shard and the admin worker (weed/s3api/s3lifecycle/
// dailyrun/cursor.go).
//
// The two tools' shards name different events. ilmctl replays an event in
// the shard that owns its key (EventShard), so that every dispatch target
// has one owner; SeaweedFS's reader shards by filer path, so one key's
// events reach several of its shards. A cursor one tool saved therefore
// does not say which of the other tool's events are done, and the takeover
// is taken apart from it (docs/design/daily-run.md#seaweedfs-cursors):
//   - ilmctl takes the worker's cursors over when every one of the
//     sixteen files is the worker's, on rules it covers (WorkerHashes):
//     each shard replays from the oldest of the sixteen, before which every
//     event of every path shard was done by the worker. Otherwise the
//     shard walks (RecoveryTakeover).
//   - ilmctl never stamps its cursors with the worker's hashes; it keeps
//     its own in both places (and Cursor.Own, which tells its files from
//     the worker's), so the worker reads them as a rule edit and walks.
type SharedCursors interface {
	// CursorHashes returns what the worker would stamp a cursor with if
	// it ran snap's rules (all of them, disabled ones too, as it compiles
	// them), with metaLogRetention as Config.MetaLogRetention (0 =
	// unbounded), and how far the two replays cover each other.
	CursorHashes(snap *engine.Snapshot, metaLogRetention time.Duration) WorkerHashes
}

// WorkerHashes is a shared worker's view of a pass's rules.
type WorkerHashes struct {
	RuleSet, Promoted [32]byte // the worker's RuleSetHash and PromotedHash
	// TakeOver is false when this pass's replay acts on events the
	// worker's replay lets its cursor pass: a cursor the worker saved does
	// not cover this pass, and the shard walks (recovery) instead.
	TakeOver bool
}

// cursorStamp is what one pass writes into its cursors and checks
// persisted ones against.
type cursorStamp struct {
	own OwnHashes // this pass's ReplayContentHash and PromotedHash
	// shared is set when the store implements SharedCursors; worker is
	// then that worker's view of the pass's rules.
	shared bool
	worker WorkerHashes
}

// newCursorStamp takes the pass's own hashes and, on a store whose worker
// shares the cursor files, asks it for that worker's.
func newCursorStamp(store filer.Store, snap *engine.Snapshot, metaLogRetention time.Duration, ownRuleSet, ownPromoted [32]byte) cursorStamp {
	st := cursorStamp{own: OwnHashes{Present: true, RuleSet: ownRuleSet, Promoted: ownPromoted, ByKey: true}}
	if sc, ok := store.(SharedCursors); ok {
		st.shared, st.worker = true, sc.CursorHashes(snap, metaLogRetention)
	}
	return st
}

// cursor is the cursor to save at tsNs, stamped with the pass's own
// hashes (and, on a store whose worker shares the files, with Own too,
// ByKey set, by which the pass tells its files from the worker's). A pass with no
// replay-eligible rule of its own replays nothing (the empty-replay walk)
// and saves TsNs 0, which claims no event.
func (st cursorStamp) cursor(tsNs, lastWalkedNs int64) Cursor {
	c := Cursor{TsNs: tsNs, RuleSetHash: st.own.RuleSet, PromotedHash: st.own.Promoted, LastWalkedNs: lastWalkedNs}
	if st.shared {
		c.Own = st.own
	}
	return c
}

// changed says why c was not saved under the rules and partition this
// pass replays with: RecoveryRuleEdit, RecoveryPartitionFlip, or "" when
// the pass may replay from it (a cursor the worker saved, only as part of
// a takeover: see takeover). A cursor ilmctl saved is judged by its own
// hashes, which see every rule, due-rounding and policy change ilmctl's
// replay depends on; one the shared worker saved by that worker's hashes
// and whether it covers this pass's replay.
func (st cursorStamp) changed(c Cursor) RecoveryReason {
	ruleSet, promoted := c.RuleSetHash != st.own.RuleSet, c.PromotedHash != st.own.Promoted
	switch {
	case c.Own.Present:
		ruleSet, promoted = c.Own.RuleSet != st.own.RuleSet, c.Own.Promoted != st.own.Promoted
	case st.shared:
		ruleSet, promoted = c.RuleSetHash != st.worker.RuleSet || !st.worker.TakeOver, c.PromotedHash != st.worker.Promoted
	}
	switch {
	case ruleSet:
		return RecoveryRuleEdit
	case promoted:
		return RecoveryPartitionFlip
	}
	return ""
}

// pathSharded says whether c, on a store whose worker shares the cursor
// files, names the events of a shard by filer path: the worker saved it,
// or an ilmctl that sharded replay as the worker does (Own.ByKey unset).
func (st cursorStamp) pathSharded(c Cursor) bool { return st.shared && !c.Own.ByKey }

// takeover is where a shard whose cursor is path-sharded (pathSharded:
// the shared worker's) replays from: the oldest cursor of all ShardCount
// shards, when every one of them is path-sharded on rules this pass's
// replay covers. Such a shard P passes an event only once it is done, so
// before the oldest of them every event is done, whichever shard owns its
// key here. ok is false when one file is missing, unreadable, ilmctl's by
// key, or on other rules: the shard then walks (RecoveryTakeover). The
// files are read once per pass.
func (p *pass) takeover(ctx context.Context) (fromNs int64, ok bool) {
	p.takeoverOnce.Do(func() {
		p.takeoverOK = true
		for shard := range lifecycle.ShardCount {
			c, found, err := LoadCursor(ctx, p.cfg.Store, shard)
			if err != nil || !found || !p.stamp.pathSharded(c) || p.stamp.changed(c) != "" {
				p.takeoverOK = false
				return
			}
			if shard == 0 || c.TsNs < p.takeoverFromNs {
				p.takeoverFromNs = c.TsNs
			}
		}
	})
	return p.takeoverFromNs, p.takeoverOK
}
