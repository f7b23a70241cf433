package dailyrun

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// A walk lists only the key ranges the rules' prefixes select, one range
// after the other in key order, and stops each range at its first key
// past it; a rule without a prefix walks the whole bucket.
func TestWalkListsOnlyRulePrefixes(t *testing.T) {
	keys := []string{"a/1", "keep/1", "logs/1", "logs/x/2", "logs0", "tmp/1", "tmp0", "zz/1"}
	prefixed := []lifecycle.Rule{
		{ID: "logs", Enabled: true, Filter: lifecycle.Filter{Prefix: "logs/"}, ExpirationDays: 1},
		{ID: "logs-x", Enabled: true, Filter: lifecycle.Filter{Prefix: "logs/x/"}, ExpirationDays: 2},
		{ID: "tmp", Enabled: true, Filter: lifecycle.Filter{Prefix: "tmp/"}, ExpirationDays: 1},
	}
	tagged := lifecycle.Rule{ID: "tagged", Enabled: true, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "k", Value: "v"}}}, ExpirationDays: 1}
	for _, tc := range []struct {
		name       string
		rules      []lifecycle.Rule
		wantListed []string
		wantLeft   []string
	}{
		{
			name:  "prefixes",
			rules: prefixed,
			// Page size 1: the key after each range is listed, nothing more.
			wantListed: []string{"logs/1", "logs/x/2", "logs0", "tmp/1", "tmp0"},
			wantLeft:   []string{"b/a/1@v1", "b/keep/1@v1", "b/logs0@v1", "b/tmp0@v1", "b/zz/1@v1"},
		},
		{
			name:       "a rule without a prefix",
			rules:      append(append([]lifecycle.Rule{}, prefixed...), tagged),
			wantListed: keys,
			wantLeft:   []string{"b/a/1@v1", "b/keep/1@v1", "b/logs0@v1", "b/tmp0@v1", "b/zz/1@v1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", filer.VersioningOff)
			for _, k := range keys {
				st.put("b", k, "v1", ts("2026-01-01T00:00:00Z"), 1)
			}
			res := runPass(t, context.Background(), st, snapshotOf("b", filer.VersioningOff, tc.rules...), ts("2026-11-30T00:00:00Z"),
				func(c *Config) { c.PageSize = 1 })
			if res.Status() != StatusOK {
				t.Fatalf("status %s", res.Status())
			}
			if d := cmp.Diff(tc.wantListed, st.listed); d != "" {
				t.Errorf("keys listed (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantLeft, st.remaining()); d != "" {
				t.Errorf("keys left (-want +got):\n%s", d)
			}
		})
	}
}

func TestBeforePrefix(t *testing.T) {
	for pfx, want := range map[string]string{"": "", "logs/": "logs", "é": "", "aé": "a", "日本/": "日本"} {
		got := beforePrefix(pfx)
		if got != want || got > pfx {
			t.Errorf("beforePrefix(%q) = %q, want %q", pfx, got, want)
		}
	}
}
