// Package explain answers "why is this object (still) here?" for one key:
// every rule's verdict on every version and incomplete upload of it, what
// the next pass dispatches, and where that pass stands for the key.
//
// Nothing here decides lifecycle on its own: each verdict is the engine's
// (engine.Snapshot.ExplainVersion, ExplainUpload, BestVersionMatch), the
// same calls the pass makes, and the pass's standing is dailyrun.Plan, the
// pass's own planning. Explain only reads: the key's entries, the
// uploads listing, the cursors and the meta-log.
package explain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// Config is one explanation's input.
type Config struct {
	Store filer.Store
	// Snapshot is every accepted bucket's rules compiled as the pass
	// compiles them (engine.CompileWith with the pass's options).
	Snapshot *engine.Snapshot
	// Bucket is the bucket as listed.
	Bucket filer.Bucket
	// Rules is the bucket's entry in the slice Snapshot was compiled from
	// (its Rules are the ones Snapshot's actions point to); nil when the
	// bucket has no lifecycle configuration or it was rejected.
	Rules *engine.Bucket
	// ConfigErr is the parser's verdict on a rejected configuration.
	ConfigErr string
	Key       string
	// VersionID restricts the versions to one; "" explains every version
	// and every incomplete upload of the key.
	VersionID string
	// Now is the pass clock the explanation is for; ServerNow the store's
	// own clock (zero for the embedded filer), as dailyrun.Config.
	Now, ServerNow   time.Time
	MetaLogRetention time.Duration
	WalkerInterval   time.Duration
	// NoMetaLog is set for a store without a meta-log (s3://); the caller
	// then also sets MetaLogRetention to 1ns, as `ilmctl run` does, so
	// every replay kind is walked.
	NoMetaLog bool
	// PageSize is the uploads listing's page size; 0 means 1000.
	PageSize int
}

// ErrNoBucket is returned when the bucket does not exist.
var ErrNoBucket = errors.New("no such bucket")

// ErrNoVersion is returned when Config.VersionID names no version of the
// key: a *NoVersionError, which names them.
var ErrNoVersion = errors.New("no such version")

// NoVersionError is ErrNoVersion for one key and version ID.
type NoVersionError struct{ Bucket, Key, VersionID string }

func (e *NoVersionError) Error() string {
	return fmt.Sprintf("%s/%s has no version %q", e.Bucket, e.Key, e.VersionID)
}

// Is makes errors.Is(err, ErrNoVersion) match.
func (e *NoVersionError) Is(target error) bool { return target == ErrNoVersion }

// Outcome is a rule action's verdict on one target at Config.Now. Its
// String is the JSON spelling, a stable interface.
type Outcome string

// Outcomes.
const (
	// OutcomeDue: the action applies and is due; the target's Dispatch
	// says which action the pass dispatches (the earliest due wins).
	OutcomeDue Outcome = "due"
	// OutcomeNotYetDue: the action applies and becomes due at Due.
	OutcomeNotYetDue Outcome = "not_yet_due"
	// OutcomeNever: the action does not apply to the target as it is now,
	// or does but cannot take effect (Reason says why). Object Lock is
	// such a case: the action is due and the pass dispatches the delete
	// (the target's Dispatch), but the store answers SKIPPED_OBJECT_LOCK
	// while the version is retained (until RetainUntil) or under legal
	// hold; walks try again once the lock ends. A change to the key can
	// make any other action apply.
	OutcomeNever Outcome = "never"
)

func (o Outcome) String() string { return string(o) }

// Reasons beyond lifecycle.Reason that a verdict can give.
const (
	ReasonTransitionNotExecuted = "transition_not_executed"
	ReasonConfigRejected        = "configuration_rejected"
	ReasonNoConfiguration       = "no_lifecycle_configuration"
	ReasonRetention             = "object_lock_retention"
	ReasonLegalHold             = "object_lock_legal_hold"
)

// Report is the explanation of one key.
type Report struct {
	Bucket     string
	Key        string
	Now        time.Time
	Versioning filer.Versioning
	ObjectLock bool
	Rounding   lifecycle.Rounding
	Markers    lifecycle.ExpiredMarkerDays
	// ConfigError is the parser's verdict when the bucket's lifecycle
	// configuration was rejected; the pass takes no action on the bucket.
	ConfigError string
	// NoConfiguration is set when the bucket has no lifecycle
	// configuration.
	NoConfiguration bool
	// KeyError is why the key's entries could not be read exactly; the
	// pass reports an ambiguous layout as a notice and takes no action on
	// the key (Ambiguous), and halts the key's shard on anything else.
	KeyError  string
	Ambiguous bool
	// Listed is the key's entry on a shard's list of ambiguous keys
	// (dailyrun.AmbiguousPath): every pass reports it until it resolves.
	// nil when no list holds it.
	Listed   *dailyrun.AmbiguousKey
	Versions []Target
	Uploads  []Target
	Pass     Standing
}

// Target is one version (or delete marker) or incomplete upload.
type Target struct {
	VersionID    string
	UploadID     string
	Latest       bool
	DeleteMarker bool
	Size         int64 // bytes; 0 for delete markers and uploads
	// Created is the version's mtime or the upload's initiation.
	Created         time.Time
	NoncurrentSince time.Time // zero when current or not stamped
	RetainUntil     time.Time // Object Lock retention; zero when none
	LegalHold       bool
	// Gone marks an upload the listing no longer has whose mpu_init event
	// the next pass still replays (Created is then the event's time).
	Gone     bool
	Verdicts []Verdict
	// Dispatch is the action the pass chooses for the target (the
	// earliest due match of every enabled rule); nil when none applies.
	Dispatch *Dispatch
}

// Verdict is one rule action on one target.
type Verdict struct {
	RuleID    string
	RuleIndex int // 1-based position in the configuration
	// Action is the compiled action kind, or the S3 element of an
	// action ilmctl does not run (Transition,
	// NoncurrentVersionTransition); "" when the rule has no action for
	// this kind of target.
	Action  string
	Outcome Outcome
	// Reason is lifecycle.Reason's spelling or one of this package's
	// Reason constants; "" for due and not yet due.
	Reason string
	Filter lifecycle.FilterCheck
	// FilterDetail names the predicate that failed, with the values.
	FilterDetail string
	// Due is when the action is (or was) due; zero when due as soon as
	// found or when it does not apply. DueMath is the arithmetic.
	Due     time.Time
	DueMath lifecycle.DueMath
	HasDue  bool // DueMath is meaningful
	// Detail is the verdict in one sentence.
	Detail string
	// Chosen marks the verdict whose match the pass dispatches.
	Chosen bool
}

// Dispatch is what the pass does with a target.
type Dispatch struct {
	RuleID string
	Kind   lifecycle.ActionKind
	Due    time.Time // zero: due as soon as found
	// DueNow says whether the match is due at Config.Now (NextPass: whether
	// the next pass also reaches it).
	DueNow bool
	Size   int64 // the target's size in bytes
	// BytesFreed is what the delete frees (lifecycle.BytesFreed): Size for
	// a permanent delete, 0 when a delete marker only hides the version.
	BytesFreed int64
	// Replay and Walk say how the pass finds the match: replay of the
	// key's meta-log events, walks, or both (dailyrun.ReplayMode).
	Replay, Walk bool
	// Held is set when Object Lock makes the store skip the delete.
	Held string
	// Gone is set when the target is no longer there but the pass still
	// dispatches for it (a replayed upload): why the store will answer
	// NOOP_RESOLVED.
	Gone string
	// NextPass says whether the next pass at Config.Now reaches the match
	// and dispatches it: it is due, and the pass walks the key's shard
	// over a view holding the action (recovery walk; steady-state walk
	// for a walked action) or replays a meta-log event that triggers it.
	// Via says how, or why not.
	NextPass bool
	Via      string

	// act is the compiled action that made the match.
	act      *engine.CompiledAction
	uploadID string
	obj      *filer.Object // the key, for a version's dispatch
	idx      int
	// replayOnly marks a target only replay can reach (a gone upload:
	// walks list what is there).
	replayOnly bool
}

// Standing is where the next pass stands for the key.
type Standing struct {
	// Shard owns the key in walks (lifecycle.ShardID) and Plan is that
	// shard's plan.
	Shard int
	Plan  dailyrun.ShardPlan
	// MetaLog is false on a store without a meta-log (s3://): every rule
	// is walked.
	MetaLog bool
	// UntilNs is where the pass stops reading the meta-log (inclusive).
	UntilNs int64
	// ScannedFromNs is where the search for the key's events began
	// (exclusive): the earliest replay start of any shard, or the
	// cold-start window (the longest replay rule's TTL) when that reaches
	// further back. Events before it are behind every cursor.
	ScannedFromNs int64
	Scanned       bool
	// LastEvent is the key's last meta-log event after ScannedFromNs; nil
	// when there is none.
	LastEvent *Event
	// Pending counts the key's events that some shard's replay has still
	// to read (after that shard's cursor).
	Pending int
	// pending are those events, in meta-log order.
	pending []filer.Event
}

// Event is one of the key's meta-log events and where replay stands on it.
type Event struct {
	filer.Event
	// Shard replays it (dailyrun.EventShard) and Plan is that shard's plan.
	Shard int
	Plan  dailyrun.ShardPlan
	// AfterCursor says the shard's next replay reads it.
	AfterCursor bool
}

// Explain explains cfg.Key. A key the store cannot read exactly is not an
// error: the report says what the pass does with it.
func Explain(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Store == nil || cfg.Snapshot == nil || cfg.Now.IsZero() {
		return nil, errors.New("explain: Store, Snapshot and Now are required")
	}
	cfg.Snapshot = cfg.Snapshot.At(cfg.Now)
	snap := cfg.Snapshot
	rep := &Report{
		Bucket: cfg.Bucket.Name, Key: cfg.Key, Now: cfg.Now.UTC(), Versioning: cfg.Bucket.Versioning,
		ObjectLock: cfg.Bucket.ObjectLock, Rounding: snap.Rounding, Markers: snap.ExpiredMarkers,
		ConfigError: cfg.ConfigErr, NoConfiguration: cfg.Rules == nil && cfg.ConfigErr == "",
	}
	obj, found, err := cfg.Store.LookupObject(ctx, cfg.Bucket.Name, cfg.Key)
	switch {
	case err != nil && filer.AsKeyError(err) != nil:
		rep.KeyError = err.Error()
		rep.Ambiguous = errors.Is(err, filer.ErrAmbiguousLayout)
	case err != nil:
		return nil, fmt.Errorf("read %s/%s: %w", cfg.Bucket.Name, cfg.Key, err)
	case found && obj.Err != nil:
		rep.KeyError = obj.Err.Error()
		rep.Ambiguous = errors.Is(obj.Err, filer.ErrAmbiguousLayout)
	}
	for shard := range lifecycle.ShardCount {
		keys, err := dailyrun.LoadAmbiguous(ctx, cfg.Store, shard)
		if err != nil {
			continue // the pass reports an unreadable list itself
		}
		for i := range keys {
			if keys[i].Bucket == cfg.Bucket.Name && keys[i].Key == cfg.Key {
				rep.Listed = &keys[i]
			}
		}
	}
	if rep.KeyError == "" && found {
		for idx := range obj.Versions {
			if cfg.VersionID != "" && obj.Versions[idx].VersionID != cfg.VersionID {
				continue
			}
			rep.Versions = append(rep.Versions, explainVersion(cfg, &obj, idx))
		}
	}
	if cfg.VersionID != "" && len(rep.Versions) == 0 && rep.KeyError == "" {
		return nil, &NoVersionError{Bucket: cfg.Bucket.Name, Key: cfg.Key, VersionID: cfg.VersionID}
	}
	if cfg.VersionID == "" {
		ups, err := keyUploads(ctx, cfg)
		if err != nil {
			return nil, err
		}
		for i := range ups {
			rep.Uploads = append(rep.Uploads, explainUpload(cfg, &ups[i]))
		}
	}
	if err := standing(ctx, cfg, rep); err != nil {
		return nil, err
	}
	if cfg.VersionID == "" && cfg.Rules != nil {
		rep.Uploads = append(rep.Uploads, goneUploads(cfg, rep)...)
	}
	for _, ts := range [][]Target{rep.Versions, rep.Uploads} {
		for i := range ts {
			d := ts[i].Dispatch
			if d == nil {
				continue
			}
			d.NextPass, d.Via = reach(cfg, &rep.Pass, d)
			if !d.NextPass && d.obj != nil {
				if alt := replayAlternative(cfg, &rep.Pass, d); alt != nil {
					choose(cfg, &ts[i], alt)
				}
			}
		}
	}
	return rep, nil
}

// choose makes alt the target's dispatch and marks its verdict chosen.
func choose(cfg Config, t *Target, alt *Dispatch) {
	t.Dispatch = alt
	for i := range t.Verdicts {
		v := &t.Verdicts[i]
		v.Chosen = v.RuleIndex > 0 && &cfg.Rules.Rules[v.RuleIndex-1] == alt.act.Rule && v.Action == string(alt.Kind)
	}
}

// goneUploads are the uploads no longer listed (completed or aborted)
// whose mpu_init event the next pass still replays: replay decides on the
// event alone (dailyrun.ReplayedUpload), so it dispatches the abort when
// due and the store answers NOOP_RESOLVED.
func goneUploads(cfg Config, rep *Report) []Target {
	listed := map[string]bool{}
	for _, u := range rep.Uploads {
		listed[u.UploadID] = true
	}
	acts := dailyrun.ReplayActions(cfg.Snapshot, cfg.MetaLogRetention, cfg.Bucket.Name, lifecycle.AbortMPU)
	var out []Target
	for _, ev := range rep.Pass.pending {
		if ev.Type != filer.EventMPUInit || listed[ev.UploadID] {
			continue
		}
		listed[ev.UploadID] = true
		up := dailyrun.ReplayedUpload(ev)
		t := explainUpload(cfg, &up)
		t.Gone, t.Dispatch = true, nil
		for i := range t.Verdicts {
			t.Verdicts[i].Chosen = false
		}
		if m, act, ok := cfg.Snapshot.BestUploadMatch(acts, &up); ok {
			t.Dispatch = &Dispatch{RuleID: m.RuleID, Kind: m.Kind, Due: m.Due, DueNow: m.IsDue(cfg.Now), Replay: true,
				Gone: "the upload is gone (completed or aborted): the store answers NOOP_RESOLVED",
				act:  act, uploadID: up.UploadID, replayOnly: true}
			for i, v := range t.Verdicts {
				if v.RuleIndex > 0 && &cfg.Rules.Rules[v.RuleIndex-1] == act.Rule && v.Action == string(act.Key.Kind) {
					t.Verdicts[i].Chosen = true
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// keyUploads lists the bucket's incomplete uploads of the key, through the
// listing the pass's walks use.
func keyUploads(ctx context.Context, cfg Config) ([]filer.Upload, error) {
	limit := cfg.PageSize
	if limit <= 0 {
		limit = 1000
	}
	var out []filer.Upload
	after := ""
	for {
		ups, next, err := cfg.Store.ListUploads(ctx, cfg.Bucket.Name, after, limit)
		if err != nil {
			return nil, fmt.Errorf("list uploads of %s: %w", cfg.Bucket.Name, err)
		}
		for _, u := range ups {
			if u.Key == cfg.Key {
				out = append(out, u)
			}
		}
		if next == "" {
			return out, nil
		}
		after = next
	}
}
