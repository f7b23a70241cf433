package journal

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// displayTime matches how RustFS writes a journal source's mod_time: the
// Display form of the Rust time crate's OffsetDateTime
// (TierDeleteSourceIdentity::from_object_info in
// crates/ecstore/src/bucket/lifecycle/tier_sweeper.rs calls to_string),
// "<date> <time> <offset>" as in "2026-08-30 9:05:03.5 +00:00:00": a
// four-digit year (a sign only when negative or past 9999), an hour
// without padding, a fraction of one to nine digits with trailing zeros
// trimmed (but at least one digit), and a +hh:mm:ss offset.
var displayTime = regexp.MustCompile(`^([+-]?)([0-9]{4,6})-([0-9]{2})-([0-9]{2}) ([0-9]{1,2}):([0-9]{2}):([0-9]{2})\.([0-9]{1,9}) ([+-])([0-9]{2}):([0-9]{2}):([0-9]{2})$`)

// parseModTime reads a recorded source mod_time as Unix nanoseconds. It
// accepts exactly two spellings, which cannot be confused with each other:
// the time crate's Display form RustFS writes (displayTime) and RFC 3339.
// Anything else, or a Display string the time crate would not print
// (a padded hour, a trailing fraction zero, "-00:00:00"), is an error, so
// the source stays uncertain rather than compared under a guess.
func parseModTime(s string) (int64, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), nil
	}
	m := displayTime.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("source mod_time %q is neither RustFS's date-time display form nor RFC 3339", s)
	}
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("source mod_time %q is not as RustFS prints it: %s", s, why)
	}
	sign, yearDigits, hourDigits, frac := m[1], m[2], m[5], m[8]
	year, _ := strconv.Atoi(yearDigits)
	switch {
	case sign == "" && len(yearDigits) != 4:
		return bad("a year past 9999 carries a + sign")
	case sign == "+" && year < 10000:
		return bad("a year before 10000 has no + sign")
	case sign == "-" && year == 0:
		return bad("year zero has no sign")
	case len(yearDigits) > 4 && yearDigits[0] == '0':
		return bad("a year is zero-padded to four digits only")
	case len(hourDigits) == 2 && hourDigits[0] == '0':
		return bad("the hour is not zero-padded")
	case len(frac) > 1 && frac[len(frac)-1] == '0':
		return bad("trailing zeros of the fraction are trimmed")
	}
	if sign == "-" {
		year = -year
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	month, day, hour, minute, second := n(3), n(4), n(5), n(6), n(7)
	oh, om, os := n(10), n(11), n(12)
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, time.Month(month)) || hour > 23 || minute > 59 || second > 59 {
		return bad("date or time out of range")
	}
	if oh > 25 || om > 59 || os > 59 {
		return bad("offset out of range")
	}
	off := oh*3600 + om*60 + os
	if m[9] == "-" {
		if off == 0 {
			return bad("a zero offset is written +00:00:00")
		}
		off = -off
	}
	nanos, _ := strconv.Atoi(frac + "000000000"[len(frac):])
	t := time.Date(year, time.Month(month), day, hour, minute, second, nanos, time.FixedZone("", off))
	return t.UnixNano(), nil
}

// daysIn is the number of days in month of the proleptic Gregorian year.
func daysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
