package lifecycle

import (
	"reflect"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Fixture clock: versions are written on consecutive days at 10:30 UTC.
var (
	evalDay1 = time.Date(2024, 3, 1, 10, 30, 0, 0, time.UTC)
	evalDay2 = evalDay1.Add(24 * time.Hour)
	evalDay3 = evalDay1.Add(48 * time.Hour)
	evalDay4 = evalDay1.Add(72 * time.Hour)
	evalDay5 = evalDay1.Add(96 * time.Hour)
)

func evalVer(id string, mtime time.Time) filer.Version {
	return filer.Version{VersionID: id, MtimeNs: mtime.UnixNano(), Size: 100}
}

func evalMarker(id string, mtime time.Time) filer.Version {
	return filer.Version{VersionID: id, DeleteMarker: true, MtimeNs: mtime.UnixNano()}
}

// evalObj builds an object from versions given newest first, marking the
// first as latest.
func evalObj(key string, vs ...filer.Version) *filer.Object {
	if len(vs) > 0 {
		vs[0].IsLatest = true
	}
	return &filer.Object{Key: key, Versions: vs}
}

func evalSize(v int64) *int64 { return &v }

func TestFilterMatchesVersion(t *testing.T) {
	plain := filer.Version{VersionID: "v", Size: 100, Tags: map[string]string{"env": "prod", "team": "a"}}
	untagged := filer.Version{VersionID: "v", Size: 100}
	marker := filer.Version{VersionID: "dm", DeleteMarker: true}
	cases := []struct {
		name string
		f    Filter
		key  string
		v    filer.Version
		want bool
	}{
		{"empty filter", Filter{}, "a/b", plain, true},
		{"empty filter delete marker", Filter{}, "a/b", marker, true},
		{"prefix match", Filter{Prefix: "a/"}, "a/b", plain, true},
		{"prefix equals key", Filter{Prefix: "a/b"}, "a/b", plain, true},
		{"prefix mismatch", Filter{Prefix: "b/"}, "a/b", plain, false},
		{"prefix is case sensitive", Filter{Prefix: "A/"}, "a/b", plain, false},
		{"prefix longer than key", Filter{Prefix: "a/bc"}, "a/b", plain, false},

		{"one tag exact", Filter{Tags: []Tag{{"env", "prod"}}}, "k", plain, true},
		{"all tags exact", Filter{Tags: []Tag{{"env", "prod"}, {"team", "a"}}}, "k", plain, true},
		{"one of two tags missing", Filter{Tags: []Tag{{"env", "prod"}, {"owner", "x"}}}, "k", plain, false},
		{"tag value differs", Filter{Tags: []Tag{{"env", "dev"}}}, "k", plain, false},
		{"tag value case differs", Filter{Tags: []Tag{{"env", "Prod"}}}, "k", plain, false},
		{"tag value prefix only", Filter{Tags: []Tag{{"env", "pro"}}}, "k", plain, false},
		{"tag key differs", Filter{Tags: []Tag{{"Env", "prod"}}}, "k", plain, false},
		{"empty tag value needs empty value", Filter{Tags: []Tag{{"env", ""}}}, "k", plain, false},
		{"empty tag value present", Filter{Tags: []Tag{{"env", ""}}}, "k", filer.Version{Tags: map[string]string{"env": ""}}, true},
		{"tag on untagged version", Filter{Tags: []Tag{{"env", "prod"}}}, "k", untagged, false},
		{"tag on delete marker", Filter{Tags: []Tag{{"env", "prod"}}}, "k", marker, false},
		{"tag and prefix mismatch", Filter{Prefix: "x/", Tags: []Tag{{"env", "prod"}}}, "k", plain, false},

		{"greater than below", Filter{SizeGreaterThan: evalSize(99)}, "k", plain, true},
		{"greater than equal is strict", Filter{SizeGreaterThan: evalSize(100)}, "k", plain, false},
		{"greater than above", Filter{SizeGreaterThan: evalSize(101)}, "k", plain, false},
		{"less than above", Filter{SizeLessThan: evalSize(101)}, "k", plain, true},
		{"less than equal is strict", Filter{SizeLessThan: evalSize(100)}, "k", plain, false},
		{"less than below", Filter{SizeLessThan: evalSize(99)}, "k", plain, false},
		{"size range inside", Filter{SizeGreaterThan: evalSize(50), SizeLessThan: evalSize(150)}, "k", plain, true},
		{"size range outside", Filter{SizeGreaterThan: evalSize(100), SizeLessThan: evalSize(150)}, "k", plain, false},
		{"size zero object greater than zero", Filter{SizeGreaterThan: evalSize(0)}, "k", filer.Version{Size: 0}, false},
		{"size less than on delete marker", Filter{SizeLessThan: evalSize(1 << 40)}, "k", marker, false},
		{"size greater than on delete marker", Filter{SizeGreaterThan: evalSize(0)}, "k", marker, false},
		{"everything", Filter{Prefix: "a/", Tags: []Tag{{"team", "a"}}, SizeGreaterThan: evalSize(10), SizeLessThan: evalSize(1000)}, "a/b", plain, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := c.v
			if got := c.f.MatchesVersion(c.key, &v); got != c.want {
				t.Errorf("%+v.MatchesVersion(%q, %+v) = %v, want %v", c.f, c.key, c.v, got, c.want)
			}
		})
	}
}

func TestFilterMatchesUpload(t *testing.T) {
	up := filer.Upload{Key: "a/b", UploadID: "u1", Initiated: evalDay1}
	cases := []struct {
		name string
		f    Filter
		want bool
	}{
		{"empty filter", Filter{}, true},
		{"prefix match", Filter{Prefix: "a/"}, true},
		{"prefix mismatch", Filter{Prefix: "b/"}, false},
		// Uploads have no tags or size yet: fail closed.
		{"tags never match", Filter{Prefix: "a/", Tags: []Tag{{"env", "prod"}}}, false},
		{"size greater than never matches", Filter{SizeGreaterThan: evalSize(0)}, false},
		{"size less than never matches", Filter{SizeLessThan: evalSize(1 << 40)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := up
			if got := c.f.MatchesUpload(&u); got != c.want {
				t.Errorf("%+v.MatchesUpload(%+v) = %v, want %v", c.f, up, got, c.want)
			}
		})
	}
}

func TestEvaluateVersion(t *testing.T) {
	// Rules are enabled with an empty filter unless a case says otherwise.
	expire3 := Rule{ID: "exp", Enabled: true, ExpirationDays: 3}
	expireDate := Rule{ID: "date", Enabled: true, ExpirationDate: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)}
	noncurrent2 := Rule{ID: "nc", Enabled: true, NoncurrentDays: 2}
	keep2 := Rule{ID: "keep", Enabled: true, NewerNoncurrentVersions: 2}
	keep1Days2 := Rule{ID: "keepdays", Enabled: true, NewerNoncurrentVersions: 1, NoncurrentDays: 2}
	dm := Rule{ID: "dm", Enabled: true, ExpiredObjectDeleteMarker: true}
	abort := Rule{ID: "mpu", Enabled: true, AbortMPUDays: 1}

	withFilter := func(r Rule, f Filter) Rule { r.Filter = f; return r }
	disabled := func(r Rule) Rule { r.Enabled = false; return r }

	single := evalObj("a/k", evalVer("v1", evalDay1))
	// v3 current (day 3), v2 demoted by v3, v1 demoted by v2; no
	// NoncurrentSinceNs recorded (legacy entries).
	legacy3 := evalObj("a/k", evalVer("v3", evalDay3), evalVer("v2", evalDay2), evalVer("v1", evalDay1))
	// Same history with NoncurrentSinceNs recorded an hour after each
	// successor's mtime, so the two clocks are distinguishable.
	tracked := func() *filer.Object {
		o := evalObj("a/k", evalVer("v3", evalDay3), evalVer("v2", evalDay2), evalVer("v1", evalDay1))
		o.Versions[1].NoncurrentSinceNs = evalDay3.Add(time.Hour).UnixNano()
		o.Versions[2].NoncurrentSinceNs = evalDay2.Add(time.Hour).UnixNano()
		return o
	}()
	// v1 demoted on day 2 by a version since removed: its successor is
	// now v3 (day 3), and S3 counts from the successor it has.
	successorRemoved := func() *filer.Object {
		o := evalObj("a/k", evalVer("v3", evalDay3), evalVer("v1", evalDay1))
		o.Versions[1].NoncurrentSinceNs = evalDay2.Add(time.Hour).UnixNano()
		return o
	}()
	// A noncurrent version whose successor has no mtime and no
	// NoncurrentSinceNs falls back to its own mtime.
	noSuccessorMtime := evalObj("a/k", filer.Version{VersionID: "v2"}, evalVer("v1", evalDay1))
	// Latest is a delete marker over one real version.
	markerOverVersion := evalObj("a/k", evalMarker("dm", evalDay2), evalVer("v1", evalDay1))
	loneMarker := evalObj("a/k", evalMarker("dm", evalDay2))
	// Five versions newest first: current v5, noncurrent v4 v3 v2 v1.
	five := evalObj("a/k", evalVer("v5", evalDay5), evalVer("v4", evalDay4), evalVer("v3", evalDay3), evalVer("v2", evalDay2), evalVer("v1", evalDay1))
	// five without v3, which had demoted v2 on day 3: v2's successor is
	// now v4.
	v3Removed := func() *filer.Object {
		o := evalObj("a/k", evalVer("v5", evalDay5), evalVer("v4", evalDay4), evalVer("v2", evalDay2), evalVer("v1", evalDay1))
		o.Versions[2].NoncurrentSinceNs = evalDay3.Add(time.Hour).UnixNano()
		return o
	}()
	// Noncurrent delete marker (dm demoted by v2).
	noncurrentMarker := evalObj("a/k", evalVer("v2", evalDay3), evalMarker("dm", evalDay2), evalVer("v1", evalDay1))

	midnight := func(t time.Time) time.Time { return t.Truncate(24 * time.Hour) }

	cases := []struct {
		name    string
		rule    Rule
		kind    ActionKind
		obj     *filer.Object
		idx     int
		rnd     Rounding
		wantOK  bool
		wantDue time.Time // zero means "due now"
	}{
		// ExpirationDays: latest non-marker only, from creation time.
		{"days current aws", expire3, ExpirationDays, single, 0, RoundAWS, true, midnight(evalDay1).Add(4 * 24 * time.Hour)},
		{"days current exact", expire3, ExpirationDays, single, 0, RoundExact, true, evalDay1.Add(3 * 24 * time.Hour)},
		{"days current of many", expire3, ExpirationDays, legacy3, 0, RoundExact, true, evalDay3.Add(3 * 24 * time.Hour)},
		{"days noncurrent", expire3, ExpirationDays, legacy3, 1, RoundAWS, false, time.Time{}},
		{"days current marker with versions", expire3, ExpirationDays, markerOverVersion, 0, RoundAWS, false, time.Time{}},
		{"days disabled", disabled(expire3), ExpirationDays, single, 0, RoundAWS, false, time.Time{}},
		{"days prefix mismatch", withFilter(expire3, Filter{Prefix: "b/"}), ExpirationDays, single, 0, RoundAWS, false, time.Time{}},
		{"days prefix match", withFilter(expire3, Filter{Prefix: "a/"}), ExpirationDays, single, 0, RoundExact, true, evalDay1.Add(3 * 24 * time.Hour)},
		{"days size filter", withFilter(expire3, Filter{SizeGreaterThan: evalSize(100)}), ExpirationDays, single, 0, RoundAWS, false, time.Time{}},
		{"days idx negative", expire3, ExpirationDays, single, -1, RoundAWS, false, time.Time{}},
		{"days idx past end", expire3, ExpirationDays, single, 1, RoundAWS, false, time.Time{}},
		{"days no versions", expire3, ExpirationDays, evalObj("a/k"), 0, RoundAWS, false, time.Time{}},

		// ExpirationDate: latest non-marker only, due at the date whatever
		// the rounding.
		{"date current", expireDate, ExpirationDate, single, 0, RoundAWS, true, expireDate.ExpirationDate},
		{"date current exact", expireDate, ExpirationDate, single, 0, RoundExact, true, expireDate.ExpirationDate},
		{"date noncurrent", expireDate, ExpirationDate, legacy3, 2, RoundAWS, false, time.Time{}},
		{"date current marker", expireDate, ExpirationDate, markerOverVersion, 0, RoundAWS, false, time.Time{}},
		{"date disabled", disabled(expireDate), ExpirationDate, single, 0, RoundAWS, false, time.Time{}},

		// NoncurrentDays: from NoncurrentSinceNs, else successor mtime,
		// else own mtime.
		{"noncurrent latest", noncurrent2, NoncurrentDays, legacy3, 0, RoundAWS, false, time.Time{}},
		{"noncurrent tracked exact", noncurrent2, NoncurrentDays, tracked, 1, RoundExact, true, evalDay3.Add(time.Hour + 2*24*time.Hour)},
		{"noncurrent tracked older exact", noncurrent2, NoncurrentDays, tracked, 2, RoundExact, true, evalDay2.Add(time.Hour + 2*24*time.Hour)},
		{"noncurrent tracked aws", noncurrent2, NoncurrentDays, tracked, 1, RoundAWS, true, midnight(evalDay3).Add(3 * 24 * time.Hour)},
		{"noncurrent legacy uses successor mtime", noncurrent2, NoncurrentDays, legacy3, 1, RoundExact, true, evalDay3.Add(2 * 24 * time.Hour)},
		{"noncurrent legacy oldest uses its successor", noncurrent2, NoncurrentDays, legacy3, 2, RoundExact, true, evalDay2.Add(2 * 24 * time.Hour)},
		{"noncurrent legacy aws", noncurrent2, NoncurrentDays, legacy3, 2, RoundAWS, true, midnight(evalDay2).Add(3 * 24 * time.Hour)},
		{"noncurrent own mtime fallback", noncurrent2, NoncurrentDays, noSuccessorMtime, 1, RoundExact, true, evalDay1.Add(2 * 24 * time.Hour)},
		{"noncurrent successor removed counts from the successor now", noncurrent2, NoncurrentDays, successorRemoved, 1, RoundExact, true, evalDay3.Add(2 * 24 * time.Hour)},
		{"newer noncurrent successor removed counts from the successor now", keep1Days2, NewerNoncurrent, v3Removed, 2, RoundExact, true, evalDay4.Add(2 * 24 * time.Hour)},
		{"noncurrent delete marker", noncurrent2, NoncurrentDays, noncurrentMarker, 1, RoundExact, true, evalDay3.Add(2 * 24 * time.Hour)},
		{"noncurrent disabled", disabled(noncurrent2), NoncurrentDays, legacy3, 1, RoundAWS, false, time.Time{}},
		{"noncurrent tag mismatch", withFilter(noncurrent2, Filter{Tags: []Tag{{"k", "v"}}}), NoncurrentDays, legacy3, 1, RoundAWS, false, time.Time{}},

		// NewerNoncurrent: keeps the N newest noncurrent versions.
		{"keep2 current", keep2, NewerNoncurrent, five, 0, RoundAWS, false, time.Time{}},
		{"keep2 newest noncurrent kept", keep2, NewerNoncurrent, five, 1, RoundAWS, false, time.Time{}},
		{"keep2 second noncurrent kept", keep2, NewerNoncurrent, five, 2, RoundAWS, false, time.Time{}},
		{"keep2 third noncurrent due now", keep2, NewerNoncurrent, five, 3, RoundAWS, true, time.Time{}},
		{"keep2 fourth noncurrent due now", keep2, NewerNoncurrent, five, 4, RoundAWS, true, time.Time{}},
		{"keep2 only two noncurrent", keep2, NewerNoncurrent, legacy3, 2, RoundAWS, false, time.Time{}},
		{"keep2 disabled", disabled(keep2), NewerNoncurrent, five, 4, RoundAWS, false, time.Time{}},
		// With NoncurrentDays both must be exceeded: over the cap and old
		// enough (due NoncurrentDays after it became noncurrent).
		{"keep1 days2 within cap", keep1Days2, NewerNoncurrent, five, 1, RoundExact, false, time.Time{}},
		{"keep1 days2 over cap exact", keep1Days2, NewerNoncurrent, five, 2, RoundExact, true, evalDay4.Add(2 * 24 * time.Hour)},
		{"keep1 days2 over cap aws", keep1Days2, NewerNoncurrent, five, 3, RoundAWS, true, midnight(evalDay3).Add(3 * 24 * time.Hour)},
		{"keep1 days2 tracked", keep1Days2, NewerNoncurrent, tracked, 2, RoundExact, true, evalDay2.Add(time.Hour + 2*24*time.Hour)},

		// ExpiredDeleteMarker: a marker that is latest and the only version.
		{"marker lone", dm, ExpiredDeleteMarker, loneMarker, 0, RoundAWS, true, time.Time{}},
		{"marker over versions", dm, ExpiredDeleteMarker, markerOverVersion, 0, RoundAWS, false, time.Time{}},
		{"marker noncurrent", dm, ExpiredDeleteMarker, noncurrentMarker, 1, RoundAWS, false, time.Time{}},
		{"marker on a real version", dm, ExpiredDeleteMarker, single, 0, RoundAWS, false, time.Time{}},
		{"marker disabled", disabled(dm), ExpiredDeleteMarker, loneMarker, 0, RoundAWS, false, time.Time{}},
		{"marker prefix mismatch", withFilter(dm, Filter{Prefix: "z"}), ExpiredDeleteMarker, loneMarker, 0, RoundAWS, false, time.Time{}},
		{"marker size filter", withFilter(dm, Filter{SizeLessThan: evalSize(10)}), ExpiredDeleteMarker, loneMarker, 0, RoundAWS, false, time.Time{}},

		// Kinds that never apply to a version.
		{"abort on a version", abort, AbortMPU, single, 0, RoundAWS, false, time.Time{}},
		{"unknown kind", expire3, ActionKind("Transition"), single, 0, RoundAWS, false, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.rule
			got, ok := EvaluateVersion(&r, c.kind, c.obj, c.idx, c.rnd)
			if ok != c.wantOK {
				t.Fatalf("EvaluateVersion(%s, %s, idx %d) ok = %v, want %v (match %+v)", r.ID, c.kind, c.idx, ok, c.wantOK, got)
			}
			if !ok {
				if got != (Match{}) {
					t.Errorf("EvaluateVersion(%s, %s, idx %d) = %+v with ok false, want the zero Match", r.ID, c.kind, c.idx, got)
				}
				return
			}
			want := Match{Kind: c.kind, RuleID: r.ID, Due: c.wantDue}
			if got.Kind != want.Kind || got.RuleID != want.RuleID || !got.Due.Equal(want.Due) {
				t.Errorf("EvaluateVersion(%s, %s, idx %d) = %+v, want %+v", r.ID, c.kind, c.idx, got, want)
			}
		})
	}
}

// A rule with both NoncurrentDays and NewerNoncurrentVersions acts on a
// noncurrent version only when both are exceeded (AWS), evaluated through the
// kinds the rule compiles to.
func TestEvaluateNoncurrentBothLimits(t *testing.T) {
	r := Rule{ID: "both", Enabled: true, NoncurrentDays: 2, NewerNoncurrentVersions: 1}
	if got, want := r.Actions(), []ActionKind{NewerNoncurrent}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Actions() = %v, want %v", got, want)
	}
	// v5 current; v4..v1 noncurrent, each demoted a day after its mtime.
	obj := evalObj("k", evalVer("v5", evalDay5), evalVer("v4", evalDay4), evalVer("v3", evalDay3), evalVer("v2", evalDay2), evalVer("v1", evalDay1))
	// Legacy entries: each version became noncurrent at its successor's
	// mtime, so v4 at day5, v3 at day4, v2 at day3, v1 at day2. Under exact
	// rounding v3 is due at day6 10:30; look one nanosecond before that.
	now := evalDay5.Add(24*time.Hour - time.Nanosecond)
	cases := []struct {
		idx     int
		wantDue bool
		why     string
	}{
		{1, false, "the newest noncurrent version is kept by the count"},
		{2, false, "over the count but one nanosecond short of NoncurrentDays"},
		{3, true, "over the count and noncurrent long enough"},
		{4, true, "over the count and noncurrent long enough"},
	}
	for _, c := range cases {
		due := false
		for _, kind := range r.Actions() {
			if m, ok := EvaluateVersion(&r, kind, obj, c.idx, RoundExact); ok && m.IsDue(now) {
				due = true
			}
		}
		if due != c.wantDue {
			t.Errorf("idx %d due at %s = %v, want %v: %s", c.idx, now, due, c.wantDue, c.why)
		}
	}
}

func TestEvaluateUpload(t *testing.T) {
	abort2 := Rule{ID: "mpu", Enabled: true, AbortMPUDays: 2}
	up := filer.Upload{Key: "a/k", UploadID: "u1", Initiated: evalDay1}
	with := func(f func(*Rule)) Rule { r := abort2; f(&r); return r }
	cases := []struct {
		name    string
		rule    Rule
		rnd     Rounding
		wantOK  bool
		wantDue time.Time
	}{
		{"aws", abort2, RoundAWS, true, evalDay1.Truncate(24 * time.Hour).Add(3 * 24 * time.Hour)},
		{"exact", abort2, RoundExact, true, evalDay1.Add(2 * 24 * time.Hour)},
		{"prefix match", with(func(r *Rule) { r.Filter.Prefix = "a/" }), RoundExact, true, evalDay1.Add(2 * 24 * time.Hour)},
		{"prefix mismatch", with(func(r *Rule) { r.Filter.Prefix = "b/" }), RoundAWS, false, time.Time{}},
		{"tag filter", with(func(r *Rule) { r.Filter.Tags = []Tag{{"k", "v"}} }), RoundAWS, false, time.Time{}},
		{"size filter", with(func(r *Rule) { r.Filter.SizeLessThan = evalSize(1 << 30) }), RoundAWS, false, time.Time{}},
		{"disabled", with(func(r *Rule) { r.Enabled = false }), RoundAWS, false, time.Time{}},
		{"no abort action", with(func(r *Rule) { r.AbortMPUDays = 0; r.ExpirationDays = 2 }), RoundAWS, false, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.rule
			u := up
			got, ok := EvaluateUpload(&r, &u, c.rnd)
			if ok != c.wantOK {
				t.Fatalf("EvaluateUpload(%s) ok = %v, want %v (match %+v)", c.name, ok, c.wantOK, got)
			}
			if !ok {
				return
			}
			if got.Kind != AbortMPU || got.RuleID != r.ID || !got.Due.Equal(c.wantDue) {
				t.Errorf("EvaluateUpload(%s) = %+v, want {AbortMPU %s %s}", c.name, got, r.ID, c.wantDue)
			}
		})
	}
}

func TestMatchIsDue(t *testing.T) {
	now := evalDay2
	cases := []struct {
		name string
		due  time.Time
		want bool
	}{
		{"zero due is due now", time.Time{}, true},
		{"past", now.Add(-time.Nanosecond), true},
		{"exactly now", now, true},
		{"future", now.Add(time.Nanosecond), false},
	}
	for _, c := range cases {
		if got := (Match{Due: c.due}).IsDue(now); got != c.want {
			t.Errorf("%s: IsDue = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMatchEarlier(t *testing.T) {
	early, late := evalDay1, evalDay2
	cases := []struct {
		name string
		m, o Match
		want bool
	}{
		{"earlier due wins", Match{RuleID: "z", Due: early}, Match{RuleID: "a", Due: late}, true},
		{"later due loses", Match{RuleID: "a", Due: late}, Match{RuleID: "z", Due: early}, false},
		{"due now beats any date", Match{RuleID: "z"}, Match{RuleID: "a", Due: early}, true},
		{"tie lower rule id wins", Match{RuleID: "a", Due: early}, Match{RuleID: "b", Due: early}, true},
		{"tie higher rule id loses", Match{RuleID: "b", Due: early}, Match{RuleID: "a", Due: early}, false},
		{"identical is not earlier", Match{RuleID: "a", Due: early}, Match{RuleID: "a", Due: early}, false},
		// Equal instants in different zones are a tie, not an ordering.
		{"tie across zones", Match{RuleID: "a", Due: early.In(time.FixedZone("x", 3600))}, Match{RuleID: "b", Due: early}, true},
		{"tie across zones reversed", Match{RuleID: "b", Due: early.In(time.FixedZone("x", 3600))}, Match{RuleID: "a", Due: early}, false},
	}
	for _, c := range cases {
		if got := c.m.Earlier(c.o); got != c.want {
			t.Errorf("%s: %+v.Earlier(%+v) = %v, want %v", c.name, c.m, c.o, got, c.want)
		}
	}
}
