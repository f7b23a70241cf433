package recovery

import (
	"testing"
	"time"
)

func TestBaseBackoff(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want time.Duration
	}{
		{0, time.Minute}, {1, time.Minute}, {2, 2 * time.Minute}, {3, 4 * time.Minute}, {4, 8 * time.Minute},
		{5, 16 * time.Minute}, {6, 32 * time.Minute}, {7, time.Hour}, {8, time.Hour}, {31, time.Hour}, {1000, time.Hour},
	} {
		if got := BaseBackoff(tc.n); got != tc.want {
			t.Errorf("BaseBackoff(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestBackoffMultiplier: the jitter is 80-100 %, deterministic in the
// generation digest and attempt count, never above the 1 h cap, and
// actually spreads different records.
func TestBackoffMultiplier(t *testing.T) {
	distinct := map[uint64]bool{}
	for a := uint64(0); a < 500; a++ {
		for _, g := range []string{"gen-a", "gen-b"} {
			m := MultiplierPermille(g, a)
			if m < 800 || m > 1000 {
				t.Fatalf("MultiplierPermille(%s, %d) = %d, want 800..1000", g, a, m)
			}
			if m != MultiplierPermille(g, a) {
				t.Fatal("multiplier is not deterministic")
			}
			distinct[m] = true
			for n := uint64(1); n < 40; n++ {
				d := Backoff(g, a, n)
				if d > MaxDelay || d < BaseBackoff(n)*8/10 {
					t.Fatalf("Backoff(%s,%d,%d) = %v outside [80%% of %v, 1h]", g, a, n, d, BaseBackoff(n))
				}
			}
		}
	}
	if len(distinct) < 100 {
		t.Fatalf("only %d distinct multipliers over 1000 inputs", len(distinct))
	}
}

func testControl() *Control {
	return &Control{ID: "c", Protocol: ProtoJournal, Classification: Retrying, LastErrorCode: ErrCodeNone,
		Observed: NewGeneration("v5", "Prepared", "00", nil), Revision: 1}
}

// TestRetryScheduleAcrossRestarts: the deadline after each failure is
// reproduced exactly by a control decoded from its stored bytes (a
// restarted process), and is capped at one hour.
func TestRetryScheduleAcrossRestarts(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := testControl()
	now := t0
	for i := 1; i <= 20; i++ {
		a.StartAttempt()
		a.RecordFailure(now, ErrCodeSourceProof)
		// A restarted process: same inputs, a copy of the persisted state.
		b := *a
		b.ConsecutiveFailureCount--
		b.AttemptCount--
		b.StartAttempt()
		b.RecordFailure(now, ErrCodeSourceProof)
		if b.NextAttemptAtUnixNanos != a.NextAttemptAtUnixNanos {
			t.Fatalf("failure %d: deadline differs after restart", i)
		}
		delay := time.Duration(a.NextAttemptAtUnixNanos - now.UnixNano())
		if delay > time.Hour || delay < BaseBackoff(uint64(i))*8/10 {
			t.Fatalf("failure %d: delay %v", i, delay)
		}
		if a.Due(now.Add(delay-time.Nanosecond)) || !a.Due(now.Add(delay)) {
			t.Fatalf("failure %d: Due is not the not-before hint", i)
		}
		now = now.Add(delay)
	}
	if a.AttemptCount != 20 || a.ConsecutiveFailureCount != 20 || a.FirstFailureAtUnixNanos != t0.UnixNano() {
		t.Fatalf("counters %+v", a)
	}
	a.RecordSuccess()
	if a.ConsecutiveFailureCount != 0 || a.AttemptCount != 20 {
		t.Fatalf("success must reset the consecutive count and keep the lifetime count: %+v", a)
	}
}

// TestOperatorRequiredTransition: 32 consecutive failures or 7 days since
// the first failure, whichever comes first, stops automatic attempts.
func TestOperatorRequiredTransition(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("32 failures", func(t *testing.T) {
		c := testControl()
		now := t0
		for i := 1; i <= 32; i++ {
			c.StartAttempt()
			c.RecordFailure(now, ErrCodeMetadataUnavailable)
			if i < 32 && c.Classification != Retrying {
				t.Fatalf("failure %d: %s, want retrying", i, c.Classification)
			}
			now = now.Add(time.Minute)
		}
		if c.Classification != OperatorRequired || c.LastErrorCode != ErrCodeRetriesExhausted || c.Due(now.Add(365*24*time.Hour)) {
			t.Fatalf("after 32 failures: %s %s due=%v", c.Classification, c.LastErrorCode, c.Due(now))
		}
	})
	t.Run("7 days", func(t *testing.T) {
		c := testControl()
		c.StartAttempt()
		c.RecordFailure(t0, ErrCodeSourceProof)
		c.StartAttempt()
		c.RecordFailure(t0.Add(7*24*time.Hour-time.Second), ErrCodeSourceProof)
		if c.Classification != Retrying {
			t.Fatalf("just under 7 days: %s", c.Classification)
		}
		c.StartAttempt()
		c.RecordFailure(t0.Add(7*24*time.Hour), ErrCodeSourceProof)
		if c.Classification != OperatorRequired || c.ConsecutiveFailureCount != 3 {
			t.Fatalf("at 7 days: %s after %d failures", c.Classification, c.ConsecutiveFailureCount)
		}
	})
}

func TestClassificationEdges(t *testing.T) {
	for _, from := range Classifications {
		for _, to := range Classifications {
			got := from.CanTransitionTo(to)
			want := !from.Final() && (to != Abandoned || from == RetainedAmbiguous || from == OperatorRequired)
			if got != want {
				t.Errorf("%s -> %s = %v, want %v", from, to, got, want)
			}
		}
	}
}
