package lifecycle

import (
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Match is one action that applies to one version or upload. Due is when it
// may be dispatched; the zero time means "due now" (ExpiredDeleteMarker and
// NewerNoncurrent without NoncurrentDays; docs/design/daily-run.md#action-kinds).
type Match struct {
	Kind   ActionKind
	RuleID string
	Due    time.Time
}

// IsDue reports whether m may be dispatched at now.
func (m Match) IsDue(now time.Time) bool { return !m.Due.After(now) }

// Earlier reports whether m should win over o when both would delete the
// same target: the earliest due delete applies; ties break on rule ID so the
// choice is deterministic.
func (m Match) Earlier(o Match) bool {
	if !m.Due.Equal(o.Due) {
		return m.Due.Before(o.Due)
	}
	return m.RuleID < o.RuleID
}

// MatchesVersion reports whether the filter selects version v of key: every
// set predicate must hold (see CheckVersion for which one failed). Tags
// need exact key and value; size bounds are strict and never match delete
// markers (per AWS lifecycle docs).
func (f *Filter) MatchesVersion(key string, v *filer.Version) bool {
	return f.CheckVersion(key, v).OK()
}

// MatchesUpload reports whether the filter selects an incomplete multipart
// upload. Uploads have no tags or size yet, so a filter with either never
// selects one (fail closed: no abort on a guess).
func (f *Filter) MatchesUpload(u *filer.Upload) bool { return f.CheckUpload(u).OK() }

// EvaluateVersion decides whether action kind of rule applies to
// obj.Versions[idx] (versions newest first) and when it is due. ok is false
// when the action never applies to that version in its current state.
//   - ExpirationDays/ExpirationDate act on the latest version only, never on
//     a delete marker with other versions beneath it.
//   - ExpirationDays on a delete marker that is the latest and only version
//     (an expired object delete marker) is a match of Kind
//     ExpiredDeleteMarker, due Days after the marker's own mtime: per the
//     AWS lifecycle docs, with Days S3 removes such a marker itself once it
//     is old enough (MinIO and RustFS do too). ExpiredMarkerDays lets a
//     pass keep them instead.
//   - NoncurrentDays counts from when the version became noncurrent:
//     NoncurrentSinceNs, else the successor's mtime, else its own mtime.
//   - NewerNoncurrent keeps the NewerNoncurrentVersions newest noncurrent
//     object versions; noncurrent delete markers do not count toward that
//     number (NewerNoncurrentRank), and a marker is itself deleted only
//     once that many object versions newer than it are kept. With
//     NoncurrentDays the version must also be that old.
//   - ExpiredDeleteMarker removes a delete marker that is the latest and
//     only version.
//
// AbortMPU never applies to a version; see EvaluateUpload. It is
// ExplainVersion's decision without the reason, so a pass and an
// explanation cannot disagree.
func EvaluateVersion(r *Rule, kind ActionKind, obj *filer.Object, idx int, rnd Rounding) (Match, bool) {
	vd := ExplainVersion(r, kind, obj, idx, rnd)
	return vd.Match, vd.Applies
}

// EvaluateUpload decides whether rule's AbortIncompleteMultipartUpload
// applies to u, due DaysAfterInitiation after initiation (ExplainUpload
// says why not).
func EvaluateUpload(r *Rule, u *filer.Upload, rnd Rounding) (Match, bool) {
	vd := ExplainUpload(r, u, rnd)
	return vd.Match, vd.Applies
}
