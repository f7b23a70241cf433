package lifecycle

import (
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Expiration Days on an expired object delete marker (the latest and only
// version) is a match of kind ExpiredDeleteMarker, due Days after the
// marker's own mtime with the usual rounding; a marker with versions
// beneath it, or one the filter cannot select, is not.
func TestEvaluateExpirationDaysOnExpiredMarker(t *testing.T) {
	// Expiration Days 5, now 2026-06-15T12:00:00Z: old is due, young is not.
	now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	days5 := Rule{ID: "exp5", Enabled: true, ExpirationDays: 5}
	at := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return t
	}
	lone := func(key, mtime string) *filer.Object {
		return evalObj(key, evalMarker("dm", at(mtime)))
	}
	for _, tc := range []struct {
		name    string
		rule    Rule
		obj     *filer.Object
		idx     int
		rnd     Rounding
		wantOK  bool
		wantDue string
		due     bool // due at now
	}{
		{"old marker", days5, lone("old", "2026-06-01T00:00:00Z"), 0, RoundAWS, true, "2026-06-07T00:00:00Z", true},
		{"young marker", days5, lone("young", "2026-06-13T00:00:00Z"), 0, RoundAWS, true, "2026-06-19T00:00:00Z", false},
		{"old marker, exact rounding", days5, lone("old", "2026-06-01T09:00:00Z"), 0, RoundExact, true, "2026-06-06T09:00:00Z", true},
		{"due exactly at midnight rounds to the next", days5, lone("k", "2026-06-10T00:00:00Z"), 0, RoundAWS, true, "2026-06-16T00:00:00Z", false},
		{"marker over a version", days5, evalObj("k", evalMarker("dm", at("2026-06-01T00:00:00Z")), evalVer("v1", at("2026-05-01T00:00:00Z"))), 0, RoundAWS, false, "", false},
		{"noncurrent marker", days5, evalObj("k", evalVer("v2", at("2026-06-02T00:00:00Z")), evalMarker("dm", at("2026-06-01T00:00:00Z"))), 1, RoundAWS, false, "", false},
		{"prefix selects it", Rule{ID: "p", Enabled: true, ExpirationDays: 5, Filter: Filter{Prefix: "lo"}}, lone("logs/x", "2026-06-01T00:00:00Z"), 0, RoundAWS, true, "2026-06-07T00:00:00Z", true},
		{"prefix mismatch", Rule{ID: "p", Enabled: true, ExpirationDays: 5, Filter: Filter{Prefix: "tmp/"}}, lone("logs/x", "2026-06-01T00:00:00Z"), 0, RoundAWS, false, "", false},
		{"tag filter never selects a marker", Rule{ID: "t", Enabled: true, ExpirationDays: 5, Filter: Filter{Tags: []Tag{{"k", "v"}}}}, lone("k", "2026-06-01T00:00:00Z"), 0, RoundAWS, false, "", false},
		{"size filter never selects a marker", Rule{ID: "s", Enabled: true, ExpirationDays: 5, Filter: Filter{SizeLessThan: evalSize(1)}}, lone("k", "2026-06-01T00:00:00Z"), 0, RoundAWS, false, "", false},
		{"disabled rule", Rule{ID: "off", ExpirationDays: 5}, lone("k", "2026-06-01T00:00:00Z"), 0, RoundAWS, false, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := EvaluateVersion(&tc.rule, ExpirationDays, tc.obj, tc.idx, tc.rnd)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v (%+v), want %v", ok, m, tc.wantOK)
			}
			if !ok {
				return
			}
			if m.Kind != ExpiredDeleteMarker || m.RuleID != tc.rule.ID || !m.Due.Equal(at(tc.wantDue)) {
				t.Errorf("match = %+v, want kind ExpiredDeleteMarker rule %s due %s", m, tc.rule.ID, tc.wantDue)
			}
			if m.IsDue(now) != tc.due {
				t.Errorf("IsDue(%s) = %v, want %v", now.Format(time.RFC3339), m.IsDue(now), tc.due)
			}
		})
	}
}

func TestExpiredMarkerDays(t *testing.T) {
	for _, s := range []string{"aws", "keep"} {
		p, err := ParseExpiredMarkerDays(s)
		if err != nil || p.String() != s {
			t.Errorf("ParseExpiredMarkerDays(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := ParseExpiredMarkerDays("AWS"); err == nil {
		t.Error("ParseExpiredMarkerDays accepted AWS")
	}
	marker := Match{Kind: ExpiredDeleteMarker}
	object := Match{Kind: ExpirationDays}
	for _, tc := range []struct {
		p    ExpiredMarkerDays
		kind ActionKind
		m    Match
		want bool
	}{
		{ExpiredMarkersAWS, ExpirationDays, marker, true},
		{ExpiredMarkersKeep, ExpirationDays, marker, false},
		{ExpiredMarkersKeep, ExpirationDays, object, true},
		{ExpiredMarkersKeep, ExpiredDeleteMarker, marker, true},
	} {
		if got := tc.p.Allows(tc.kind, tc.m); got != tc.want {
			t.Errorf("%s.Allows(%s, %s) = %v, want %v", tc.p, tc.kind, tc.m.Kind, got, tc.want)
		}
	}
}
