package lifecycle

import "github.com/ilmctl/ilmctl/core/filer"

// BytesFreed is how many bytes an action of kind on obj.Versions[idx]
// frees in a bucket with versioning vs, as the stores apply it (README §
// ilmctl run, the embedded filer's and S3's delete semantics):
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
