//go:build integration

package seaweedfs_test

import (
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// Expiration Days removes an expired object delete marker (its key's only
// version) once it is Days old, through the gateway's
// EXPIRED_DELETE_MARKER delete, in the recovery walk and in replay; a
// younger one, and one with a version beneath it, stay.
func TestExpirationDaysRemovesExpiredMarker(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "exp-marker")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>d2</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>2</Days></Expiration></Rule>`))
	old := s3c.DeleteObject(t, b, "old") // a DELETE of a key that never existed: a lone marker
	young := s3c.DeleteObject(t, b, "young")
	v1, _ := s3c.PutObject(t, b, "covered", "x", nil)
	covered := s3c.DeleteObject(t, b, "covered")
	itest.Backdate(t, st, b, "old", old, 5*day)
	itest.Backdate(t, st, b, "young", young, day)
	itest.Backdate(t, st, b, "covered", covered, 5*day)

	res := pass(t, st, b) // recovery walk
	assertLeft(t, s3c, st, b, []string{"young@" + young + "[DM]", "covered@" + covered + "[DM]", "covered@" + v1}, []string{})
	if len(res.Actions) != 1 || res.Actions[0].Key != "old" || res.Actions[0].Kind != lifecycle.ExpiredDeleteMarker ||
		res.Actions[0].RuleID != "d2" || res.Actions[0].Outcome != filer.OutcomeDone {
		t.Fatalf("actions %+v, want old's marker removed as ExpiredDeleteMarker of rule d2", res.Actions)
	}

	// young ages past its due time; the replay of its PUT removes it.
	itest.Backdate(t, st, b, "young", young, 3*day)
	res = pass(t, st, b)
	assertLeft(t, s3c, st, b, []string{"covered@" + covered + "[DM]", "covered@" + v1}, []string{})
	replayed := false
	for _, a := range res.Actions {
		replayed = replayed || a.Source == "replay" && a.Key == "young" && a.Kind == lifecycle.ExpiredDeleteMarker && a.Outcome == filer.OutcomeDone
	}
	if !replayed {
		t.Errorf("young's marker was not removed by replay: %+v", res.Actions)
	}
}
