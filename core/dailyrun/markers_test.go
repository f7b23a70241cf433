package dailyrun

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// removeVersion removes a version of key and logs its removal at at.
func (f *fakeStore) removeVersion(bucket, key, vid string, at time.Time) {
	o := f.objects[bucket][key]
	noncurrent := false
	for i, v := range o.Versions {
		if v.VersionID == vid {
			noncurrent = !v.IsLatest
			o.Versions = append(o.Versions[:i:i], o.Versions[i+1:]...)
			break
		}
	}
	f.events = append(f.events, filer.Event{TsNs: at.UnixNano(), Type: filer.EventRemove, Bucket: bucket, Key: key, VersionID: vid, Noncurrent: noncurrent})
}

func markerSnapshot(bucket string, v filer.Versioning, markers lifecycle.ExpiredMarkerDays, rules ...lifecycle.Rule) *engine.Snapshot {
	return engine.CompileWith([]engine.Bucket{{Name: bucket, Versioning: v, Rules: rules}},
		engine.Options{Rounding: lifecycle.RoundAWS, ExpiredMarkers: markers}).Snapshot()
}

// An example: Expiration Days 5 (empty filter) removes the expired object
// delete marker "old" (2026-06-01, due 2026-06-07) and keeps "young"
// (2026-06-13, due 2026-06-19) at 2026-06-15T12:00Z, in Enabled and
// Suspended buckets, whether the pass walks (cold start) or replays the
// markers' PUTs (a cursor from before them); with --expired-marker-days
// keep both stay. A lone marker's removal is an ExpiredDeleteMarker action
// of the Expiration rule.
func TestExpirationDaysRemovesExpiredMarker(t *testing.T) {
	now := ts("2026-06-15T12:00:00Z")
	days5 := lifecycle.Rule{ID: "exp5", Enabled: true, ExpirationDays: 5}
	for _, tc := range []struct {
		name       string
		versioning filer.Versioning
		markers    lifecycle.ExpiredMarkerDays
		warm       bool // a pass before the markers saved cursors, so this one replays
		want       []string
		source     Source
	}{
		{"enabled, cold walk", filer.VersioningEnabled, lifecycle.ExpiredMarkersAWS, false, []string{"b/young@dm-young"}, "walker"},
		{"enabled, replay", filer.VersioningEnabled, lifecycle.ExpiredMarkersAWS, true, []string{"b/young@dm-young"}, "replay"},
		{"suspended, cold walk", filer.VersioningSuspended, lifecycle.ExpiredMarkersAWS, false, []string{"b/young@null"}, "walker"},
		{"suspended, replay", filer.VersioningSuspended, lifecycle.ExpiredMarkersAWS, true, []string{"b/young@null"}, "replay"},
		{"keep, cold walk", filer.VersioningEnabled, lifecycle.ExpiredMarkersKeep, false, []string{"b/old@dm-old", "b/young@dm-young"}, ""},
		{"keep, replay", filer.VersioningEnabled, lifecycle.ExpiredMarkersKeep, true, []string{"b/old@dm-old", "b/young@dm-young"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", tc.versioning)
			snap := markerSnapshot("b", tc.versioning, tc.markers, days5)
			if tc.warm {
				runPass(t, context.Background(), st, snap, ts("2026-05-31T00:00:00Z"), nil)
			}
			id := func(s string) string {
				if tc.versioning == filer.VersioningSuspended {
					return filer.NullVersionID
				}
				return s
			}
			st.putMarker("b", "old", id("dm-old"), ts("2026-06-01T00:00:00Z"))
			st.putMarker("b", "young", id("dm-young"), ts("2026-06-13T00:00:00Z"))
			res := runPass(t, context.Background(), st, snap, now, func(c *Config) { c.WalkerInterval = 24 * time.Hour })
			if diff := cmp.Diff(tc.want, st.remaining()); diff != "" {
				t.Fatalf("remaining (-want +got):\n%s", diff)
			}
			if tc.source == "" {
				if len(res.Actions) != 0 {
					t.Fatalf("actions %+v, want none", res.Actions)
				}
				return
			}
			if len(res.Actions) != 1 {
				t.Fatalf("actions %+v, want one", res.Actions)
			}
			a := res.Actions[0]
			want := Action{Shard: lifecycle.ShardID("b", "old"), Source: tc.source, Bucket: "b", Key: "old", VersionID: id("dm-old"),
				Kind: lifecycle.ExpiredDeleteMarker, RuleID: "exp5", Due: ts("2026-06-07T00:00:00Z"), Outcome: filer.OutcomeDone}
			if diff := cmp.Diff(want, a); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
			// young is pending: its shard's cursor stays before its PUT.
			s := shardOf(res, lifecycle.ShardID("b", "young"))
			if s.Pending != 1 || s.Cursor.TsNs >= ts("2026-06-13T00:00:00Z").UnixNano() {
				t.Errorf("young's shard: pending %d cursor %v", s.Pending, time.Unix(0, s.Cursor.TsNs).UTC())
			}
			// On its due date the replay removes it.
			runPass(t, context.Background(), st, snap, ts("2026-06-19T00:00:00Z"), func(c *Config) { c.WalkerInterval = 24 * time.Hour })
			if got := st.remaining(); len(got) != 0 {
				t.Errorf("remaining at 2026-06-19: %v", got)
			}
		})
	}
}

// A marker becomes an expired object delete marker when the last version
// beneath it is removed, long after its own PUT was replayed: that removal
// triggers the replay, and the marker's age still counts from its own
// mtime. Under keep the marker stays; the removal still reads the key,
// since it can also make an older version latest again.
func TestRemovalLeavingLoneMarkerTriggersReplay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		markers lifecycle.ExpiredMarkerDays
		want    []string
		lookups int
	}{
		{"aws", lifecycle.ExpiredMarkersAWS, nil, 1},
		{"keep", lifecycle.ExpiredMarkersKeep, []string{"b/k@dm"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", filer.VersioningEnabled)
			st.put("b", "k", "v1", ts("2026-05-01T00:00:00Z"), 10)
			st.putMarker("b", "k", "dm", ts("2026-06-01T00:00:00Z"))
			snap := markerSnapshot("b", filer.VersioningEnabled, tc.markers, lifecycle.Rule{ID: "exp5", Enabled: true, ExpirationDays: 5})
			// Cold pass: the marker has v1 beneath it, nothing is due.
			runPass(t, context.Background(), st, snap, ts("2026-06-02T00:00:00Z"), nil)
			if len(st.deletes) != 0 {
				t.Fatalf("cold pass deleted %s", st.deleted())
			}
			// Someone removes v1; the marker is now alone.
			st.removeVersion("b", "k", "v1", ts("2026-06-10T00:00:00Z"))
			st.lookups = 0
			res := runPass(t, context.Background(), st, snap, ts("2026-06-15T12:00:00Z"), func(c *Config) { c.WalkerInterval = 24 * time.Hour })
			if diff := cmp.Diff(tc.want, st.remaining()); diff != "" {
				t.Fatalf("remaining (-want +got):\n%s", diff)
			}
			if st.lookups != tc.lookups {
				t.Errorf("%d lookups, want %d", st.lookups, tc.lookups)
			}
			if tc.want == nil {
				if len(res.Actions) != 1 || res.Actions[0].Source != "replay" || res.Actions[0].Kind != lifecycle.ExpiredDeleteMarker || !res.Actions[0].Due.Equal(ts("2026-06-07T00:00:00Z")) {
					t.Errorf("actions %+v, want one replayed ExpiredDeleteMarker due 2026-06-07", res.Actions)
				}
			}
		})
	}
}

// Steady-state walks find an expired object delete marker whose events
// replay never saw (here: dropped from the meta-log) wherever ExpirationDays
// is walked: in an Object Lock bucket, and when the meta-log retention
// promotes the rule to the walker.
func TestSteadyWalkRemovesExpiredMarker(t *testing.T) {
	for _, tc := range []struct {
		name      string
		objLock   bool
		retention time.Duration
	}{
		{"object lock bucket", true, 0},
		{"promoted by a short meta-log retention", false, 2 * day},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFakeStore()
			st.addBucket("b", filer.VersioningEnabled)
			snap := engine.Compile([]engine.Bucket{{Name: "b", Versioning: filer.VersioningEnabled, ObjectLock: tc.objLock,
				Rules: []lifecycle.Rule{{ID: "exp5", Enabled: true, ExpirationDays: 5}}}}, lifecycle.RoundAWS).Snapshot()
			mod := func(c *Config) { c.MetaLogRetention = tc.retention }
			runPass(t, context.Background(), st, snap, ts("2026-05-31T00:00:00Z"), mod)
			st.putMarker("b", "old", "dm", ts("2026-06-01T00:00:00Z"))
			st.events = nil
			res := runPass(t, context.Background(), st, snap, ts("2026-06-15T12:00:00Z"), mod)
			if got := st.remaining(); len(got) != 0 {
				t.Fatalf("remaining %v", got)
			}
			s := shardOf(res, lifecycle.ShardID("b", "old"))
			if s.Walk != WalkSteadyState || s.Recovery != "" || len(res.Actions) != 1 || res.Actions[0].Source != "walker" || res.Actions[0].Kind != lifecycle.ExpiredDeleteMarker {
				t.Fatalf("walk %q recovery %q actions %+v", s.Walk, s.Recovery, res.Actions)
			}
		})
	}
}

// The re-check before the delete re-decides the marker's expiry: a version
// written on the key between listing and delete means the marker is no
// longer alone, and the delete is NOOP_RESOLVED.
func TestExpiredMarkerRecheck(t *testing.T) {
	st := newFakeStore()
	st.addBucket("b", filer.VersioningEnabled)
	st.putMarker("b", "k", "dm", ts("2026-06-01T00:00:00Z"))
	st.beforeDelete = func(f *fakeStore, _ filer.DeleteRequest) {
		o := f.objects["b"]["k"]
		o.Versions[0].IsLatest = false
		o.Versions = append([]filer.Version{{VersionID: "v2", IsLatest: true, MtimeNs: ts("2026-06-15T00:00:00Z").UnixNano(), Size: 1}}, o.Versions...)
	}
	snap := markerSnapshot("b", filer.VersioningEnabled, lifecycle.ExpiredMarkersAWS, lifecycle.Rule{ID: "exp5", Enabled: true, ExpirationDays: 5})
	res := runPass(t, context.Background(), st, snap, ts("2026-06-15T12:00:00Z"), nil)
	if len(res.Actions) != 1 || res.Actions[0].Outcome != filer.OutcomeNoopResolved {
		t.Fatalf("actions %+v, want one NOOP_RESOLVED", res.Actions)
	}
	if !contains(st.remaining(), "b/k@dm") {
		t.Fatalf("the marker was removed although a version now sits on it: %v", st.remaining())
	}
}

// Switching the expired-marker policy changes the replay content hash, so
// the next pass walks (rule_edit) and finds markers whose events the
// cursor already passed; the default compile is AWS's.
func TestExpiredMarkerPolicyIsReplayContent(t *testing.T) {
	rules := []lifecycle.Rule{{ID: "exp5", Enabled: true, ExpirationDays: 5}}
	aws := markerSnapshot("b", filer.VersioningEnabled, lifecycle.ExpiredMarkersAWS, rules...)
	keep := markerSnapshot("b", filer.VersioningEnabled, lifecycle.ExpiredMarkersKeep, rules...)
	if engine.ReplayContentHash(aws) == engine.ReplayContentHash(keep) {
		t.Fatal("aws and keep share a replay content hash")
	}
	if engine.ReplayContentHash(aws) != engine.ReplayContentHash(snapshotOf("b", filer.VersioningEnabled, rules...)) {
		t.Fatal("Compile's default is not aws")
	}
	nc := lifecycle.Rule{ID: "nc", Enabled: true, NoncurrentDays: 5}
	if engine.ReplayContentHash(markerSnapshot("b", filer.VersioningEnabled, lifecycle.ExpiredMarkersAWS, nc)) !=
		engine.ReplayContentHash(markerSnapshot("b", filer.VersioningEnabled, lifecycle.ExpiredMarkersKeep, nc)) {
		t.Fatal("the policy changed the hash of a rule without Expiration Days")
	}

	st := newFakeStore()
	st.addBucket("b", filer.VersioningEnabled)
	runPass(t, context.Background(), st, keep, ts("2026-05-31T00:00:00Z"), nil)
	st.putMarker("b", "old", "dm", ts("2026-06-01T00:00:00Z"))
	runPass(t, context.Background(), st, keep, ts("2026-06-15T00:00:00Z"), nil) // replays the PUT, keeps the marker
	st.events = nil
	res := runPass(t, context.Background(), st, aws, ts("2026-06-15T12:00:00Z"), nil)
	if s := shardOf(res, lifecycle.ShardID("b", "old")); s.Recovery != "rule_edit" || len(st.remaining()) != 0 {
		t.Fatalf("recovery %q remaining %v", s.Recovery, st.remaining())
	}
}
