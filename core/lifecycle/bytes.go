package lifecycle

import (
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// BytesFreed is how many bytes an action of kind on obj.Versions[idx]
// frees in a bucket with versioning vs, as the stores apply it (docs/run.md#bytes,
// the embedded filer's and S3's delete semantics):
//   - NoncurrentDays and NewerNoncurrent delete the version permanently:
//     its size.
//   - ExpirationDays and ExpirationDate remove an unversioned bucket's
//     object (its size); under Suspended they replace the null version,
//     wherever it is, with a null delete marker (the null version's size);
//     under Enabled they only add a delete marker, which hides the version
//     and frees nothing until a noncurrent action removes it.
//   - ExpiredDeleteMarker removes a marker (0), and AbortMPU an upload
//     whose parts the listing does not size (0).
func BytesFreed(kind ActionKind, vs filer.Versioning, obj *filer.Object, idx int) int64 {
	if idx < 0 || idx >= len(obj.Versions) {
		return 0
	}
	switch kind {
	case NoncurrentDays, NewerNoncurrent:
		return obj.Versions[idx].Size
	case ExpirationDays, ExpirationDate:
		switch vs {
		case filer.VersioningOff:
			return obj.Versions[idx].Size
		case filer.VersioningSuspended:
			for _, v := range obj.Versions {
				if v.VersionID == filer.NullVersionID && !v.DeleteMarker {
					return v.Size
				}
			}
		}
	}
	return 0
}

// LockTarget is the version whose Object Lock decides whether an action of
// kind on obj.Versions[idx] in a bucket with versioning vs can take effect,
// or -1 when none can stop it: a permanent delete removes obj.Versions[idx];
// an expiration removes an unversioned object, and under Suspended replaces
// the null version wherever it is; a delete marker added over a version
// (Enabled) is not a permanent delete and is never refused
// (docs/run.md#bytes, Object Lock).
func LockTarget(kind ActionKind, vs filer.Versioning, obj *filer.Object, idx int) int {
	if idx < 0 || idx >= len(obj.Versions) {
		return -1
	}
	switch kind {
	case NoncurrentDays, NewerNoncurrent:
		return idx
	case ExpirationDays, ExpirationDate:
		switch vs {
		case filer.VersioningOff:
			return idx
		case filer.VersioningSuspended:
			for i, v := range obj.Versions {
				if v.VersionID == filer.NullVersionID {
					return i
				}
			}
		}
	}
	return -1
}

// Held reports whether Object Lock makes the store skip an action of kind
// on obj.Versions[idx] at now (SKIPPED_OBJECT_LOCK): its LockTarget is
// under legal hold or retained past now.
func Held(kind ActionKind, vs filer.Versioning, obj *filer.Object, idx int, now time.Time) bool {
	t := LockTarget(kind, vs, obj, idx)
	if t < 0 {
		return false
	}
	v := obj.Versions[t]
	return v.LegalHold || v.RetainUntil.After(now)
}
