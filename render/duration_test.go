package render

import (
	"testing"
	"time"
)

// One duration format in every table: the two largest units, days
// counted as 24h, no zero second unit.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{999 * time.Millisecond, "0s"},
		{45 * time.Second, "45s"},
		{90 * time.Second, "1m30s"},
		{time.Hour, "1h"},
		{time.Hour + 30*time.Minute + 15*time.Second, "1h30m"},
		{42 * time.Hour, "1d18h"},
		{687 * time.Hour, "28d15h"},
		{2184 * time.Hour, "91d"},
		{730*time.Hour + 43*time.Minute + 47*time.Second, "30d10h"},
		{24*time.Hour + 5*time.Minute, "1d"},
		{-90 * time.Second, "-1m30s"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
