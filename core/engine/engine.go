// Package engine compiles bucket lifecycle rules into actions and serves the
// partition views the daily run needs: RulesForShard (replay / walk),
// RecoveryView, and the cursor hashes (docs/design/daily-run.md#engine-views).
package engine

import (
	"iter"
	"slices"
	"sort"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// Mode says which path may evaluate an action.
type Mode int

// Action modes (docs/design/daily-run.md#engine-views).
const (
	ModeEventDriven Mode = iota // meta-log replay evaluates it
	ModeScanOnly                // only the walker evaluates it
	ModeDisabled                // nothing evaluates it (rule Status=Disabled)
)

func (m Mode) String() string {
	switch m {
	case ModeEventDriven:
		return "event_driven"
	case ModeScanOnly:
		return "scan_only"
	}
	return "disabled"
}

// ActionKey names one compiled action.
type ActionKey struct {
	Bucket string
	RuleID string
	Kind   lifecycle.ActionKind
}

// Bucket is one bucket's lifecycle input to Compile.
type Bucket struct {
	Name string
	// Versioning is the bucket's state as listed. No decision uses it: the
	// filer decides a delete's effect per versioning state, and versioning
	// changes no rule hash; Snapshot.Versioning serves it to size what a
	// delete frees (lifecycle.BytesFreed).
	Versioning filer.Versioning
	// ObjectLock marks a bucket with S3 Object Lock enabled; see
	// RulesForShard for why its replay kinds are also walked.
	ObjectLock bool
	Rules      []lifecycle.Rule
}

// CompiledAction is one (bucket, rule, kind). Views clone it so activation
// and Mode are per view; Rule is shared by pointer with the base snapshot.
type CompiledAction struct {
	Key  ActionKey
	Rule *lifecycle.Rule
	Mode Mode
	// TTL is the rule's day count as a duration (days × 24h); 0 for kinds
	// without a day count.
	TTL    time.Duration
	active bool
}

// IsActive reports whether the view this action belongs to evaluates it.
func (a *CompiledAction) IsActive() bool { return a.active }

// EffectiveTTL is the longest an event can stay pending before this action
// is due: TTL plus the rounding slack (one day under AWS rounding).
func (a *CompiledAction) EffectiveTTL(rnd lifecycle.Rounding) time.Duration {
	return a.TTL + rnd.Slack()
}

// Snapshot is an immutable set of compiled actions for one pass.
type Snapshot struct {
	Rounding lifecycle.Rounding
	// ExpiredMarkers says whether ExpirationDays actions also remove expired
	// object delete markers (see EvaluateVersion).
	ExpiredMarkers lifecycle.ExpiredMarkerDays
	// NewerNoncurrent says what counts toward NewerNoncurrentVersions
	// (lifecycle.NewerNoncurrentRank): object versions only, as S3.
	NewerNoncurrent lifecycle.NewerNoncurrentCount
	// locked holds the buckets with Object Lock enabled.
	locked map[string]bool
	// versioning is each bucket's Bucket.Versioning.
	versioning map[string]filer.Versioning
	actions    []*CompiledAction // sorted by Key
	byBkt      map[string][]*CompiledAction
	// all is the base snapshot's byBkt, kept by every view: whether a
	// newer noncurrent version stays depends on every rule of its bucket,
	// not only on those the view runs (retainedNewer).
	all map[string][]*CompiledAction
	// now is the pass clock (At): when a match with no day count is due.
	now time.Time
}

// Engine holds the compiled base snapshot.
type Engine struct {
	snap *Snapshot
}

// Options are the pass-wide semantics a snapshot evaluates rules with.
type Options struct {
	Rounding        lifecycle.Rounding
	ExpiredMarkers  lifecycle.ExpiredMarkerDays
	NewerNoncurrent lifecycle.NewerNoncurrentCount
}

// Compile builds an engine from every bucket's validated rules with AWS's
// expired-marker semantics. Disabled rules compile to ModeDisabled
// actions, which no view activates. Transitions compile to nothing: ilmctl
// does not execute them.
func Compile(buckets []Bucket, rnd lifecycle.Rounding) *Engine {
	return CompileWith(buckets, Options{Rounding: rnd})
}

// CompileWith is Compile with every pass-wide option.
func CompileWith(buckets []Bucket, opts Options) *Engine {
	s := &Snapshot{Rounding: opts.Rounding, ExpiredMarkers: opts.ExpiredMarkers, NewerNoncurrent: opts.NewerNoncurrent, locked: map[string]bool{}, versioning: map[string]filer.Versioning{}}
	for _, b := range buckets {
		s.versioning[b.Name] = b.Versioning
		if b.ObjectLock {
			s.locked[b.Name] = true
		}
		for i := range b.Rules {
			r := &b.Rules[i]
			for _, kind := range r.Actions() {
				mode := ModeScanOnly
				switch {
				case !r.Enabled:
					mode = ModeDisabled
				case kind.ReplayEligible():
					mode = ModeEventDriven
				}
				s.actions = append(s.actions, &CompiledAction{
					Key:    ActionKey{Bucket: b.Name, RuleID: r.ID, Kind: kind},
					Rule:   r,
					Mode:   mode,
					TTL:    time.Duration(r.Days(kind)) * 24 * time.Hour,
					active: mode != ModeDisabled,
				})
			}
		}
	}
	sort.Slice(s.actions, func(i, j int) bool { return keyLess(s.actions[i].Key, s.actions[j].Key) })
	s.index()
	s.all = s.byBkt
	return &Engine{snap: s}
}

// Snapshot returns the engine's base snapshot.
func (e *Engine) Snapshot() *Snapshot { return e.snap }

// Actions returns every action in the view, sorted by key.
func (s *Snapshot) Actions() []*CompiledAction { return s.actions }

// BucketActions returns the view's actions for one bucket.
func (s *Snapshot) BucketActions(bucket string) []*CompiledAction { return s.byBkt[bucket] }

// Versioning is the bucket's versioning state as compiled.
func (s *Snapshot) Versioning(bucket string) filer.Versioning { return s.versioning[bucket] }

// BucketNames returns the buckets that have actions in the view, sorted.
func (s *Snapshot) BucketNames() []string {
	names := make([]string, 0, len(s.byBkt))
	for b := range s.byBkt {
		names = append(names, b)
	}
	sort.Strings(names)
	return names
}

// Empty reports whether the view has no active action.
func (s *Snapshot) Empty() bool {
	for _, a := range s.actions {
		if a.active {
			return false
		}
	}
	return true
}

// RulesForShard splits the snapshot into the replay view (replay-eligible
// actions whose effective TTL fits in retentionWindow, Mode forced to
// ModeEventDriven) and the walk view (walker-bound actions plus
// replay-eligible ones promoted to scan_only because their TTL exceeds the
// meta-log retention). Both views clone every action with active = true.
// Shard filtering is by key (ShardID), so shardID does not change which
// actions a view holds; it is kept so the call reads as SeaweedFS's engine
// surface does (weed/s3api/s3lifecycle/engine).
//
// In an Object Lock bucket the replay kinds are in both views: a locked
// version's delete ends SKIPPED_OBJECT_LOCK, which lets the cursor move past
// its event (docs/design/daily-run.md#dispatch), so only the walker can
// find it again once the retention or legal hold ends, as S3 lifecycle
// does. Mode stays ModeEventDriven on those walk clones.
func (s *Snapshot) RulesForShard(shardID int, retentionWindow time.Duration) (replay, walk *Snapshot) {
	_ = shardID
	replay, walk = s.derive(), s.derive()
	for _, a := range s.actions {
		if a.Mode == ModeDisabled {
			continue
		}
		c := *a
		c.active = true
		if a.Key.Kind.ReplayEligible() && !s.promoted(a, retentionWindow) {
			c.Mode = ModeEventDriven
			replay.actions = append(replay.actions, &c)
			if s.locked[a.Key.Bucket] {
				w := *a
				w.active = true
				walk.actions = append(walk.actions, &w)
			}
		} else {
			walk.actions = append(walk.actions, &c)
		}
	}
	replay.index()
	walk.index()
	return replay, walk
}

// RecoveryView returns every enabled action, force-active with Mode
// preserved: the walker over it catches everything already due across the
// full rule set (cold start, rule edit, partition flip).
func RecoveryView(s *Snapshot) *Snapshot {
	v := s.derive()
	for _, a := range s.actions {
		if a.Mode == ModeDisabled {
			continue
		}
		c := *a
		c.active = true
		v.actions = append(v.actions, &c)
	}
	v.index()
	return v
}

// MaxEffectiveTTL is the largest effective TTL over replay-eligible enabled
// actions, 0 when there are none. runNow - MaxEffectiveTTL is the cold-start
// replay floor: every event older than that is already due.
func MaxEffectiveTTL(s *Snapshot) time.Duration {
	var max time.Duration
	for _, a := range s.actions {
		if a.Mode != ModeDisabled && a.Key.Kind.ReplayEligible() {
			if t := a.EffectiveTTL(s.Rounding); t > max {
				max = t
			}
		}
	}
	return max
}

// EffectiveTTLs are the distinct effective TTLs of the replay-eligible
// enabled actions, ascending: how long after its event each can come due.
func EffectiveTTLs(s *Snapshot) []time.Duration {
	var out []time.Duration
	for _, a := range s.actions {
		if a.Mode != ModeDisabled && a.Key.Kind.ReplayEligible() {
			out = append(out, a.EffectiveTTL(s.Rounding))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *Snapshot) promoted(a *CompiledAction, retentionWindow time.Duration) bool {
	return a.EffectiveTTL(s.Rounding) > retentionWindow
}

func (s *Snapshot) derive() *Snapshot {
	return &Snapshot{Rounding: s.Rounding, ExpiredMarkers: s.ExpiredMarkers, NewerNoncurrent: s.NewerNoncurrent, locked: s.locked, versioning: s.versioning, all: s.all, now: s.now}
}

// At is s evaluated at the pass clock now: a match with no day count
// (due as soon as found) is due at now when matches are compared
// (retainedNewer). Views derived from it keep it.
func (s *Snapshot) At(now time.Time) *Snapshot {
	c := *s
	c.now = now
	return &c
}

// EvaluateVersion is lifecycle.EvaluateVersion of a's rule and kind on
// obj.Versions[idx] under the snapshot's semantics: its due rounding and
// its expired-marker policy. Every decision of a pass, the re-check before
// a delete included, goes through it, so they cannot disagree; it is
// ExplainVersion without the reason, which `ilmctl explain` prints.
func (s *Snapshot) EvaluateVersion(a *CompiledAction, obj *filer.Object, idx int) (lifecycle.Match, bool) {
	return s.ForKey(obj).EvaluateVersion(a, idx)
}

// ExplainVersion is lifecycle.ExplainVersion of a's rule and kind on
// obj.Versions[idx] under the snapshot's due rounding, expired-marker
// policy (a lone marker an Expiration Days action keeps is
// ReasonExpiredMarkerKept) and NewerNoncurrentVersions count.
func (s *Snapshot) ExplainVersion(a *CompiledAction, obj *filer.Object, idx int) lifecycle.Verdict {
	return s.ForKey(obj).ExplainVersion(a, idx)
}

// BestVersionMatch is the earliest-due match of acts on obj.Versions[idx],
// evaluated under the snapshot's semantics, and the compiled action (rule
// and kind) that made it: a delete wins over nothing and the earliest due
// delete applies (ties: the lower rule ID). Inactive and upload actions
// are skipped.
func (s *Snapshot) BestVersionMatch(acts []*CompiledAction, obj *filer.Object, idx int) (lifecycle.Match, *CompiledAction, bool) {
	return s.ForKey(obj).BestVersionMatch(acts, idx)
}

// Key is the snapshot deciding the versions of one key as obj holds them.
// A version's noncurrent verdicts depend on the versions newer than it
// (which of them this pass deletes, what the bucket's other noncurrent
// rules decide on them); Key decides each of those once and keeps it, so
// deciding all n versions of a key costs about n^2 rule evaluations
// rather than n^3 or more. The results are those of deciding each version
// alone (TestKeyDecidesAsEachVersionAlone). obj must not change while
// the Key is used, and a Key is for one goroutine.
type Key struct {
	s      *Snapshot
	obj    *filer.Object
	bucket string // of the actions decided so far; another resets the memo
	// going[j]: this pass deletes obj.Versions[j] (goingNewer), decided
	// for every j < len(going).
	going []bool
	// other[b][j]: b's verdict on obj.Versions[j] (deletedBy).
	other map[*CompiledAction][]otherVerdict
}

type otherVerdict struct {
	decided, applies bool
	due              time.Time
}

// ForKey is the snapshot deciding obj's versions (see Key).
func (s *Snapshot) ForKey(obj *filer.Object) *Key { return &Key{s: s, obj: obj} }

// EvaluateVersion is Snapshot.EvaluateVersion on the key's version idx.
func (k *Key) EvaluateVersion(a *CompiledAction, idx int) (lifecycle.Match, bool) {
	vd := k.ExplainVersion(a, idx)
	return vd.Match, vd.Applies
}

// BestVersionMatch is Snapshot.BestVersionMatch on the key's version idx.
func (k *Key) BestVersionMatch(acts []*CompiledAction, idx int) (lifecycle.Match, *CompiledAction, bool) {
	var best lifecycle.Match
	var act *CompiledAction
	for _, a := range acts {
		if !a.IsActive() || a.Key.Kind == lifecycle.AbortMPU {
			continue
		}
		m, ok := k.EvaluateVersion(a, idx)
		if ok && (act == nil || m.Earlier(best)) {
			best, act = m, a
		}
	}
	return best, act, act != nil
}

// ExplainVersion is Snapshot.ExplainVersion on the key's version idx.
func (k *Key) ExplainVersion(a *CompiledAction, idx int) lifecycle.Verdict {
	s, obj := k.s, k.obj
	k.useBucket(a.Key.Bucket)
	vd := lifecycle.ExplainVersionCounting(a.Rule, a.Key.Kind, obj, idx, s.Rounding, s.NewerNoncurrent)
	if vd.Applies && !s.ExpiredMarkers.Allows(a.Key.Kind, vd.Match) {
		return lifecycle.Verdict{Reason: lifecycle.ReasonExpiredMarkerKept, Filter: vd.Filter, Due: vd.Due}
	}
	if vd.Applies && vd.Due.Days > 0 && (vd.Due.From == lifecycle.BaseNoncurrentSince || vd.Due.From == lifecycle.BaseSuccessorCreation) {
		vd = k.pastGoingSuccessors(a, idx, vd)
		if !vd.Applies {
			return vd
		}
	}
	if vd.Applies && a.Key.Kind == lifecycle.NewerNoncurrent {
		if n := k.retainedNewer(a, idx, vd.Match.Due); n < a.Rule.NewerNoncurrentVersions {
			return lifecycle.Verdict{Reason: lifecycle.ReasonNewerNoncurrentKept, Filter: vd.Filter, Due: vd.Due, NewerNoncurrent: n}
		}
	}
	return vd
}

// useBucket starts the memo afresh when the key's actions change bucket.
func (k *Key) useBucket(bucket string) {
	if k.bucket != bucket {
		k.bucket, k.going, k.other = bucket, nil, nil
	}
}

// pastGoingSuccessors is vd, a's due verdict on obj.Versions[idx] counted
// from when its successor was created, re-decided on the key as it is once
// the successors this pass deletes are gone: S3 counts a version's
// noncurrent days from the creation of the successor it has
// (lifecycle.noncurrentSince), and a successor that goes leaves the next
// newer version as the successor. A successor goes when a noncurrent
// action of the bucket, this one included, has it due by the pass clock,
// decided the same way (goingNewer); the latest version never goes so.
// S3 does not say in which order it applies what one evaluation finds;
// counting from a successor the same pass deletes would delete the
// version when its own delete goes first and keep it when the
// successor's does, so, as for retainedNewer, the reading that deletes
// less is taken and the pass decides the same whichever delete it sends
// first. Under one rule this changes no verdict, only the base it names:
// a successor due under the same days leaves one whose creation is at
// least that old.
func (k *Key) pastGoingSuccessors(a *CompiledAction, idx int, vd lifecycle.Verdict) lifecycle.Verdict {
	s := k.s
	if s.now.IsZero() || idx < 2 {
		return vd // no pass clock, or the successor is the latest version
	}
	going := k.goingNewer(idx)
	j := successorPast(going, idx)
	if j == idx-1 {
		return vd
	}
	return lifecycle.ExplainVersionCounting(a.Rule, a.Key.Kind, without(k.obj, j, idx), j+1, s.Rounding, s.NewerNoncurrent)
}

// goingNewer decides, newest first, which of obj.Versions[1:idx] this pass
// deletes: going[j] when a NoncurrentDays or NewerNoncurrent action of
// the bucket has version j due by the pass clock, decided as
// pastGoingSuccessors decides it, past the newer versions that go. A
// version's fate depends only on the versions newer than it, so removing
// one that goes changes no other's, which is what makes the pass decide
// the same in any order; and it is decided once per key.
func (k *Key) goingNewer(idx int) []bool {
	s, obj := k.s, k.obj
	if len(k.going) == 0 {
		k.going = append(k.going, false) // the latest version never goes so
	}
	for j := len(k.going); j < idx; j++ {
		kk := successorPast(k.going, j)
		o := obj
		if kk != j-1 {
			o = without(obj, kk, j)
		}
		goes := false
		for b := range s.noncurrentActions(k.bucket) {
			var applies bool
			var due time.Time
			if o == obj {
				applies, due = k.otherVerdict(b, j)
			} else {
				vd := lifecycle.ExplainVersionCounting(b.Rule, b.Key.Kind, o, kk+1, s.Rounding, s.NewerNoncurrent)
				applies, due = vd.Applies, vd.Match.Due
			}
			if applies && !due.After(s.now) {
				goes = true
				break
			}
		}
		k.going = append(k.going, goes)
	}
	return k.going[:idx]
}

// successorPast is the index of the nearest version newer than idx that
// does not go (the latest, 0, never does).
func successorPast(going []bool, idx int) int {
	j := idx - 1
	for j > 0 && going[j] {
		j--
	}
	return j
}

// without is obj with the versions between j and idx (both excluded)
// removed: obj.Versions[idx] is at j+1 in it.
func without(obj *filer.Object, j, idx int) *filer.Object {
	rest := *obj
	rest.Versions = append(slices.Clip(obj.Versions[:j+1]), obj.Versions[idx:]...)
	return &rest
}

// retainedNewer counts the noncurrent versions newer than
// obj.Versions[idx] that count toward a's NewerNoncurrentVersions and
// stay: a newer version another rule of the bucket deletes permanently no
// later than due, or by the pass clock (a NoncurrentDays or NewerNoncurrent match, decided
// without this adjustment) is not one of the versions retained, so it does
// not count. S3 does not say in which order it applies what one
// evaluation finds; counting such a version would delete a version that,
// once the newer one is gone, is among the newest retained, so the reading
// that deletes less is taken, and the pass decides the same whichever
// delete it sends first (docs/design/daily-run.md#newer-noncurrent-versions).
func (k *Key) retainedNewer(a *CompiledAction, idx int, due time.Time) int {
	n := 0
	for j := 1; j < idx; j++ {
		v := &k.obj.Versions[j]
		if v.DeleteMarker && k.s.NewerNoncurrent == lifecycle.CountObjectVersions {
			continue
		}
		if !k.deletedBy(a, j, due) {
			n++
		}
	}
	return n
}

// deletedBy reports whether an enabled rule of a's bucket other than a's
// deletes obj.Versions[j] permanently, due no later than due, or than the
// pass clock when due is already past.
func (k *Key) deletedBy(a *CompiledAction, j int, due time.Time) bool {
	s := k.s
	if s.now.After(due) {
		// Already due (or due as soon as found): it goes at this pass,
		// and so does every newer version another rule has due by now.
		due = s.now
	}
	for b := range s.noncurrentActions(a.Key.Bucket) {
		// a is a view's clone of one of s.all's actions: the same key.
		if b.Key == a.Key {
			continue
		}
		if applies, bdue := k.otherVerdict(b, j); applies && !bdue.After(due) {
			return true
		}
	}
	return false
}

// noncurrentActions yields the enabled actions of bucket, in every view,
// that delete noncurrent versions permanently (NoncurrentDays,
// NewerNoncurrent): what goingNewer and deletedBy weigh.
func (s *Snapshot) noncurrentActions(bucket string) iter.Seq[*CompiledAction] {
	return func(yield func(*CompiledAction) bool) {
		for _, b := range s.all[bucket] {
			if b.Mode == ModeDisabled || (b.Key.Kind != lifecycle.NoncurrentDays && b.Key.Kind != lifecycle.NewerNoncurrent) {
				continue
			}
			if !yield(b) {
				return
			}
		}
	}
}

// otherVerdict is b's verdict on obj.Versions[j] as the key holds it,
// without the adjustments of ExplainVersion (what deletedBy and
// goingNewer compare), decided once.
func (k *Key) otherVerdict(b *CompiledAction, j int) (applies bool, due time.Time) {
	if k.other == nil {
		k.other = map[*CompiledAction][]otherVerdict{}
	}
	vs := k.other[b]
	if vs == nil {
		vs = make([]otherVerdict, len(k.obj.Versions))
		k.other[b] = vs
	}
	if !vs[j].decided {
		vd := lifecycle.ExplainVersionCounting(b.Rule, b.Key.Kind, k.obj, j, k.s.Rounding, k.s.NewerNoncurrent)
		vs[j] = otherVerdict{decided: true, applies: vd.Applies, due: vd.Match.Due}
	}
	return vs[j].applies, vs[j].due
}

// ExplainUpload is lifecycle.ExplainUpload of a's rule on u under the
// snapshot's due rounding.
func (s *Snapshot) ExplainUpload(a *CompiledAction, u *filer.Upload) lifecycle.Verdict {
	if a.Key.Kind != lifecycle.AbortMPU {
		return lifecycle.Verdict{Reason: lifecycle.ReasonNotUploadAction}
	}
	return lifecycle.ExplainUpload(a.Rule, u, s.Rounding)
}

// BestUploadMatch is BestVersionMatch for an incomplete multipart upload
// and the active AbortMPU actions of acts.
func (s *Snapshot) BestUploadMatch(acts []*CompiledAction, up *filer.Upload) (lifecycle.Match, *CompiledAction, bool) {
	var best lifecycle.Match
	var act *CompiledAction
	for _, a := range acts {
		if !a.IsActive() || a.Key.Kind != lifecycle.AbortMPU {
			continue
		}
		vd := s.ExplainUpload(a, up)
		if vd.Applies && (act == nil || vd.Match.Earlier(best)) {
			best, act = vd.Match, a
		}
	}
	return best, act, act != nil
}

func (s *Snapshot) index() {
	s.byBkt = map[string][]*CompiledAction{}
	for _, a := range s.actions {
		s.byBkt[a.Key.Bucket] = append(s.byBkt[a.Key.Bucket], a)
	}
}

func keyLess(a, b ActionKey) bool {
	if a.Bucket != b.Bucket {
		return a.Bucket < b.Bucket
	}
	if a.RuleID != b.RuleID {
		return a.RuleID < b.RuleID
	}
	return a.Kind < b.Kind
}
