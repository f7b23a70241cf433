//go:build integration

package s3_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/internal/itest"
)

// On an S3 endpoint, Expiration Days removes an expired object delete
// marker (its key's only version) once Days old, with a versioned
// DeleteObject of the marker; a younger one and one with a version beneath
// it stay. --expired-marker-days keep leaves it, as SeaweedFS's worker
// does.
func TestExpirationDaysExpiredMarkerOnS3(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []string
		old   bool // old's marker is left
	}{
		{"aws", nil, false},
		{"keep", []string{"--expired-marker-days", "keep"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := itest.FromEnv(t)
			b := c.CreateBucket(t, "ilmctl-it-marker")
			c.PutVersioning(t, b, "Enabled")
			c.PutLifecycleXML(t, b, lifecycleXML(`<Rule><ID>d2</ID><Status>Enabled</Status><Filter></Filter><Expiration><Days>2</Days></Expiration></Rule>`))
			if tc.old {
				itest.RequireServer(t, itest.SeaweedFS, "MinIO's own lifecycle removes the marker --expired-marker-days keep leaves (see minioExpires)")
			}
			w, age := agedWriter(t, c, 5*day)
			old := w.DeleteObject(t, b, "old") // a DELETE of a key that never existed: a lone marker
			v1, _ := w.PutObject(t, b, "covered", "x", nil)
			covered := w.DeleteObject(t, b, "covered")
			age(b)
			young := c.DeleteObject(t, b, "young")

			rep := runPass(t, time.Now(), t.TempDir(), tc.extra...)
			want := []string{"young@" + young + "[DM]", "covered@" + covered + "[DM]", "covered@" + v1}
			if tc.old {
				want = append(want, "old@"+old+"[DM]")
			}
			assertLeft(t, c, b, want, []string{})
			var kinds []string
			for _, a := range rep.Actions {
				if a.Bucket == b {
					kinds = append(kinds, a.Key+":"+a.Kind+":"+a.RuleID+":"+a.Outcome)
				}
			}
			want1 := []string{"old:ExpiredDeleteMarker:d2:DONE"}
			if itest.ServerEnv(t) == itest.MinIO { // see minioExpires
				want1 = append(want1, "old:ExpiredDeleteMarker:d2:NOOP_RESOLVED")
			}
			if !tc.old && (len(kinds) != 1 || !slices.Contains(want1, kinds[0])) {
				t.Errorf("actions %v, want one of %v", kinds, want1)
			}
			if tc.old && len(kinds) != 0 {
				t.Errorf("actions %v, want none", kinds)
			}
		})
	}
}
