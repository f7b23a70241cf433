package lifecycle

import (
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Predicate names the filter predicate that did not select a version or
// upload. Its String is the spelling `ilmctl explain -o json` prints.
type Predicate int

// Filter predicates, in the order MatchesVersion checks them.
const (
	PredicateNone            Predicate = iota // the filter selects it
	PredicatePrefix                           // the key does not start with Prefix
	PredicateSizeOnMarker                     // a size bound never selects a delete marker
	PredicateSizeGreaterThan                  // Size <= ObjectSizeGreaterThan
	PredicateSizeLessThan                     // Size >= ObjectSizeLessThan
	PredicateTag                              // a tag is missing or has another value
	PredicateUploadTagOrSize                  // an upload has no tags or size to test
)

func (p Predicate) String() string {
	switch p {
	case PredicatePrefix:
		return "prefix"
	case PredicateSizeOnMarker:
		return "size_bound_on_delete_marker"
	case PredicateSizeGreaterThan:
		return "object_size_greater_than"
	case PredicateSizeLessThan:
		return "object_size_less_than"
	case PredicateTag:
		return "tag"
	case PredicateUploadTagOrSize:
		return "upload_has_no_tags_or_size"
	}
	return "none"
}

// FilterCheck is the filter's answer for one version or upload: the first
// predicate that failed, PredicateNone when every one held.
type FilterCheck struct {
	Failed Predicate
	// Tag is the index in Filter.Tags of the tag that failed when Failed
	// is PredicateTag.
	Tag int
}

// OK reports whether the filter selects the version or upload.
func (c FilterCheck) OK() bool { return c.Failed == PredicateNone }

// CheckVersion is MatchesVersion with the predicate that failed: every set
// predicate must hold. Tags need exact key and value; size bounds are
// strict and never match delete markers (per AWS lifecycle docs).
func (f *Filter) CheckVersion(key string, v *filer.Version) FilterCheck {
	if len(key) < len(f.Prefix) || key[:len(f.Prefix)] != f.Prefix {
		return FilterCheck{Failed: PredicatePrefix}
	}
	if f.SizeGreaterThan != nil || f.SizeLessThan != nil {
		switch {
		case v.DeleteMarker:
			return FilterCheck{Failed: PredicateSizeOnMarker}
		case f.SizeGreaterThan != nil && v.Size <= *f.SizeGreaterThan:
			return FilterCheck{Failed: PredicateSizeGreaterThan}
		case f.SizeLessThan != nil && v.Size >= *f.SizeLessThan:
			return FilterCheck{Failed: PredicateSizeLessThan}
		}
	}
	for i, t := range f.Tags {
		if val, ok := v.Tags[t.Key]; !ok || val != t.Value {
			return FilterCheck{Failed: PredicateTag, Tag: i}
		}
	}
	return FilterCheck{}
}

// CheckUpload is MatchesUpload with the predicate that failed. Uploads
// have no tags or size yet, so a filter with either never selects one
// (fail closed: no abort on a guess).
func (f *Filter) CheckUpload(u *filer.Upload) FilterCheck {
	if len(f.Tags) > 0 || f.SizeGreaterThan != nil || f.SizeLessThan != nil {
		return FilterCheck{Failed: PredicateUploadTagOrSize}
	}
	if len(u.Key) < len(f.Prefix) || u.Key[:len(f.Prefix)] != f.Prefix {
		return FilterCheck{Failed: PredicatePrefix}
	}
	return FilterCheck{}
}

// Reason says why an action does not apply to a version or upload in its
// current state. Its String is the spelling `ilmctl explain -o json`
// prints.
type Reason int

// Reasons, in the order EvaluateVersion decides them.
const (
	ReasonNone                Reason = iota // the action applies
	ReasonDisabled                          // the rule's Status is Disabled
	ReasonFilter                            // the filter does not select it (FilterCheck says which predicate)
	ReasonNotLatest                         // a current-version action on a noncurrent version
	ReasonLatest                            // a noncurrent-version action on the latest version
	ReasonMarkerWithVersions                // a delete marker with versions beneath it
	ReasonDeleteMarker                      // ExpirationDate never removes a delete marker
	ReasonNotDeleteMarker                   // ExpiredObjectDeleteMarker on a version that is no marker
	ReasonNewerNoncurrentKept               // fewer than NewerNoncurrentVersions noncurrent object versions are newer
	ReasonExpiredMarkerKept                 // --expired-marker-days keep: Expiration Days keeps lone markers
	ReasonNotVersionAction                  // the kind acts on uploads, not versions
	ReasonNotUploadAction                   // the rule has no AbortIncompleteMultipartUpload
)

func (r Reason) String() string {
	switch r {
	case ReasonDisabled:
		return "rule_disabled"
	case ReasonFilter:
		return "filter"
	case ReasonNotLatest:
		return "not_latest"
	case ReasonLatest:
		return "latest"
	case ReasonMarkerWithVersions:
		return "delete_marker_with_versions"
	case ReasonDeleteMarker:
		return "delete_marker"
	case ReasonNotDeleteMarker:
		return "not_delete_marker"
	case ReasonNewerNoncurrentKept:
		return "newer_noncurrent_kept"
	case ReasonExpiredMarkerKept:
		return "expired_marker_kept"
	case ReasonNotVersionAction:
		return "not_a_version_action"
	case ReasonNotUploadAction:
		return "not_an_upload_action"
	}
	return "none"
}

// BaseSource is where a due time's base comes from. Its String is the
// spelling `ilmctl explain -o json` prints.
type BaseSource int

// Base sources.
const (
	BaseNone              BaseSource = iota // no day count: due as soon as found
	BaseCreation                            // the version's (or delete marker's) mtime
	BaseNoncurrentSince                     // the meta-log event that demoted the version
	BaseSuccessorCreation                   // the next newer version's mtime (no demotion stamp, or an older one)
	BaseOwnCreation                         // the version's own mtime (legacy entry, no successor time)
	BaseInitiation                          // the multipart upload's initiation
	BaseDate                                // Expiration Date
)

func (b BaseSource) String() string {
	switch b {
	case BaseCreation:
		return "creation"
	case BaseNoncurrentSince:
		return "noncurrent_since"
	case BaseSuccessorCreation:
		return "successor_creation"
	case BaseOwnCreation:
		return "own_creation"
	case BaseInitiation:
		return "upload_initiation"
	case BaseDate:
		return "expiration_date"
	}
	return "none"
}

// DueMath is the arithmetic behind a due time: Due = DueAt(Base, Days,
// Rounding), or Base itself for BaseDate, or the zero time (due as soon as
// found) for BaseNone.
type DueMath struct {
	Base     time.Time
	From     BaseSource
	Days     int
	Rounding Rounding
}

// Verdict is one rule action's decision on one version or upload, with
// the reason behind it. EvaluateVersion and EvaluateUpload are its Match
// and Applies: the pass and `ilmctl explain` read the same decision.
type Verdict struct {
	// Applies is true when the action applies; Match is then its match.
	Applies bool
	Match   Match
	// Reason is why it does not apply (ReasonNone when it does).
	Reason Reason
	// Filter is the filter's answer; meaningful unless Reason is
	// ReasonDisabled or ReasonNotVersionAction.
	Filter FilterCheck
	// Due is how Match.Due was computed; set whenever the position checks
	// passed, so also for a version that is kept for another reason after
	// them (none today).
	Due DueMath
	// NewerNoncurrent is how many noncurrent versions newer than this one
	// count toward NewerNoncurrentVersions: object versions, not delete
	// markers, unless the pass counts markers too (NewerNoncurrent only;
	// see NewerNoncurrentRank).
	NewerNoncurrent int
}

// ExplainVersion decides whether action kind of rule applies to
// obj.Versions[idx] (versions newest first), when it is due and, when it
// does not apply, why, counting NewerNoncurrentVersions as S3 does. See
// EvaluateVersion for the rules.
func ExplainVersion(r *Rule, kind ActionKind, obj *filer.Object, idx int, rnd Rounding) Verdict {
	return ExplainVersionCounting(r, kind, obj, idx, rnd, CountObjectVersions)
}

// ExplainVersionCounting is ExplainVersion with the NewerNoncurrentVersions
// count given: which noncurrent versions count toward it.
func ExplainVersionCounting(r *Rule, kind ActionKind, obj *filer.Object, idx int, rnd Rounding, count NewerNoncurrentCount) Verdict {
	if idx < 0 || idx >= len(obj.Versions) {
		return Verdict{Reason: ReasonNotLatest}
	}
	if !r.Enabled {
		return Verdict{Reason: ReasonDisabled}
	}
	v := &obj.Versions[idx]
	vd := Verdict{Filter: r.Filter.CheckVersion(obj.Key, v)}
	if !vd.Filter.OK() {
		vd.Reason = ReasonFilter
		return vd
	}
	m := Match{Kind: kind, RuleID: r.ID}
	latest := idx == 0
	switch kind {
	case ExpirationDays:
		switch {
		case !latest:
			vd.Reason = ReasonNotLatest
			return vd
		case v.DeleteMarker && len(obj.Versions) != 1:
			vd.Reason = ReasonMarkerWithVersions
			return vd
		case v.DeleteMarker:
			m.Kind = ExpiredDeleteMarker
		}
		vd.Due = DueMath{Base: time.Unix(0, v.MtimeNs).UTC(), From: BaseCreation, Days: r.ExpirationDays, Rounding: rnd}
	case ExpirationDate:
		switch {
		case !latest:
			vd.Reason = ReasonNotLatest
			return vd
		case v.DeleteMarker:
			vd.Reason = ReasonDeleteMarker
			return vd
		}
		vd.Due = DueMath{Base: r.ExpirationDate, From: BaseDate}
	case ExpiredDeleteMarker:
		switch {
		case !latest:
			vd.Reason = ReasonNotLatest
			return vd
		case !v.DeleteMarker:
			vd.Reason = ReasonNotDeleteMarker
			return vd
		case len(obj.Versions) != 1:
			vd.Reason = ReasonMarkerWithVersions
			return vd
		}
	case NoncurrentDays:
		if latest {
			vd.Reason = ReasonLatest
			return vd
		}
		base, from := noncurrentSince(obj, idx)
		vd.Due = DueMath{Base: base, From: from, Days: r.NoncurrentDays, Rounding: rnd}
	case NewerNoncurrent:
		if latest {
			vd.Reason = ReasonLatest
			return vd
		}
		vd.NewerNoncurrent = NewerNoncurrentRank(obj, idx, count)
		if vd.NewerNoncurrent < r.NewerNoncurrentVersions {
			vd.Reason = ReasonNewerNoncurrentKept
			return vd
		}
		if r.NoncurrentDays > 0 {
			base, from := noncurrentSince(obj, idx)
			vd.Due = DueMath{Base: base, From: from, Days: r.NoncurrentDays, Rounding: rnd}
		}
	default:
		vd.Reason = ReasonNotVersionAction
		return vd
	}
	m.Due = vd.Due.At()
	vd.Applies, vd.Match = true, m
	return vd
}

// ExplainUpload decides whether rule's AbortIncompleteMultipartUpload
// applies to u, due DaysAfterInitiation after initiation, and why not.
func ExplainUpload(r *Rule, u *filer.Upload, rnd Rounding) Verdict {
	if r.AbortMPUDays <= 0 {
		return Verdict{Reason: ReasonNotUploadAction}
	}
	if !r.Enabled {
		return Verdict{Reason: ReasonDisabled}
	}
	vd := Verdict{Filter: r.Filter.CheckUpload(u)}
	if !vd.Filter.OK() {
		vd.Reason = ReasonFilter
		return vd
	}
	vd.Due = DueMath{Base: u.Initiated.UTC(), From: BaseInitiation, Days: r.AbortMPUDays, Rounding: rnd}
	vd.Applies = true
	vd.Match = Match{Kind: AbortMPU, RuleID: r.ID, Due: vd.Due.At()}
	return vd
}

// At is the due time the arithmetic gives: the zero time (due as soon as
// found) for BaseNone, the date itself for BaseDate, else DueAt.
func (d DueMath) At() time.Time {
	switch d.From {
	case BaseNone:
		return time.Time{}
	case BaseDate:
		return d.Base
	}
	return DueAt(d.Base, d.Days, d.Rounding)
}

// noncurrentSince is when obj.Versions[idx] became noncurrent, as the S3
// User Guide counts it ("Amazon S3 uses the number of days since its
// successor was created as the number of days an object is noncurrent"):
// the mtime of its successor, the next newer version or delete marker as
// the key is now. The demotion stamp (Version.NoncurrentSinceNs, the
// meta-log time of the write that demoted it) counts instead when it is
// no earlier, as it is while that successor stands; one earlier than
// the successor's mtime outlived the successor it was written for (another
// rule's or a client's delete of it, a Suspended bucket's null version
// overwritten), and S3 counts from the successor the key has now, later.
// A version with neither falls back to its own mtime (legacy entries), as
// docs/run.md (Due times) counts NoncurrentDays.
func noncurrentSince(obj *filer.Object, idx int) (time.Time, BaseSource) {
	v := obj.Versions[idx]
	var successor int64
	if idx > 0 {
		successor = obj.Versions[idx-1].MtimeNs
	}
	switch {
	case v.NoncurrentSinceNs != 0 && v.NoncurrentSinceNs >= successor:
		return time.Unix(0, v.NoncurrentSinceNs).UTC(), BaseNoncurrentSince
	case successor != 0:
		return time.Unix(0, successor).UTC(), BaseSuccessorCreation
	}
	return time.Unix(0, v.MtimeNs).UTC(), BaseOwnCreation
}
