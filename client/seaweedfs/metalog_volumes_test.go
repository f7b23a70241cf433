package seaweedfs

import (
	"testing"
	"time"
)

func TestMetaLogFileTime(t *testing.T) {
	for _, tc := range []struct {
		day, name string
		want      string
		ok        bool
	}{
		{"2026-11-30", "02-27.23ad6bbb", "2026-11-30T02:27:00Z", true},
		{"2026-11-30", "23-59.00000001", "2026-11-30T23:59:00Z", true},
		{"2026-11-30", "02-27", "", false}, // no filer id
		{"2026-11-30", "ab-cd.23ad6bbb", "", false},
		{"today", "02-27.23ad6bbb", "", false},
	} {
		got, ok := metaLogFileTime(tc.day, tc.name)
		if ok != tc.ok || (ok && got.Format(time.RFC3339) != tc.want) {
			t.Errorf("metaLogFileTime(%q, %q) = %s, %v; want %s, %v", tc.day, tc.name, got.Format(time.RFC3339), ok, tc.want, tc.ok)
		}
	}
}

func TestMetaLogFileInRange(t *testing.T) {
	start := time.Date(2026, 11, 30, 2, 27, 0, 0, time.UTC)
	ns := func(d time.Duration) int64 { return start.Add(d).UnixNano() }
	for _, tc := range []struct {
		name         string
		since, until int64
		want         bool
	}{
		{"range covers the window", ns(-time.Hour), ns(time.Hour), true},
		// A window runs up to a flush interval past its minute, so a
		// cursor inside the next minute still needs the file.
		{"cursor in the next minute", ns(90 * time.Second), ns(time.Hour), true},
		{"cursor past the window", ns(2 * time.Minute), ns(time.Hour), false},
		{"pass ends before the window", ns(-time.Hour), ns(-time.Nanosecond), false},
		{"pass ends at the window start", ns(-time.Hour), ns(0), true},
	} {
		if got := metaLogFileInRange(start, tc.since, tc.until); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
