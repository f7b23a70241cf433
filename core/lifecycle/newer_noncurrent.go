package lifecycle

import (
	"fmt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// NewerNoncurrentCount says which noncurrent versions count toward a
// rule's NewerNoncurrentVersions: how many newer noncurrent versions a
// version has before it may be deleted
// (docs/design/daily-run.md#newer-noncurrent-versions).
type NewerNoncurrentCount int

const (
	// CountObjectVersions counts noncurrent object versions only, never
	// delete markers, as the Amazon S3 User Guide ("Lifecycle configuration
	// elements", NoncurrentVersionExpiration) says: "The maximum number of
	// noncurrent versions does not include versions marked with noncurrent
	// delete markers." The default.
	CountObjectVersions NewerNoncurrentCount = iota
	// CountWithMarkers counts noncurrent delete markers too, as SeaweedFS's
	// lifecycle worker does (weed/s3api/s3lifecycle/dailyrun/
	// filer_list_func.go ranks every sibling). It retains fewer object
	// versions than S3; for side-by-side comparisons only.
	CountWithMarkers
)

// ParseNewerNoncurrentCount reads a --newer-noncurrent-count value:
// "versions" or "versions-and-markers".
func ParseNewerNoncurrentCount(s string) (NewerNoncurrentCount, error) {
	switch s {
	case "versions":
		return CountObjectVersions, nil
	case "versions-and-markers":
		return CountWithMarkers, nil
	}
	return 0, fmt.Errorf("unknown newer-noncurrent count %q: use versions (as S3) or versions-and-markers (as SeaweedFS's worker)", s)
}

func (c NewerNoncurrentCount) String() string {
	if c == CountWithMarkers {
		return "versions-and-markers"
	}
	return "versions"
}

// NewerNoncurrentRank is how many noncurrent versions newer than
// obj.Versions[idx] (versions newest first, idx > 0) count toward
// NewerNoncurrentVersions under c. The latest version, a delete marker or
// not, is current and never counts.
//
// Under CountObjectVersions the same rank decides a noncurrent delete
// marker itself: it is deleted only once NewerNoncurrentVersions object
// versions newer than it are retained, that is when it is older than
// every retained version, and, with NoncurrentDays, old enough.
func NewerNoncurrentRank(obj *filer.Object, idx int, c NewerNoncurrentCount) int {
	if idx <= 1 {
		return 0
	}
	if c == CountWithMarkers {
		return idx - 1
	}
	n := 0
	for i := 1; i < idx; i++ {
		if !obj.Versions[i].DeleteMarker {
			n++
		}
	}
	return n
}
