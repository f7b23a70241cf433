package render

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// wrap keeps lines within the width, breaks only at spaces, never splits a
// byte count from its unit, and gives an overlong word its own line.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"one two three", 7, []string{"one two", "three"}},
		{"frees 5.1 GiB, then", 9, []string{"frees", "5.1 GiB,", "then"}},
		{"a verylongwordhere b", 5, []string{"a", "verylongwordhere", "b"}},
		{"  spaced   out  ", 20, []string{"spaced out"}},
	} {
		if got := wrap(tc.s, tc.width); !cmp.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}
	long := strings.Repeat("word ", 60)
	for _, line := range wrap(long, 76) {
		if len(line) > 76 {
			t.Errorf("line of %d > 76", len(line))
		}
	}
}

// An explanation fits 80 columns and 120 alike, with a key and a rule ID
// longer than either: sentences wrap, the key and rule ID keep their
// start and end, and the wider terminal wraps less.
func TestExplainTablesFitWidth(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	due := time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC)
	cursor := time.Date(2026, 11, 29, 3, 14, 15, 0, time.UTC)
	rule := "expire-noncurrent-versions-of-customer-exports-after-thirty-days-" + strings.Repeat("x", 40)
	rep := ExplainReport{
		Bucket: "analytics", Key: "exports/" + strings.Repeat("customers/eu/", 12) + "part-00001.parquet", Now: now,
		Versioning: "Enabled", ObjectLock: true, DueRounding: "aws", ExpiredMarkerDays: "aws",
		Versions: []TargetReport{{
			VersionID: "7ffe8b3c1a02d9f0c4e8b7a6d5c4b3a2f1e", Size: 1 << 30, Created: now.AddDate(0, -10, 0), NoncurrentSince: &due, LegalHold: true,
			Dispatch: &DispatchReport{RuleID: rule, Kind: "NoncurrentDays", Due: &due, DueNow: true, NextPass: true, Via: "the recovery walk (cold_start) of shard 07",
				Size: 1 << 30, BytesFreed: 1 << 30},
			Verdicts: []VerdictReport{{RuleID: rule, RuleIndex: 1, Action: "NoncurrentDays", Outcome: "due", Due: &due, Chosen: true,
				Detail: "due since 2026-03-17T00:00:00Z: noncurrent_since 2026-03-15T09:00:00Z + 1 day, rounded up to the next midnight UTC"}},
		}},
		Pass: StandingReport{Shard: 7, MetaLog: true, Plan: ShardPlanReport{Shard: 7, CursorFound: true, Cursor: &cursor, LastWalked: &cursor,
			NextWalk: "recovery", Recovery: "rule_change", Replays: true, ReplayFromNs: cursor.UnixNano()}},
	}
	lines := map[int]int{}
	for _, width := range []int{80, 120} {
		var b strings.Builder
		if err := ExplainTables(&b, rep, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		fitsWidth(t, out, width)
		for _, want := range []string{"analytics/exports/", "part-00001.parquet", "*expire-noncurrent", "xxx ", "2026-03-17\n",
			"replay: from 2026-11-29T03:14:15Z", "recovery (rule_change)"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: %q missing:\n%s", width, want, out)
			}
		}
		lines[width] = strings.Count(out, "\n")
	}
	if lines[120] >= lines[80] {
		t.Errorf("120 columns take %d lines, 80 take %d", lines[120], lines[80])
	}
}
