package render

import (
	"testing"

	"github.com/ilmctl/ilmctl/core/journal"
)

// The AGE column: a record's age before the clock, "-" when its time is
// unknown, "future" when it was written after the clock (a --now earlier
// than its files), never a negative duration.
func TestRecordAge(t *testing.T) {
	secs := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		age  *int64
		want string
	}{
		{nil, "-"},
		{secs(0), Duration(0)},
		{secs(90061), Duration(90061 * 1e9)},
		{secs(-46237980), "future"},
	} {
		if got := recordAge(journal.Record{AgeSeconds: tc.age}); got != tc.want {
			t.Errorf("age %v: %q, want %q", tc.age, got, tc.want)
		}
	}
}
