//go:build integration

package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/internal/itest"
)

// liveCandidate expires app/ after 2 days and keeps one noncurrent
// version of each key.
const liveCandidate = lc +
	`<Rule><ID>app-2d</ID><Filter><Prefix>app/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>` +
	`<Rule><ID>keep1</ID><Filter><Prefix>app/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>` +
	`</LifecycleConfiguration>`

// The preview of a candidate configuration on a live server is the pass:
// on a bucket with no configuration, run --dry-run --rules lists the
// targets, over the server's own access path (seaweedfs:// on SeaweedFS)
// and over S3 (s3://, on SeaweedFS's gateway and on MinIO), and writes
// nothing; on SeaweedFS, putting the candidate and running the pass then
// reaches exactly the previewed targets. (MinIO runs a bucket's lifecycle
// itself once it is put, so there the preview is compared with what the
// data makes due, not with a pass.)
func TestPreviewOnLiveServer(t *testing.T) {
	s3c := itest.FromEnv(t)
	endpoint, access, secret := itest.S3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	server := itest.ServerEnv(t)
	old := s3c
	if server == itest.MinIO {
		old = s3c.Backdated(10 * 24 * time.Hour)
	}
	b := s3c.CreateBucket(t, "preview")
	s3c.PutVersioning(t, b, "Enabled")
	v1, _ := old.PutObject(t, b, "app/k", "one", nil)
	v2, _ := old.PutObject(t, b, "app/k", "two", nil)
	v3, _ := old.PutObject(t, b, "app/k", "three", nil)
	other, _ := old.PutObject(t, b, "keep/x", "x", nil)
	var seaweed []string
	if server == itest.SeaweedFS {
		ft := itest.FilerEnv(t)
		st := itest.OpenFiler(t, ft)
		for i, id := range []string{v1, v2, v3} {
			itest.Backdate(t, st, b, "app/k", id, time.Duration(12-i)*24*time.Hour)
			if i < 2 {
				itest.BackdateNoncurrent(t, st, b, "app/k", id, time.Duration(11-i)*24*time.Hour)
			}
		}
		itest.Backdate(t, st, b, "keep/x", other, 12*24*time.Hour)
		seaweed = []string{"--filer", "seaweedfs://" + ft.Filer, "--s3-grpc", ft.S3GRPC}
	}
	candidate := writeXML(t, liveCandidate)
	// The expiration of v3 (a delete marker) and the second-newest
	// noncurrent version's removal: NewerNoncurrentVersions 1 keeps v2.
	want := []string{b + "/app/k@" + v1 + " NewerNoncurrent keep1", b + "/app/k@" + v3 + " ExpirationDays app-2d"}
	slices.Sort(want)
	mine := func(actions []string) []string {
		return slices.DeleteFunc(actions, func(a string) bool { return !strings.HasPrefix(a, b+"/") })
	}
	before, _ := s3c.ListAll(t, b)
	var previews [][]string
	if seaweed != nil {
		previews = append(previews, mine(passActions(t, 0, false, append([]string{"run", "--dry-run", "-o", "json", "--rules", b + "=" + candidate}, seaweed...)...)))
	}
	previews = append(previews, mine(passActions(t, 0, false, "run", "--dry-run", "-o", "json", "--rules", b+"="+candidate,
		"--filer", "s3://"+endpoint, "--s3-path-style", "--state", t.TempDir())))
	for i, p := range previews {
		if !slices.Equal(p, want) {
			t.Errorf("preview %d: %v, want %v", i, p, want)
		}
	}
	if after, _ := s3c.ListAll(t, b); !slices.Equal(before, after) {
		t.Fatalf("a preview changed the bucket: %v -> %v", before, after)
	}
	if seaweed == nil {
		return
	}
	s3c.PutLifecycleXML(t, b, liveCandidate)
	var done []string
	for _, a := range mine(passActions(t, 0, true, append([]string{"run", "-runtime", "3m", "-o", "json"}, seaweed...)...)) {
		if strings.HasSuffix(a, " DONE") {
			done = append(done, strings.TrimSuffix(a, " DONE"))
		}
	}
	if !slices.Equal(done, want) {
		t.Errorf("the pass did %v, the preview said %v", done, want)
	}
}
