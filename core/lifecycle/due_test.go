package lifecycle

import (
	"testing"
	"time"
)

func mustUTC(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad fixture time %q: %v", s, err)
	}
	return v
}

func TestDueAt(t *testing.T) {
	cases := []struct {
		name string
		base string
		days int
		rnd  Rounding
		want string
	}{
		// The AWS docs' own example.
		{"aws docs example", "2014-01-15T10:30:00Z", 3, RoundAWS, "2014-01-19T00:00:00Z"},
		{"aws one nanosecond after midnight", "2014-01-15T00:00:00.000000001Z", 1, RoundAWS, "2014-01-17T00:00:00Z"},
		{"aws one nanosecond before midnight", "2014-01-15T23:59:59.999999999Z", 1, RoundAWS, "2014-01-17T00:00:00Z"},
		// A result exactly at midnight still moves to the next midnight
		// (MinIO's (days+1)×24h truncated formula).
		{"aws exactly midnight", "2014-01-15T00:00:00Z", 3, RoundAWS, "2014-01-19T00:00:00Z"},
		{"aws month rollover", "2014-01-30T12:00:00Z", 2, RoundAWS, "2014-02-02T00:00:00Z"},
		{"aws leap day", "2024-02-28T08:00:00Z", 1, RoundAWS, "2024-03-01T00:00:00Z"},
		{"aws year rollover", "2023-12-31T23:00:00Z", 1, RoundAWS, "2024-01-02T00:00:00Z"},
		{"aws zero days", "2014-01-15T10:30:00Z", 0, RoundAWS, "2014-01-16T00:00:00Z"},
		// Midnight UTC, not midnight in the base's zone: 2014-01-15T23:30-05:00
		// is 2014-01-16T04:30Z.
		{"aws non-utc base", "2014-01-15T23:30:00-05:00", 1, RoundAWS, "2014-01-18T00:00:00Z"},
		{"aws pre-epoch base", "1969-12-30T06:00:00Z", 1, RoundAWS, "1970-01-01T00:00:00Z"},

		{"exact", "2014-01-15T10:30:00Z", 3, RoundExact, "2014-01-18T10:30:00Z"},
		{"exact midnight", "2014-01-15T00:00:00Z", 3, RoundExact, "2014-01-18T00:00:00Z"},
		{"exact keeps nanoseconds", "2014-01-15T10:30:00.123456789Z", 1, RoundExact, "2014-01-16T10:30:00.123456789Z"},
		{"exact non-utc base", "2014-01-15T23:30:00-05:00", 1, RoundExact, "2014-01-17T04:30:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DueAt(mustUTC(t, c.base), c.days, c.rnd)
			want := mustUTC(t, c.want)
			if !got.Equal(want) {
				t.Errorf("DueAt(%s, %d, %s) = %s, want %s", c.base, c.days, c.rnd, got.Format(time.RFC3339Nano), c.want)
			}
			if got.Location() != time.UTC {
				t.Errorf("DueAt(%s, %d, %s) location = %s, want UTC", c.base, c.days, c.rnd, got.Location())
			}
		})
	}
}

// The slack is the most any AWS due time can exceed base+days, so the engine
// can size replay windows with it.
func TestDueAtWithinSlack(t *testing.T) {
	start := mustUTC(t, "2014-01-15T00:00:00Z")
	for _, rnd := range []Rounding{RoundAWS, RoundExact} {
		for step := time.Duration(0); step <= 48*time.Hour; step += 37 * time.Minute {
			base := start.Add(step)
			exact := base.Add(5 * 24 * time.Hour)
			got := DueAt(base, 5, rnd)
			if got.Before(exact) {
				t.Errorf("%s: DueAt(%s, 5) = %s, before base+days %s", rnd, base, got, exact)
			}
			if late := got.Sub(exact); late > rnd.Slack() {
				t.Errorf("%s: DueAt(%s, 5) = %s is %s after base+days, more than slack %s", rnd, base, got, late, rnd.Slack())
			}
		}
	}
}

func TestRoundingSlack(t *testing.T) {
	cases := []struct {
		rnd  Rounding
		want time.Duration
	}{
		{RoundAWS, 24 * time.Hour},
		{RoundExact, 0},
	}
	for _, c := range cases {
		if got := c.rnd.Slack(); got != c.want {
			t.Errorf("%s.Slack() = %s, want %s", c.rnd, got, c.want)
		}
	}
}

func TestParseRounding(t *testing.T) {
	cases := []struct {
		in      string
		want    Rounding
		wantErr bool
	}{
		{"aws", RoundAWS, false},
		{"exact", RoundExact, false},
		{"", 0, true},
		{"AWS", 0, true},
		{"midnight", 0, true},
	}
	for _, c := range cases {
		got, err := ParseRounding(c.in)
		if (err != nil) != c.wantErr {
			t.Errorf("ParseRounding(%q) error = %v, want error %v", c.in, err, c.wantErr)
			continue
		}
		if err == nil && got != c.want {
			t.Errorf("ParseRounding(%q) = %s, want %s", c.in, got, c.want)
		}
		if err == nil && got.String() != c.in {
			t.Errorf("ParseRounding(%q).String() = %q, want it to round-trip", c.in, got.String())
		}
	}
}
