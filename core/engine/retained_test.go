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
			vd := snap.ExplainVersion(actionOfRule(t, snap, "keep1"), obj, 2)
			if got := vd.Applies && vd.Match.IsDue(now); got != tc.deletes {
				t.Errorf("keep1 on v: deletes %v (reason %s, rank %d), want %v", got, vd.Reason, vd.NewerNoncurrent, tc.deletes)
			}
		})
	}
}

// A noncurrent version's days count from the successor it has (S3 User
// Guide, "How Amazon S3 calculates how long an object has been
// noncurrent"); a successor another rule deletes no later than the version
// would go leaves the next newer version as its successor. So v, demoted
// 20 days ago by x, which another rule deletes now, counts from the latest
// version (2 days old) under NoncurrentDays 10, and is kept, with x or
// without it: the pass decides the same whichever delete goes first. A
// successor another rule deletes only later still counts, and v goes.
func TestNoncurrentDaysCountFromTheSuccessorThatStays(t *testing.T) {
	day := 24 * time.Hour
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	latest := filer.Version{VersionID: "l", IsLatest: true, MtimeNs: now.Add(-2 * day).UnixNano()}
	x := filer.Version{VersionID: "x", MtimeNs: now.Add(-20 * day).UnixNano(), NoncurrentSinceNs: latest.MtimeNs, Tags: map[string]string{"tmp": "1"}}
	v := filer.Version{VersionID: "v", MtimeNs: now.Add(-30 * day).UnixNano(), NoncurrentSinceNs: x.MtimeNs}
	withX := &filer.Object{Key: "k", Versions: []filer.Version{latest, x, v}}
	withoutX := &filer.Object{Key: "k", Versions: []filer.Version{latest, v}}
	for _, tc := range []struct {
		name    string
		tmpDays int // NoncurrentDays of the rule that selects x alone
		obj     *filer.Object
		idx     int
		deletes bool
		base    time.Time
	}{
		{"x goes now: v counts from the latest", 1, withX, 2, false, now.Add(-2 * day)},
		{"x gone: v counts from the latest", 1, withoutX, 1, false, now.Add(-2 * day)},
		{"x goes much later: v counts from x and goes", 400, withX, 2, true, now.Add(-20 * day)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := CompileWith([]Bucket{{Name: "b", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{
				{ID: "nc10", Enabled: true, NoncurrentDays: 10},
				{ID: "tmp", Enabled: true, NoncurrentDays: tc.tmpDays, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "tmp", Value: "1"}}}},
			}}}, Options{Rounding: lifecycle.RoundExact}).Snapshot().At(now)
			vd := snap.ExplainVersion(actionOfRule(t, snap, "nc10"), tc.obj, tc.idx)
			if got := vd.Applies && vd.Match.IsDue(now); got != tc.deletes || !vd.Due.Base.Equal(tc.base) {
				t.Errorf("nc10 on v: deletes %v counting from %s (%s), want %v counting from %s",
					got, vd.Due.Base, vd.Due.From, tc.deletes, tc.base)
			}
		})
	}
}

// actionOfRule is the compiled action of the rule with id (one action).
func actionOfRule(t *testing.T, snap *Snapshot, id string) *CompiledAction {
	t.Helper()
	for _, a := range snap.Actions() {
		if a.Key.RuleID == id {
			return a
		}
	}
	t.Fatalf("no action of rule %q", id)
	return nil
}

// A version NewerNoncurrentVersions would delete is not among the versions
// retained by its own rule: only another rule's delete takes a newer
// version out of the count. Views hold clones of the snapshot's actions,
// so the rule is known by its key, not its pointer: counted by pointer,
// the rule's own raw match on j3 (two newer noncurrent versions, ignoring
// that tmp deletes j1) took j3 out of v's count, and v, which S3 deletes
// once tmp has deleted j1 (j2 and j3 are then the two newest), was kept.
func TestNewerNoncurrentRuleDoesNotDiscountItsOwnDeletes(t *testing.T) {
	day := 24 * time.Hour
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(d int) int64 { return now.Add(-time.Duration(d) * day).UnixNano() }
	obj := &filer.Object{Key: "k", Versions: []filer.Version{
		{VersionID: "l", IsLatest: true, MtimeNs: at(10)},
		{VersionID: "j1", MtimeNs: at(20), NoncurrentSinceNs: at(10), Tags: map[string]string{"tmp": "1"}},
		{VersionID: "j2", MtimeNs: at(30), NoncurrentSinceNs: at(20)},
		{VersionID: "j3", MtimeNs: at(40), NoncurrentSinceNs: at(30)},
		{VersionID: "v", MtimeNs: at(50), NoncurrentSinceNs: at(40)},
	}}
	base := CompileWith([]Bucket{{Name: "b", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{
		{ID: "keep2", Enabled: true, NoncurrentDays: 1, NewerNoncurrentVersions: 2},
		{ID: "tmp", Enabled: true, NoncurrentDays: 1, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "tmp", Value: "1"}}}},
	}}}, Options{Rounding: lifecycle.RoundAWS}).Snapshot().At(now)
	replay, walk := base.RulesForShard(0, MaxEffectiveTTL(base))
	for name, view := range map[string]*Snapshot{"base": base, "recovery": RecoveryView(base), "walk": walk, "replay": replay} {
		var keep *CompiledAction
		for _, a := range view.BucketActions("b") {
			if a.Key.RuleID == "keep2" {
				keep = a
			}
		}
		if keep == nil {
			continue // the replay view does not hold it
		}
		for idx, want := range map[int]bool{3: false, 4: true} {
			vd := view.ExplainVersion(keep, obj, idx)
			if got := vd.Applies && vd.Match.IsDue(now); got != want {
				t.Errorf("%s view: keep2 on %s deletes %v (reason %s, rank %d), want %v", name, obj.Versions[idx].VersionID, got, vd.Reason, vd.NewerNoncurrent, want)
			}
		}
	}
}
