package dailyrun

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// A removal can raise the number of newer versions that stay: x, which
// another rule deletes, ranks above v3, so v3's own NewerNoncurrent match
// made it uncounted; once x is gone v3 stays and counts, and v2 has two
// newer noncurrent versions that stay. Replay decides that on x's removal,
// as a walk of every rule decides it the day after, and the two leave the
// same versions every day, with one NewerNoncurrentVersions rule or two.
func TestRemovalDecidesNewerNoncurrentItLetsCount(t *testing.T) {
	cold := []lifecycle.Tag{{Key: "tier", Value: "cold"}}
	for _, tc := range []struct {
		name  string
		rules []lifecycle.Rule
	}{
		{"one rule", []lifecycle.Rule{
			{ID: "nn2", Enabled: true, NoncurrentDays: 30, NewerNoncurrentVersions: 2},
			{ID: "nc28-cold", Enabled: true, Filter: lifecycle.Filter{Tags: cold}, NoncurrentDays: 28},
		}},
		{"two rules", []lifecycle.Rule{
			{ID: "nnA", Enabled: true, NoncurrentDays: 3, NewerNoncurrentVersions: 2},
			{ID: "nnB", Enabled: true, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "t", Value: "b"}}}, NoncurrentDays: 3, NewerNoncurrentVersions: 2},
			{ID: "nc1-cold", Enabled: true, Filter: lifecycle.Filter{Tags: cold}, NoncurrentDays: 1},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapshotOf("ver", filer.VersioningEnabled, tc.rules...)
			replay, walk := newLoggedStore(), newLoggedStore()
			write := func(at time.Time, f func(st *loggedStore, at time.Time)) {
				for _, st := range []*loggedStore{replay, walk} {
					f(st, at)
				}
			}
			writes := []struct {
				at string
				f  func(st *loggedStore, at time.Time)
			}{
				{"2026-01-01T01:00:00Z", func(st *loggedStore, at time.Time) { st.put("ver", "k", "v1", at, 1) }},
				{"2026-01-02T01:00:00Z", func(st *loggedStore, at time.Time) { st.put("ver", "k", "v2", at, 1) }},
				{"2026-01-02T02:00:00Z", func(st *loggedStore, at time.Time) {
					st.put("ver", "k", "v3", at, 1)
					st.setTags("ver", "k", "v3", map[string]string{"t": "b"}, at.Add(time.Minute).UnixNano())
				}},
				{"2026-01-02T03:00:00Z", func(st *loggedStore, at time.Time) { st.put("ver", "k", "v4", at, 1) }},
				{"2026-01-03T01:00:00Z", func(st *loggedStore, at time.Time) {
					st.put("ver", "k", "x", at, 1)
					st.setTags("ver", "k", "x", map[string]string{"tier": "cold"}, at.Add(time.Minute).UnixNano())
				}},
				{"2026-01-04T01:00:00Z", func(st *loggedStore, at time.Time) { st.put("ver", "k", "L", at, 1) }},
			}
			for _, st := range []*loggedStore{replay, walk} {
				st.addBucket("ver", filer.VersioningEnabled)
			}
			deleted := 0
			for now := ts("2026-01-01T00:00:00Z"); now.Before(ts("2026-02-12T00:00:00Z")); now = now.Add(day) {
				for len(writes) > 0 && ts(writes[0].at).Before(now) {
					write(ts(writes[0].at), writes[0].f)
					writes = writes[1:]
				}
				replay.clockNs, walk.clockNs = now.UnixNano(), now.UnixNano()
				rr := runStoreLogged(t, replay, snap, now, nil)
				runStore(t, walkOnly{walk}, snap, now, nil)
				deleted += len(doneSet(rr))
				if diff := cmp.Diff(walk.remaining(), replay.remaining()); diff != "" {
					t.Fatalf("%s: what replay left differs from a walk (-walk +replay):\n%s", now.Format(time.DateOnly), diff)
				}
			}
			if deleted < 3 {
				t.Errorf("%d deletes: the history exercises too little", deleted)
			}
		})
	}
}
