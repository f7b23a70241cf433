//go:build integration

package s3_test

import (
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
				itest.RequireServer(t, itest.SeaweedFS, "MinIO's own lifecycle removes the marker --expired-marker-days keep leaves (see outcomesMatch)")
			}
			w, age := agedWriter(t, c, 5*day)
			old := loneMarker(t, w, b, "old")
			v1, _ := w.PutObject(t, b, "covered", "x", nil)
			covered := w.DeleteObject(t, b, "covered")
			age(b)
			young := loneMarker(t, c, b, "young")

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
			if !tc.old && !outcomesMatch(t, outcomes(rep, b), map[string]int{"DONE": 1}) ||
				!tc.old && itest.ServerEnv(t) != itest.MinIO && (len(kinds) != 1 || kinds[0] != "old:ExpiredDeleteMarker:d2:DONE") {
				t.Errorf("actions %v, want old:ExpiredDeleteMarker:d2:DONE", kinds)
			}
			if tc.old && len(kinds) != 0 {
				t.Errorf("actions %v, want none", kinds)
			}
		})
	}
}

// loneMarker leaves a delete marker as key's only version and returns its
// version ID: a PUT, a DELETE (the marker), and a DELETE of the PUT's
// version. (A DELETE of a key that never existed writes a marker on
// SeaweedFS, as on AWS, but nothing on MinIO.)
func loneMarker(t *testing.T, c *itest.S3, bucket, key string) string {
	t.Helper()
	v, _ := c.PutObject(t, bucket, key, "x", nil)
	m := c.DeleteObject(t, bucket, key)
	itest.DeleteObjectVersion(t, c, bucket, key, v)
	return m
}
