package lifecycle

import "fmt"

// ExpiredMarkerDays says what an Expiration Days action does with an
// expired object delete marker: a delete marker that is its key's latest
// and only version.
type ExpiredMarkerDays int

const (
	// ExpiredMarkersAWS removes the marker once it is Days old, counted from
	// its own mtime with the pass's due rounding, as S3 does (AWS lifecycle
	// docs, "Expiring objects"), and MinIO and RustFS.
	ExpiredMarkersAWS ExpiredMarkerDays = iota
	// ExpiredMarkersKeep leaves it to ExpiredObjectDeleteMarker, as
	// SeaweedFS's own lifecycle worker does; for side-by-side comparisons.
	ExpiredMarkersKeep
)

// ParseExpiredMarkerDays reads an --expired-marker-days value: "aws" or
// "keep".
func ParseExpiredMarkerDays(s string) (ExpiredMarkerDays, error) {
	switch s {
	case "aws":
		return ExpiredMarkersAWS, nil
	case "keep":
		return ExpiredMarkersKeep, nil
	}
	return 0, fmt.Errorf("unknown expired marker policy %q: use aws or keep", s)
}

func (p ExpiredMarkerDays) String() string {
	if p == ExpiredMarkersKeep {
		return "keep"
	}
	return "aws"
}

// Allows reports whether m, a match of an action of the given kind, may be
// acted on under p: under ExpiredMarkersKeep an ExpirationDays action never
// removes a delete marker.
func (p ExpiredMarkerDays) Allows(kind ActionKind, m Match) bool {
	return p != ExpiredMarkersKeep || kind != ExpirationDays || m.Kind != ExpiredDeleteMarker
}
