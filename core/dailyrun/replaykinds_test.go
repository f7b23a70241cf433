package dailyrun

import (
	"slices"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// After the cold start, replay alone decides NewerNoncurrentVersions and
// expired object delete markers: no shard walks, a put that raises an
// older version's rank deletes it once it is NoncurrentDays old (pending
// until then), and the removal of the last version beneath a marker
// removes the marker. A marker left alone by the pass's own delete goes
// on the next pass, as after a walk.
func TestReplayDecidesNewerNoncurrentAndExpiredMarkers(t *testing.T) {
	day0 := ts("2026-03-01T06:00:00Z")
	st := newLoggedStore()
	st.addBucket("ver", filer.VersioningEnabled)
	snap := snapshotOf("ver", filer.VersioningEnabled,
		lifecycle.Rule{ID: "keep1", Enabled: true, Filter: lifecycle.Filter{Prefix: "n/"}, NoncurrentDays: 1, NewerNoncurrentVersions: 1},
		lifecycle.Rule{ID: "nc3", Enabled: true, Filter: lifecycle.Filter{Prefix: "c/"}, NoncurrentDays: 3},
		lifecycle.Rule{ID: "edm", Enabled: true, ExpiredObjectDeleteMarker: true})
	st.put("ver", "n/k", "v1", day0.Add(-10*day), 1)
	st.put("ver", "m/k", "x1", day0.Add(-10*day), 1)
	st.putMarker("ver", "m/k", "dm1", day0.Add(-9*day))
	st.put("ver", "c/k", "y1", day0.Add(-10*day), 1)
	st.putMarker("ver", "c/k", "dm2", day0.Add(-9*day))

	type step struct {
		name  string
		at    time.Time
		write func(at time.Time)
		want  []string // DONE this pass: kind target
	}
	steps := []step{
		// Cold start: a recovery walk; c/k's y1 goes (3 days
		// noncurrent), which leaves dm2 alone: the next pass removes it.
		{"cold start", day0, nil, []string{"NoncurrentDays ver/c/k@y1"}},
		{"a client removes the version beneath m/k's marker; two puts on n/k", day0.Add(day), func(at time.Time) {
			st.removeVersion("ver", "m/k", "x1", at.Add(-2*time.Hour))
			st.put("ver", "n/k", "v2", at.Add(-2*time.Hour), 1)
			st.put("ver", "n/k", "v3", at.Add(-time.Hour), 1)
		}, []string{"ExpiredDeleteMarker ver/c/k@dm2", "ExpiredDeleteMarker ver/m/k@dm1"}},
		// v1 has one noncurrent version newer than it since v3's put;
		// it is due a day after v2 was written, rounded up to midnight
		// (03-04), and pending until then.
		{"v1 pending", day0.Add(2 * day), nil, nil},
		{"v1 comes due", day0.Add(3 * day), nil, []string{"NewerNoncurrent ver/n/k@v1"}},
		{"nothing left", day0.Add(4 * day), nil, nil},
	}
	for _, s := range steps {
		if s.write != nil {
			s.write(s.at)
		}
		st.clockNs = s.at.UnixNano()
		res := runStoreLogged(t, st, snap, s.at, nil)
		if res.Status() != StatusOK {
			t.Fatalf("%s: status %s", s.name, res.Status())
		}
		got := doneSet(res)
		want := slices.Sorted(slices.Values(s.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s: deleted %v, want %v", s.name, got, want)
		}
		for _, sh := range res.Shards {
			if s.name != "cold start" && sh.Walk != "" {
				t.Errorf("%s: shard %d walked (%s); replay decides every rule here", s.name, sh.Shard, sh.Walk)
			}
		}
		for _, a := range res.Actions {
			if s.name != "cold start" && a.Source != SourceReplay {
				t.Errorf("%s: %s %s found by %s, want replay", s.name, a.Kind, a.Key, a.Source)
			}
		}
	}
}
