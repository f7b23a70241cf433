package engine

import (
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// A newer noncurrent version another rule deletes no later than this one
// would go is not among the versions NewerNoncurrentVersions retains: the
// older version is kept, whichever delete a pass sends first. One that
// another rule deletes only later still counts.
func TestNewerNoncurrentCountsOnlyVersionsThatStay(t *testing.T) {
	day := 24 * time.Hour
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	obj := &filer.Object{Key: "k", Versions: []filer.Version{
		{VersionID: "l", IsLatest: true, MtimeNs: now.Add(-10 * day).UnixNano()},
		{VersionID: "x", MtimeNs: now.Add(-20 * day).UnixNano(), Tags: map[string]string{"tmp": "1"}},
		{VersionID: "v", MtimeNs: now.Add(-30 * day).UnixNano()},
	}}
	for _, tc := range []struct {
		name    string
		tmpDays int // NoncurrentDays of the rule that selects x alone
		deletes bool
	}{
		{"x goes first: v is among the retained", 1, false},
		{"x goes much later: it counts, v goes", 400, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := CompileWith([]Bucket{{Name: "b", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{
				{ID: "keep1", Enabled: true, NoncurrentDays: 1, NewerNoncurrentVersions: 1},
				{ID: "tmp", Enabled: true, NoncurrentDays: tc.tmpDays, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "tmp", Value: "1"}}}},
			}}}, Options{Rounding: lifecycle.RoundAWS}).Snapshot().At(now)
			var keep *CompiledAction
			for _, a := range snap.Actions() {
				if a.Key.RuleID == "keep1" {
					keep = a
				}
			}
			vd := snap.ExplainVersion(keep, obj, 2)
			if got := vd.Applies && vd.Match.IsDue(now); got != tc.deletes {
				t.Errorf("keep1 on v: deletes %v (reason %s, rank %d), want %v", got, vd.Reason, vd.NewerNoncurrent, tc.deletes)
			}
		})
	}
}
