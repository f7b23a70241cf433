package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/recovery"
)

// RETRY IN is the time until a control's next attempt: "-" with none
// scheduled (or a time that does not parse), "due" once it is not in
// the future, else the duration in the tables' one format.
func TestRetryIn(t *testing.T) {
	at := time.Date(2025, 6, 15, 15, 0, 0, 0, time.UTC)
	for _, c := range []struct{ next, want string }{
		{"", "-"},
		{"not a time", "-"},
		{"2025-06-15T14:59:59Z", "due"},
		{"2025-06-15T15:00:00Z", "due"},
		{"2025-06-15T15:01:30Z", Duration(90 * time.Second)},
		{"2025-06-16T15:00:00Z", Duration(24 * time.Hour)},
	} {
		if got := retryIn(c.next, at); got != c.want {
			t.Errorf("retryIn(%q) = %q, want %q", c.next, got, c.want)
		}
	}
}

// A control's row counts its age from its durable first-seen time and
// prints its next attempt only when one is scheduled.
func TestNewControlRow(t *testing.T) {
	first := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	c := &recovery.Control{ID: "160f3effd967", FirstSeenAtUnixNanos: first.UnixNano(), AttemptCount: 3}
	r := NewControlRow(c, "etag", first.Add(90*time.Minute+30*time.Second))
	if r.AgeSeconds != 5430 || r.FirstSeenAt != "2025-06-15T12:00:00Z" || r.NextAttemptAt != "" || r.ETag != "etag" || r.AttemptCount != 3 {
		t.Errorf("row = %+v", r)
	}
	c.NextAttemptAtUnixNanos = first.Add(time.Hour).UnixNano()
	if r := NewControlRow(c, "", first); r.NextAttemptAt != "2025-06-15T13:00:00Z" {
		t.Errorf("next_attempt_at = %q", r.NextAttemptAt)
	}
}

// A prune with nothing to retire says so, dry run or not, short of 80
// columns; the table names each control by its short ID and wraps the
// reason.
func TestRecoveryPrune(t *testing.T) {
	for _, c := range []struct {
		name string
		res  recovery.PruneResult
		want []string
	}{
		{"nothing, dry run", recovery.PruneResult{DryRun: true},
			[]string{"Prune (dry run: nothing written; add --confirm): no terminal or abandoned\n  control to retire\n"}},
		{"nothing", recovery.PruneResult{}, []string{"Prune: no terminal or abandoned control to retire\n"}},
		{"one kept", recovery.PruneResult{Items: []recovery.PruneItem{{
			ControlID: strings.Repeat("ab", 32), Classification: "terminal", Action: recovery.PruneKeep,
			Reason: "finished less than --older-than ago: " + strings.Repeat("kept until the floor ends ", 4),
		}}}, []string{"ACTION", "keep", "abababababab ", "terminal", "finished less"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RecoveryPrune(&b, FormatTable, &c.res, nil, 80); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("%q missing:\n%s", w, b.String())
				}
			}
			for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				if n := len([]rune(line)); n >= 80 {
					t.Errorf("line %d is %d runes: %s", i+1, n, line)
				}
			}
		})
	}
}
