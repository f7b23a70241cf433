package render

import (
	"strconv"
	"time"
)

// Duration prints d for a table in its two largest units of days (24h),
// hours, minutes and seconds, truncated to whole seconds and without a
// zero second unit: 91d, 30d10h, 1h, 1h30m, 45s, 0s. Every human table
// prints durations this way; JSON carries the exact seconds.
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(-d)
	}
	for i, u := range durationUnits {
		if d < u.size {
			continue
		}
		s := strconv.FormatInt(int64(d/u.size), 10) + u.suffix
		if i+1 < len(durationUnits) {
			next := durationUnits[i+1]
			if n := d % u.size / next.size; n > 0 {
				s += strconv.FormatInt(int64(n), 10) + next.suffix
			}
		}
		return s
	}
	return "0s"
}

var durationUnits = []struct {
	suffix string
	size   time.Duration
}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}
