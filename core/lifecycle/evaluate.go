package lifecycle

import (
	"strings"
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
// set predicate must hold. Tags need exact key and value; size bounds are
// strict and never match delete markers (per AWS lifecycle docs).
func (f *Filter) MatchesVersion(key string, v *filer.Version) bool {
	if !strings.HasPrefix(key, f.Prefix) {
		return false
	}
	if f.SizeGreaterThan != nil || f.SizeLessThan != nil {
		if v.DeleteMarker {
			return false
		}
		if f.SizeGreaterThan != nil && v.Size <= *f.SizeGreaterThan {
			return false
		}
		if f.SizeLessThan != nil && v.Size >= *f.SizeLessThan {
			return false
		}
	}
	for _, t := range f.Tags {
		if val, ok := v.Tags[t.Key]; !ok || val != t.Value {
			return false
		}
	}
	return true
}

// MatchesUpload reports whether the filter selects an incomplete multipart
// upload. Uploads have no tags or size yet, so a filter with either never
// selects one (fail closed: no abort on a guess).
func (f *Filter) MatchesUpload(u *filer.Upload) bool {
	return len(f.Tags) == 0 && f.SizeGreaterThan == nil && f.SizeLessThan == nil &&
		strings.HasPrefix(u.Key, f.Prefix)
}

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
//     versions; with NoncurrentDays the version must also be that old.
//   - ExpiredDeleteMarker removes a delete marker that is the latest and
//     only version.
//
// AbortMPU never applies to a version; see EvaluateUpload.
func EvaluateVersion(r *Rule, kind ActionKind, obj *filer.Object, idx int, rnd Rounding) (Match, bool) {
	if !r.Enabled || idx < 0 || idx >= len(obj.Versions) {
		return Match{}, false
	}
	v := &obj.Versions[idx]
	if !r.Filter.MatchesVersion(obj.Key, v) {
		return Match{}, false
	}
	m := Match{Kind: kind, RuleID: r.ID}
	latest := idx == 0
	switch kind {
	case ExpirationDays:
		if !latest {
			return Match{}, false
		}
		if v.DeleteMarker {
			if len(obj.Versions) != 1 {
				return Match{}, false
			}
			m.Kind = ExpiredDeleteMarker
		}
		m.Due = DueAt(time.Unix(0, v.MtimeNs), r.ExpirationDays, rnd)
	case ExpirationDate:
		if !latest || v.DeleteMarker {
			return Match{}, false
		}
		m.Due = r.ExpirationDate
	case ExpiredDeleteMarker:
		if !latest || !v.DeleteMarker || len(obj.Versions) != 1 {
			return Match{}, false
		}
	case NoncurrentDays:
		if latest {
			return Match{}, false
		}
		m.Due = DueAt(noncurrentSince(obj, idx), r.NoncurrentDays, rnd)
	case NewerNoncurrent:
		// idx-1 noncurrent versions are newer than this one.
		if latest || idx-1 < r.NewerNoncurrentVersions {
			return Match{}, false
		}
		if r.NoncurrentDays > 0 {
			m.Due = DueAt(noncurrentSince(obj, idx), r.NoncurrentDays, rnd)
		}
	default:
		return Match{}, false
	}
	return m, true
}

// EvaluateUpload decides whether rule's AbortIncompleteMultipartUpload
// applies to u, due DaysAfterInitiation after initiation.
func EvaluateUpload(r *Rule, u *filer.Upload, rnd Rounding) (Match, bool) {
	if !r.Enabled || r.AbortMPUDays <= 0 || !r.Filter.MatchesUpload(u) {
		return Match{}, false
	}
	return Match{Kind: AbortMPU, RuleID: r.ID, Due: DueAt(u.Initiated, r.AbortMPUDays, rnd)}, true
}

// noncurrentSince is when obj.Versions[idx] became noncurrent
// (docs/design/daily-run.md#action-kinds): the demoting event's TsNs, else
// the successor's mtime, else the version's own mtime (legacy entries).
func noncurrentSince(obj *filer.Object, idx int) time.Time {
	v := obj.Versions[idx]
	switch {
	case v.NoncurrentSinceNs != 0:
		return time.Unix(0, v.NoncurrentSinceNs)
	case idx > 0 && obj.Versions[idx-1].MtimeNs != 0:
		return time.Unix(0, obj.Versions[idx-1].MtimeNs)
	}
	return time.Unix(0, v.MtimeNs)
}
