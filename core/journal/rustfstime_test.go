package journal

import (
	"testing"
	"time"
)

func TestParseModTime(t *testing.T) {
	at := func(s string) int64 {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UnixNano()
	}
	for _, tc := range []struct {
		in   string
		want int64 // 0: refused
	}{
		// As RustFS writes it (the time crate's Display).
		{"2026-08-30 9:05:03.5 +00:00:00", at("2026-08-30T09:05:03.5Z")},
		{"2026-08-30 0:00:00.0 +00:00:00", at("2026-08-30T00:00:00Z")},
		{"2026-08-30 23:59:59.123456789 +00:00:00", at("2026-08-30T23:59:59.123456789Z")},
		{"2026-08-30 11:05:03.05 +02:00:00", at("2026-08-30T09:05:03.05Z")},
		{"2026-08-30 4:35:03.5 -04:30:00", at("2026-08-30T09:05:03.5Z")},
		{"2024-02-29 12:00:00.000000001 +00:00:00", at("2024-02-29T12:00:00.000000001Z")},
		// RFC 3339.
		{"2026-08-30T09:05:03.5Z", at("2026-08-30T09:05:03.5Z")},
		{"2026-08-30T11:05:03+02:00", at("2026-08-30T09:05:03Z")},
		// Never printed by the time crate: refused, so the source stays
		// uncertain.
		{"2026-08-30 09:05:03.5 +00:00:00", 0}, // padded hour
		{"2026-08-30 9:05:03.50 +00:00:00", 0}, // untrimmed fraction
		{"2026-08-30 9:05:03 +00:00:00", 0},    // no fraction
		{"2026-08-30 9:05:03.5 -00:00:00", 0},  // negative zero offset
		{"2026-08-30 9:05:03.5 +00:00", 0},     // short offset
		{"2026-08-30 9:05:03.5 UTC", 0},        // zone name
		{"2026-02-30 9:05:03.5 +00:00:00", 0},  // no such day
		{"2026-08-30 24:05:03.5 +00:00:00", 0}, // hour out of range
		{"2026-08-30 9:05:60.5 +00:00:00", 0},  // leap second
		{"+2026-08-30 9:05:03.5 +00:00:00", 0}, // sign on a four-digit year
		{"2026-08-30  9:05:03.5 +00:00:00", 0}, // two spaces
		{"2026-08-30 9:05:03.5 +00:00:00 ", 0}, // trailing space
		{"1788087903500000000", 0},             // a number
		{"", 0},
	} {
		got, err := parseModTime(tc.in)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("%q: accepted as %d, want refused", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
