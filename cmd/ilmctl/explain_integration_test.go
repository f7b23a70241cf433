//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// TestExplainOnLiveFilers: on a live SeaweedFS, through seaweedfs:// and
// through its S3 gateway as s3://, explain and run --dry-run agree on
// every version and upload of a bucket (rule, kind, size), now and three
// days on, cold and (seaweedfs://) after a real pass; explain changes
// nothing and, after the pass, places the key against its shard's cursor.
func TestExplainOnLiveFilers(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "it reads the same bucket through seaweedfs:// and the gateway's s3://")
	ft := itest.FilerEnv(t)
	s3c := itest.FromEnv(t)
	endpoint, access, secret := itest.S3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	st := itest.OpenFiler(t, ft)
	b := s3c.CreateBucket(t, "explain")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc+
		`<Rule><ID>nc</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`+
		`<Rule><ID>exp</ID><Filter><Prefix>b/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>`+
		`<Rule><ID>tag</ID><Filter><Tag><Key>t</Key><Value>x</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`+
		`<Rule><ID>keep1</ID><Filter><Prefix>n/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`+
		`<Rule><ID>mpu</ID><Filter><Prefix>up/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`+
		`</LifecycleConfiguration>`)
	day := 24 * time.Hour
	v1, _ := s3c.PutObject(t, b, "a/k", "one", nil)
	s3c.PutObject(t, b, "a/k", "two-two", nil)
	itest.Backdate(t, st, b, "a/k", v1, 10*day)
	itest.BackdateNoncurrent(t, st, b, "a/k", v1, 5*day)
	tv, _ := s3c.PutObject(t, b, "b/tagged", "tagged", map[string]string{"t": "x"})
	itest.Backdate(t, st, b, "b/tagged", tv, 3*day)
	s3c.PutObject(t, b, "b/young", "young", nil)
	var nv []string
	for i := range 4 {
		id, _ := s3c.PutObject(t, b, "n/k", strings.Repeat("n", i+1), nil)
		nv = append(nv, id)
	}
	for i, id := range nv[:3] {
		itest.BackdateNoncurrent(t, st, b, "n/k", id, time.Duration(10-i)*day)
	}
	s3c.DeleteObject(t, b, "c/gone")
	up := s3c.CreateMultipartUpload(t, b, "up/big")
	itest.BackdateUpload(t, st, b, up, 3*day)
	keys := [][2]string{{b, "a/k"}, {b, "b/tagged"}, {b, "b/young"}, {b, "n/k"}, {b, "c/gone"}, {b, "up/big"}}
	before, beforeUps := s3c.ListAll(t, b)

	filers := map[string][]string{
		"seaweedfs": {"--filer", "seaweedfs://" + ft.Filer},
		"s3":        {"--filer", "s3://" + endpoint, "--s3-path-style", "--state", t.TempDir()},
	}
	for _, name := range []string{"seaweedfs", "s3"} {
		fa := filers[name]
		t.Run(name, func(t *testing.T) {
			now := time.Now().UTC().Truncate(time.Second)
			for _, at := range []time.Time{now, now.Add(3 * day)} {
				at := at.Format(time.RFC3339)
				want := inBucket(dryRunTargets(t, fa, at, nil), b)
				got := explainTargets(t, fa, keys, at, nil)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("--now %s: run --dry-run (-) and explain (+) disagree:\n%s", at, diff)
				}
				// Through S3 the backdated noncurrent-since stamps and the
				// upload's initiation are not visible (S3 lists neither), so
				// those actions come due days later there.
				expect := []string{"a/k@" + v1 + " NoncurrentDays", "b/tagged@" + tv + " ExpirationDays", "n/k@" + nv[0] + " NewerNoncurrent", "up/big@upload:" + up + " AbortMPU"}
				switch {
				case name == "s3" && at == now.Format(time.RFC3339):
					expect = expect[1:2]
				case at != now.Format(time.RFC3339):
					expect = append(expect, "b/young@")
				}
				for _, w := range expect {
					if !containsTarget(got, b+"/"+w) {
						t.Errorf("explain at %s lacks %s in %v", at, w, got)
					}
				}
			}
			after, afterUps := s3c.ListAll(t, b)
			if diff := cmp.Diff(before, after); diff != "" || !cmp.Equal(beforeUps, afterUps) {
				t.Errorf("explain and dry runs changed the bucket (-before +after):\n%s\nuploads %v -> %v", diff, beforeUps, afterUps)
			}
		})
	}

	// After a real pass the shards have cursors: explain names the key's
	// shard and cursor, finds the key's last event (sharded by its filer
	// path) after it (the pass's own delete), and still agrees with a dry
	// run three days on.
	fa := filers["seaweedfs"]
	if _, stderr, code := execute(t, append([]string{"run", "--s3-grpc", ft.S3GRPC}, fa...)...); code != 0 && code != 4 {
		t.Fatalf("real pass: exit %d: %s", code, stderr)
	}
	later := time.Now().UTC().Add(3 * day).Truncate(time.Second).Format(time.RFC3339)
	if diff := cmp.Diff(inBucket(dryRunTargets(t, fa, later, nil), b), explainTargets(t, fa, keys, later, nil)); diff != "" {
		t.Errorf("after a pass, --now %s: run --dry-run (-) and explain (+) disagree:\n%s", later, diff)
	}
	out, stderr, code := execute(t, append([]string{"explain", "--bucket", b, "--key", "a/k", "-o", "json"}, fa...)...)
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	var rep struct {
		Pass struct {
			Shard int `json:"shard"`
			Plan  struct {
				CursorFound bool  `json:"cursor_found"`
				CursorTsNs  int64 `json:"cursor_ts_ns"`
			} `json:"plan"`
			MetaLog   bool `json:"meta_log"`
			LastEvent *struct {
				Type        string `json:"type"`
				Path        string `json:"path"`
				AfterCursor bool   `json:"after_cursor"`
			} `json:"last_event"`
		} `json:"pass"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if p := rep.Pass; p.Shard != lifecycle.ShardID(b, "a/k") || !p.Plan.CursorFound || p.Plan.CursorTsNs == 0 || !p.MetaLog ||
		p.LastEvent == nil || p.LastEvent.Path == "" || !p.LastEvent.AfterCursor {
		t.Errorf("standing after a pass: %+v (last event %+v)", p, p.LastEvent)
	}
}

func inBucket(ts []target, bucket string) []target {
	var out []target
	for _, t := range ts {
		if t.Bucket == bucket {
			out = append(out, t)
		}
	}
	return out
}

func containsTarget(ts []target, prefix string) bool {
	for _, t := range ts {
		if strings.HasPrefix(fmt.Sprintf("%s/%s@%s %s", t.Bucket, t.Key, t.ID, t.Kind), prefix) {
			return true
		}
	}
	return false
}
