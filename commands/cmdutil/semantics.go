package cmdutil

import (
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// PassNow is the instant a pass (or a preview of one) evaluates at: the
// current UTC time, or --now when given. A malformed or out-of-range
// --now is a usage error naming the flag.
func PassNow(flagNow string) (time.Time, error) {
	if flagNow == "" {
		return time.Now().UTC(), nil
	}
	now, err := time.Parse(time.RFC3339, flagNow)
	if err != nil {
		return time.Time{}, Usage("--now %q is not RFC3339 (example: 2027-01-01T00:00:00Z)", flagNow)
	}
	if err := filer.CheckTime("--now", now); err != nil {
		return time.Time{}, Usage("%v", err)
	}
	return now, nil
}

// Semantics parses --due-rounding and --expired-marker-days, the two
// flags by which `run` and `explain` may depart from AWS's lifecycle
// semantics; a bad value is a usage error naming the flag.
func Semantics(dueRounding, expiredMarkers string) (lifecycle.Rounding, lifecycle.ExpiredMarkerDays, error) {
	rnd, err := lifecycle.ParseRounding(dueRounding)
	if err != nil {
		return rnd, 0, Usage("--due-rounding: %v", err)
	}
	markers, err := lifecycle.ParseExpiredMarkerDays(expiredMarkers)
	if err != nil {
		return rnd, markers, Usage("--expired-marker-days: %v", err)
	}
	return rnd, markers, nil
}
