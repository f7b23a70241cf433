package explain

import (
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// explainVersion gives every rule's verdict on obj.Versions[idx] and the
// action the pass chooses for it.
func explainVersion(cfg Config, obj *filer.Object, idx int) Target {
	v := &obj.Versions[idx]
	t := Target{
		VersionID: v.VersionID, Latest: idx == 0, DeleteMarker: v.DeleteMarker, Size: v.Size,
		Created: time.Unix(0, v.MtimeNs).UTC(), RetainUntil: v.RetainUntil, LegalHold: v.LegalHold,
	}
	if v.NoncurrentSinceNs != 0 {
		t.NoncurrentSince = time.Unix(0, v.NoncurrentSinceNs).UTC()
	}
	snap := cfg.Snapshot
	if cfg.Rules == nil {
		t.Verdicts = []Verdict{bucketVerdict(cfg)}
		return t
	}
	// The pass's choice: the recovery view holds every enabled action,
	// and its best match is what a walk over the key dispatches.
	best, bestAct, ok := snap.BestVersionMatch(recoveryActions(cfg), obj, idx)
	if ok {
		d := &Dispatch{RuleID: best.RuleID, Kind: best.Kind, Due: best.Due, DueNow: best.IsDue(cfg.Now), Size: v.Size,
			BytesFreed: lifecycle.BytesFreed(best.Kind, snap.Versioning(cfg.Bucket.Name), obj, idx),
			act:        bestAct, obj: obj, idx: idx}
		d.Replay, d.Walk = dailyrun.ReplayMode(snap, cfg.MetaLogRetention, bestAct.Key)
		if why, _ := heldBy(best.Kind, cfg.Bucket.Versioning, obj, idx, cfg.Now); why != "" && d.DueNow {
			d.Held = why
		}
		t.Dispatch = d
	}
	for i := range cfg.Rules.Rules {
		r := &cfg.Rules.Rules[i]
		acts := ruleActions(cfg, r)
		versionActs := 0
		for _, a := range acts {
			if a.Key.Kind == lifecycle.AbortMPU {
				continue
			}
			versionActs++
			vd := snap.ExplainVersion(a, obj, idx)
			out := verdict(cfg, r, i, string(a.Key.Kind), vd, v)
			if vd.Applies && (out.Outcome == OutcomeDue) {
				if why, reason := heldBy(vd.Match.Kind, cfg.Bucket.Versioning, obj, idx, cfg.Now); why != "" {
					out.Outcome, out.Reason = OutcomeNever, reason
					out.Detail += "; " + why
				}
			}
			out.Chosen = ok && sameAction(a, bestAct)
			t.Verdicts = append(t.Verdicts, out)
		}
		t.Verdicts = append(t.Verdicts, transitionVerdicts(cfg, r, i, obj, idx)...)
		if versionActs == 0 && len(r.Transitions)+len(r.NoncurrentTransitions) == 0 {
			t.Verdicts = append(t.Verdicts, Verdict{RuleID: r.ID, RuleIndex: i + 1, Outcome: OutcomeNever,
				Reason: lifecycle.ReasonNotVersionAction.String(), Detail: "the rule's only action, AbortIncompleteMultipartUpload, acts on incomplete multipart uploads"})
		}
	}
	return t
}

// explainUpload gives every rule's verdict on an incomplete upload.
func explainUpload(cfg Config, up *filer.Upload) Target {
	t := Target{UploadID: up.UploadID, Created: up.Initiated.UTC()}
	if cfg.Rules == nil {
		t.Verdicts = []Verdict{bucketVerdict(cfg)}
		return t
	}
	snap := cfg.Snapshot
	best, bestAct, ok := snap.BestUploadMatch(recoveryActions(cfg), up)
	if ok {
		d := &Dispatch{RuleID: best.RuleID, Kind: best.Kind, Due: best.Due, DueNow: best.IsDue(cfg.Now), act: bestAct, uploadID: up.UploadID}
		d.Replay, d.Walk = dailyrun.ReplayMode(snap, cfg.MetaLogRetention, bestAct.Key)
		t.Dispatch = d
	}
	for i := range cfg.Rules.Rules {
		r := &cfg.Rules.Rules[i]
		var abort *engine.CompiledAction
		for _, a := range ruleActions(cfg, r) {
			if a.Key.Kind == lifecycle.AbortMPU {
				abort = a
			}
		}
		if abort == nil {
			t.Verdicts = append(t.Verdicts, Verdict{RuleID: r.ID, RuleIndex: i + 1, Outcome: OutcomeNever,
				Reason: lifecycle.ReasonNotUploadAction.String(), Detail: "the rule has no AbortIncompleteMultipartUpload"})
			continue
		}
		out := verdict(cfg, r, i, string(lifecycle.AbortMPU), snap.ExplainUpload(abort, up), nil)
		out.Chosen = ok && sameAction(abort, bestAct)
		t.Verdicts = append(t.Verdicts, out)
	}
	return t
}

// recoveryActions is every enabled action of the bucket, as the pass's
// recovery walk evaluates them.
func recoveryActions(cfg Config) []*engine.CompiledAction {
	return engine.RecoveryView(cfg.Snapshot).BucketActions(cfg.Bucket.Name)
}

// ruleActions is r's compiled actions (disabled ones too), in the order
// the rule lists its kinds. Rules are matched by pointer: IDs may be
// empty or, across kinds, repeat.
func ruleActions(cfg Config, r *lifecycle.Rule) []*engine.CompiledAction {
	var out []*engine.CompiledAction
	for _, kind := range r.Actions() {
		for _, a := range cfg.Snapshot.BucketActions(cfg.Bucket.Name) {
			if a.Rule == r && a.Key.Kind == kind {
				out = append(out, a)
			}
		}
	}
	return out
}

// sameAction reports whether a and b are one compiled action: views clone
// actions, so pointers differ; the rule pointer and key do not.
func sameAction(a, b *engine.CompiledAction) bool {
	return a != nil && b != nil && a.Rule == b.Rule && a.Key == b.Key
}

// bucketVerdict is the one verdict of a bucket whose configuration is
// missing or rejected.
func bucketVerdict(cfg Config) Verdict {
	if cfg.ConfigErr != "" {
		return Verdict{Outcome: OutcomeNever, Reason: ReasonConfigRejected,
			Detail: "the bucket's lifecycle configuration was rejected, so the pass takes no action on it: " + cfg.ConfigErr}
	}
	return Verdict{Outcome: OutcomeNever, Reason: ReasonNoConfiguration, Detail: "the bucket has no lifecycle configuration"}
}

// verdict turns the engine's verdict on v (nil for an upload) into the
// outcome at cfg.Now.
func verdict(cfg Config, r *lifecycle.Rule, i int, action string, vd lifecycle.Verdict, v *filer.Version) Verdict {
	out := Verdict{RuleID: r.ID, RuleIndex: i + 1, Action: action, Filter: vd.Filter}
	if vd.Reason == lifecycle.ReasonFilter {
		out.FilterDetail = filterDetail(&r.Filter, vd.Filter, cfg.Key, v)
	}
	if !vd.Applies {
		out.Outcome, out.Reason = OutcomeNever, vd.Reason.String()
		out.Detail = reasonDetail(r, lifecycle.ActionKind(action), vd)
		if out.FilterDetail != "" {
			out.Detail += ": " + out.FilterDetail
		}
		return out
	}
	out.Action = string(vd.Match.Kind)
	out.Due, out.DueMath, out.HasDue = vd.Match.Due, vd.Due, true
	math := dueDetail(vd.Due)
	if vd.Match.IsDue(cfg.Now) {
		out.Outcome = OutcomeDue
		if vd.Match.Due.IsZero() {
			out.Detail = "due: " + math
		} else {
			out.Detail = fmt.Sprintf("due since %s: %s", vd.Match.Due.Format(time.RFC3339), math)
		}
		return out
	}
	out.Outcome = OutcomeNotYetDue
	out.Detail = fmt.Sprintf("due at %s, in %s: %s", vd.Match.Due.Format(time.RFC3339), until(vd.Match.Due.Sub(cfg.Now)), math)
	return out
}

// transitionVerdicts are a rule's transitions: valid, never executed,
// with the filter's answer on the version.
func transitionVerdicts(cfg Config, r *lifecycle.Rule, i int, obj *filer.Object, idx int) []Verdict {
	var out []Verdict
	fc := r.Filter.CheckVersion(obj.Key, &obj.Versions[idx])
	add := func(element, what string) {
		vd := Verdict{RuleID: r.ID, RuleIndex: i + 1, Action: element, Outcome: OutcomeNever, Filter: fc,
			Reason: ReasonTransitionNotExecuted, Detail: what + dailyrun.TransitionNotExecutedSuffix}
		if !fc.OK() {
			vd.FilterDetail = filterDetail(&r.Filter, fc, cfg.Key, &obj.Versions[idx])
			vd.Detail += "; nor does the filter select this version: " + vd.FilterDetail
		}
		if !r.Enabled {
			vd.Reason, vd.Detail = lifecycle.ReasonDisabled.String(), "the rule's Status is Disabled"
		}
		out = append(out, vd)
	}
	for _, t := range r.Transitions {
		add(lifecycle.TransitionElement, t.String())
	}
	for _, t := range r.NoncurrentTransitions {
		add(lifecycle.NoncurrentTransitionElement, t.String())
	}
	return out
}

// heldBy says why Object Lock makes the store skip kind's delete of
// obj.Versions[idx] at now, and the reason code; "" when it does not. It
// follows the stores' rule (docs/run.md#bytes, Object Lock): a permanent
// delete of a version under legal hold or unexpired retention is
// SKIPPED_OBJECT_LOCK; a delete marker added over it is not a permanent
// delete. Under Suspended an expiration replaces the null version,
// wherever it is.
func heldBy(kind lifecycle.ActionKind, vs filer.Versioning, obj *filer.Object, idx int, now time.Time) (why, reason string) {
	target := lifecycle.LockTarget(kind, vs, obj, idx)
	if target < 0 {
		return "", ""
	}
	v := obj.Versions[target]
	switch {
	case v.LegalHold:
		return fmt.Sprintf("version %s is under legal hold: the store skips the delete (SKIPPED_OBJECT_LOCK) until the hold is removed", v.VersionID), ReasonLegalHold
	case v.RetainUntil.After(now):
		return fmt.Sprintf("version %s is retained until %s: the store skips the delete (SKIPPED_OBJECT_LOCK) until then", v.VersionID, v.RetainUntil.UTC().Format(time.RFC3339)), ReasonRetention
	}
	return "", ""
}

// filterDetail names the failed predicate with its values and what the
// version (nil for an upload) has instead.
func filterDetail(f *lifecycle.Filter, c lifecycle.FilterCheck, key string, v *filer.Version) string {
	member := ""
	if f.And {
		member = "And member "
	}
	switch c.Failed {
	case lifecycle.PredicatePrefix:
		return fmt.Sprintf("%sPrefix %q does not match key %q", member, f.Prefix, key)
	case lifecycle.PredicateSizeOnMarker:
		return "a size bound (ObjectSizeGreaterThan/ObjectSizeLessThan) never selects a delete marker"
	case lifecycle.PredicateSizeGreaterThan:
		return fmt.Sprintf("%sObjectSizeGreaterThan %d: the size, %d, is not greater", member, *f.SizeGreaterThan, v.Size)
	case lifecycle.PredicateSizeLessThan:
		return fmt.Sprintf("%sObjectSizeLessThan %d: the size, %d, is not less", member, *f.SizeLessThan, v.Size)
	case lifecycle.PredicateTag:
		t := f.Tags[c.Tag]
		if got, ok := v.Tags[t.Key]; ok {
			return fmt.Sprintf("%sTag %s=%s: the version has %s=%s", member, t.Key, t.Value, t.Key, got)
		}
		return fmt.Sprintf("%sTag %s=%s: the version has no tag %s", member, t.Key, t.Value, t.Key)
	case lifecycle.PredicateUploadTagOrSize:
		return "the filter tests tags or size, which an incomplete upload does not have, so it never selects one"
	}
	return ""
}

// reasonDetail is why an action does not apply, in a sentence.
func reasonDetail(r *lifecycle.Rule, kind lifecycle.ActionKind, vd lifecycle.Verdict) string {
	switch vd.Reason {
	case lifecycle.ReasonDisabled:
		return "the rule's Status is Disabled"
	case lifecycle.ReasonFilter:
		return "the filter does not select it"
	case lifecycle.ReasonNotLatest:
		return element(kind) + " acts on the current version only, and this one is noncurrent"
	case lifecycle.ReasonLatest:
		return "NoncurrentVersionExpiration acts on noncurrent versions, and this is the current version"
	case lifecycle.ReasonMarkerWithVersions:
		return "the delete marker has versions beneath it; it is removed only once it is the key's only version"
	case lifecycle.ReasonDeleteMarker:
		return "Expiration Date never removes a delete marker"
	case lifecycle.ReasonNotDeleteMarker:
		return "ExpiredObjectDeleteMarker removes only a delete marker that is the key's only version"
	case lifecycle.ReasonNewerNoncurrentKept:
		return fmt.Sprintf("kept: NewerNoncurrentVersions %d, and %s newer and staying (delete markers, and versions another rule deletes first, do not count)", r.NewerNoncurrentVersions, objectVersionsAre(vd.NewerNoncurrent))
	case lifecycle.ReasonExpiredMarkerKept:
		return "--expired-marker-days keep: Expiration Days keeps a delete marker that is the key's only version"
	case lifecycle.ReasonNotVersionAction:
		return "the action acts on incomplete multipart uploads"
	case lifecycle.ReasonNotUploadAction:
		return "the rule has no AbortIncompleteMultipartUpload"
	}
	return vd.Reason.String()
}

// dueDetail is the due-time arithmetic in words.
func dueDetail(d lifecycle.DueMath) string {
	switch d.From {
	case lifecycle.BaseNone:
		return "no day count, due as soon as found"
	case lifecycle.BaseDate:
		return "Expiration Date " + d.Base.Format(time.RFC3339)
	}
	s := fmt.Sprintf("%s %s + %d day", d.From, d.Base.Format(time.RFC3339), d.Days)
	if d.Days != 1 {
		s += "s"
	}
	if d.Rounding == lifecycle.RoundExact {
		return s + " (exact, unrounded)"
	}
	return s + ", rounded up to the next midnight UTC"
}

// element is the S3 element an action kind comes from.
func element(kind lifecycle.ActionKind) string {
	switch kind {
	case lifecycle.ExpiredDeleteMarker:
		return "Expiration ExpiredObjectDeleteMarker"
	case lifecycle.NoncurrentDays, lifecycle.NewerNoncurrent:
		return "NoncurrentVersionExpiration"
	case lifecycle.AbortMPU:
		return "AbortIncompleteMultipartUpload"
	}
	return "Expiration"
}

// countIs is "1 is" or "n are".
// objectVersionsAre counts noncurrent object versions in words.
func objectVersionsAre(n int) string {
	if n == 1 {
		return "1 noncurrent object version is"
	}
	return fmt.Sprintf("%d noncurrent object versions are", n)
}

// until is a wait in words: hours below two days, else whole days.
func until(d time.Duration) string {
	if d < 48*time.Hour {
		return dailyrun.FormatDuration(d)
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}
