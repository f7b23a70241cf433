package lifecycle

import (
	"strconv"
	"time"
)

// FormatDuration is the one way ilmctl prints a duration to a person:
// truncated to the second, its two largest units of days, hours, minutes
// and seconds, a zero second unit left out (91d, 28d15h, 1h30m, 2h, 45s,
// 0s; -3m for a negative one). JSON keeps seconds or nanoseconds.
func FormatDuration(d time.Duration) string {
	d = d.Truncate(time.Second)
	if d < 0 {
		return "-" + FormatDuration(-d)
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
