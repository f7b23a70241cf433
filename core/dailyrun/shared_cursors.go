package dailyrun

import (
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
)

// SharedCursors is implemented by a store whose own lifecycle worker reads
// and writes the same cursor files: on SeaweedFS, weed shell
// s3.lifecycle.run-shard and the admin worker (weed/s3api/s3lifecycle/
// dailyrun/cursor.go). A pass on such a store stamps its cursors with that
// worker's hashes, so the worker running next on unchanged rules replays
// from them instead of walking, and keeps its own hashes beside them
// (Cursor.Own), which the worker drops when it saves: a cursor without
// them is one the worker saved, and the pass replays from it when its
// hashes are the worker's for the pass's rules.
//
// Taking a cursor over is sound only if a shard names the same meta-log
// events for both tools, which is why replay shards an event by its filer
// path (see EventShard), and if the two replays do the same work on them:
// WorkerHashes says where they do not.
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
	// HandOver is false when the worker's replay acts on events this
	// pass's lets its cursor pass: the pass then stamps its cursors with
	// its own hashes, which the worker reads as a rule edit (its recovery
	// walk) instead of skipping that work.
	HandOver bool
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
	st := cursorStamp{own: OwnHashes{Present: true, RuleSet: ownRuleSet, Promoted: ownPromoted}}
	if sc, ok := store.(SharedCursors); ok {
		st.shared, st.worker = true, sc.CursorHashes(snap, metaLogRetention)
	}
	return st
}

// cursor is the cursor to save at tsNs: stamped with the shared worker's
// hashes when it may take it over, else with the pass's own. A pass with
// no replay-eligible rule of its own replays nothing (the empty-replay
// walk) and saves TsNs 0, which claims no event; its zero hashes send a
// worker that replays rules ilmctl walks (NoncurrentDays with
// NewerNoncurrentVersions) to its bounded recovery walk, not to reading
// the whole meta-log from 0.
func (st cursorStamp) cursor(tsNs, lastWalkedNs int64) Cursor {
	c := Cursor{TsNs: tsNs, RuleSetHash: st.own.RuleSet, PromotedHash: st.own.Promoted, LastWalkedNs: lastWalkedNs}
	if st.shared {
		c.Own = st.own
		if st.worker.HandOver && st.own.RuleSet != ([32]byte{}) {
			c.RuleSetHash, c.PromotedHash = st.worker.RuleSet, st.worker.Promoted
		}
	}
	return c
}

// changed says why c was not saved under the rules and partition this
// pass replays with: RecoveryRuleEdit, RecoveryPartitionFlip, or "" when
// the pass may replay from it. A cursor ilmctl saved is judged by its own
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
