package embedded

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// vA was demoted by v1 (tagged cold, 11-10) and v1 by v0 (11-20). On 11-23
// nc-cold removes v1, so vA's successor is v0 from then on. S3 counts a
// version's noncurrent days from when its successor was created (S3 User
// Guide, "How Amazon S3 calculates how long an object has been
// noncurrent"): under nc-all (NoncurrentDays 15) vA is due on 12-06
// (11-20 + 15 days, at the next midnight), not on 11-26 as its demotion
// stamp of 11-10 would make it. Passes on 11-27 and 12-05 keep it; the
// pass on 12-06 removes it, so the later due time is found again after
// replay and the pending summary carried it.
func TestNoncurrentDaysCountFromTheSuccessorAfterItsRemoval(t *testing.T) {
	snap := engine.Compile([]engine.Bucket{{Name: "ver", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{
		{ID: "nc-cold", Enabled: true, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "tier", Value: "cold"}}}, NoncurrentDays: 1},
		{ID: "nc-all", Enabled: true, NoncurrentDays: 15},
	}}}, lifecycle.RoundAWS).Snapshot()
	f := openTest(t, Options{})
	loadTest(t, f, `{"buckets":[{"name":"ver","versioning":"Enabled","objects":[
 {"key":"k","versions":[
   {"version_id":"vA","mtime":"2026-11-01T00:00:00Z","size":1,"etag":"e1"},
   {"version_id":"v1","mtime":"2026-11-10T00:00:00Z","size":2,"etag":"e2","tags":{"tier":"cold"}},
   {"version_id":"v0","mtime":"2026-11-20T00:00:00Z","size":3,"etag":"e3"}]}]}]}`)
	for _, p := range []struct {
		day  time.Time
		want []string // versions left, newest first
	}{
		{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), []string{"v0", "vA"}},
		{time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), []string{"v0", "vA"}},
		{time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC), []string{"v0", "vA"}},
		{time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC), []string{"v0"}},
	} {
		now := p.day
		res, err := dailyrun.Run(context.Background(), dailyrun.Config{Store: f, Snapshot: snap, RunNow: now,
			Clock: func() time.Time { return now }, InFlight: 1})
		if err != nil || res.Status() != dailyrun.StatusOK {
			t.Fatalf("pass on %s: %v, %v", now.Format(time.DateOnly), res.Status(), err)
		}
		if got := versionIDs(lookup(t, f, "ver", "k")); !slices.Equal(got, p.want) {
			t.Errorf("after the pass on %s: %v, want %v", now.Format(time.DateOnly), got, p.want)
		}
	}
}
