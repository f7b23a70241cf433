package lifecycle

import (
	"fmt"
	"time"
)

// Rounding selects how a day-count rule turns into a due time.
type Rounding int

const (
	// RoundAWS adds the days and rounds up to the next midnight UTC, per the
	// AWS lifecycle docs ("rounding the resulting time to the next day's
	// midnight UTC"): created 2014-01-15T10:30Z + 3 days is due
	// 2014-01-19T00:00Z. A result exactly at midnight still moves to the
	// following midnight, as MinIO and AWS compute it.
	RoundAWS Rounding = iota
	// RoundExact is SeaweedFS's unrounded base + days×24h.
	RoundExact
)

// ParseRounding reads a --due-rounding value: "aws" or "exact".
func ParseRounding(s string) (Rounding, error) {
	switch s {
	case "aws":
		return RoundAWS, nil
	case "exact":
		return RoundExact, nil
	}
	return 0, fmt.Errorf("unknown due rounding %q: use aws or exact", s)
}

func (r Rounding) String() string {
	if r == RoundExact {
		return "exact"
	}
	return "aws"
}

// Slack is how much later than base+days a due time can fall under r: one
// day for RoundAWS, none for RoundExact. The engine adds it to the effective
// TTL so replay windows cover every event that can still be pending.
func (r Rounding) Slack() time.Duration {
	if r == RoundExact {
		return 0
	}
	return 24 * time.Hour
}

// DueAt returns when an action with a day count becomes due, counting from
// base (creation, noncurrent-since or initiation time).
func DueAt(base time.Time, days int, r Rounding) time.Time {
	t := base.UTC().Add(time.Duration(days) * 24 * time.Hour)
	if r == RoundExact {
		return t
	}
	return t.Add(24 * time.Hour).Truncate(24 * time.Hour)
}
