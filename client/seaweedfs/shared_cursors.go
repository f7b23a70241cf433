package seaweedfs

import (
	"time"

	"github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle"
	swengine "github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle/engine"
	"github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle/scheduler"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

var _ dailyrun.SharedCursors = (*Store)(nil)

// CursorHashes implements dailyrun.SharedCursors: SeaweedFS's own worker
// (weed shell s3.lifecycle.run-shard, the admin plugin worker) reads and
// writes the cursor files under dailyrun.CursorDir. See cursorHashes.
func (s *Store) CursorHashes(snap *engine.Snapshot, metaLogRetention time.Duration) dailyrun.WorkerHashes {
	return cursorHashes(snap, metaLogRetention)
}

// cursorHashes computes the hashes SeaweedFS's worker would stamp a cursor
// with if it ran snap's rules, with SeaweedFS's own engine rather than a
// copy of it: it compiles the rules as that worker does
// (weed/shell/command_s3_lifecycle_run_shard.go: engine.Compile with
// scheduler.AllActivePriorStates) and takes engine.ReplayContentHash and
// engine.PromotedHash (weed/s3api/s3lifecycle/engine/hashes.go) of the
// result. Only the rule set differs from the worker's input: it is the one
// this pass runs (buckets whose lifecycle XML ilmctl rejected are not in
// it, so neither tool takes over the other's cursors while it differs).
//
// What SeaweedFS's hash leaves out is safe to leave out of a takeover:
//   - rule IDs (its RuleHash is over content): a rename changes no due
//     time;
//   - due rounding: a cursor passes an event only once all its matches
//     completed, and rounding only moves a due time within a day, so
//     whichever rounding wrote it, every match before it was due and done
//     under both;
//   - rule Status: its RuleHash ignores it and the worker compiles
//     disabled rules like enabled ones, so enabling a rule changes neither
//     tool's SeaweedFS hash. ilmctl's own cursors also carry ilmctl's
//     hashes, which see it (dailyrun.Cursor.Own); a cursor SeaweedFS's
//     worker saved while a rule was disabled cannot tell, for either tool.
//
// Where the two replays differ on the same rules (weed/s3api/s3lifecycle/
// engine/views.go isReplayKind, router/router.go):
//   - TakeOver is false when ilmctl removes expired object delete markers
//     (--expired-marker-days aws) under an Expiration Days rule: it replays
//     marker puts and removals SeaweedFS's worker passes without acting.
//
// The other direction needs no hash: ilmctl never stamps its cursors with
// the worker's (see dailyrun.SharedCursors), so the worker walks after it.
//
// Promoted follows ilmctl's partition (RulesForShard): with no retention
// given, SeaweedFS's default window (its MaxEffectiveTTL), under which
// nothing is promoted, as ilmctl promotes nothing; with a retention R,
// actions whose TTL plus the due-rounding slack exceeds R, as ilmctl
// promotes them: SeaweedFS's PromotedHash at window R - slack. Under exact
// rounding that is SeaweedFS's own window R.
func cursorHashes(snap *engine.Snapshot, metaLogRetention time.Duration) dailyrun.WorkerHashes {
	inputs := compileInputs(snap)
	sw := swengine.New().Compile(inputs, swengine.CompileOptions{PriorStates: scheduler.AllActivePriorStates(inputs)})
	window := swengine.MaxEffectiveTTL(sw)
	if metaLogRetention > 0 {
		window = metaLogRetention - snap.Rounding.Slack()
	}
	h := dailyrun.WorkerHashes{
		RuleSet:  swengine.ReplayContentHash(sw),
		Promoted: swengine.PromotedHash(sw, window),
		TakeOver: true,
	}
	for _, a := range snap.Actions() {
		if a.Mode == engine.ModeDisabled {
			continue
		}
		if a.Key.Kind == lifecycle.ExpirationDays && snap.ExpiredMarkers != lifecycle.ExpiredMarkersKeep {
			h.TakeOver = false
		}
	}
	return h
}

// compileInputs gives SeaweedFS's engine every rule of snap, one input per
// bucket, in SeaweedFS's flat rule shape (weed/s3api/lifecycle_xml/
// canonical.go, LifecycleToCanonical).
func compileInputs(snap *engine.Snapshot) []swengine.CompileInput {
	var inputs []swengine.CompileInput
	index := map[string]int{}
	seen := map[*lifecycle.Rule]bool{}
	for _, a := range snap.Actions() {
		if seen[a.Rule] {
			continue
		}
		seen[a.Rule] = true
		i, ok := index[a.Key.Bucket]
		if !ok {
			i = len(inputs)
			index[a.Key.Bucket] = i
			inputs = append(inputs, swengine.CompileInput{Bucket: a.Key.Bucket})
		}
		inputs[i].Rules = append(inputs[i].Rules, canonicalRule(a.Rule))
	}
	return inputs
}

// canonicalRule is r in SeaweedFS's flat shape. An unset size bound is 0,
// as SeaweedFS stores it.
func canonicalRule(r *lifecycle.Rule) *s3lifecycle.Rule {
	out := &s3lifecycle.Rule{
		ID:                              r.ID,
		Status:                          s3lifecycle.StatusDisabled,
		Prefix:                          r.Filter.Prefix,
		ExpirationDays:                  r.ExpirationDays,
		ExpirationDate:                  r.ExpirationDate,
		ExpiredObjectDeleteMarker:       r.ExpiredObjectDeleteMarker,
		NoncurrentVersionExpirationDays: r.NoncurrentDays,
		NewerNoncurrentVersions:         r.NewerNoncurrentVersions,
		AbortMPUDaysAfterInitiation:     r.AbortMPUDays,
	}
	if r.Enabled {
		out.Status = s3lifecycle.StatusEnabled
	}
	if len(r.Filter.Tags) > 0 {
		out.FilterTags = map[string]string{}
		for _, t := range r.Filter.Tags {
			out.FilterTags[t.Key] = t.Value
		}
	}
	if p := r.Filter.SizeGreaterThan; p != nil {
		out.FilterSizeGreaterThan = *p
	}
	if p := r.Filter.SizeLessThan; p != nil {
		out.FilterSizeLessThan = *p
	}
	return out
}
