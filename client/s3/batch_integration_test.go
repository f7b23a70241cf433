//go:build integration

package s3_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	s3store "github.com/ilmctl/ilmctl/client/s3"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// Batched deletes on a real server: one batch holds targets that still
// apply, one rewritten between the pass's listing and the batch's fresh
// listing (b: no entry is sent for it) and one rewritten after the fresh
// listing, just before the DeleteObjects (c). c survives as NOOP_RESOLVED
// wherever the server honours the condition its delete carries: the
// DeleteObjects entry's ETag once --check-cas proved it (SeaweedFS), else
// If-Match on a DeleteObject of its own. MinIO honours neither (README,
// Conditional requests per server; --check-cas refuses it): there c is
// deleted on an unversioned bucket, and a versioned one gets a delete
// marker over c's new version, as the table says.
func TestBatchedDeletesOnS3(t *testing.T) {
	c := itest.FromEnv(t)
	server := itest.ServerEnv(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		versioning string
		checkCAS   bool
	}{
		{"unversioned, --check-cas", "", true},
		{"unversioned, unproven", "", false},
		{"versioned, --check-cas", "Enabled", true},
		{"versioned, unproven", "Enabled", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := c.CreateBucket(t, "ilmctl-it-batch")
			if tc.versioning != "" {
				c.PutVersioning(t, b, tc.versioning)
			}
			ids := map[string]string{}
			for _, k := range []string{"a", "b", "c", "d", "e"} {
				ids[k], _ = c.PutObject(t, b, k, "first "+k, nil)
			}
			if tc.versioning != "" {
				ids["e2"], _ = c.PutObject(t, b, "e", "second e", nil)
			}
			st := openStore(t, time.Now)
			proven := false
			if tc.checkCAS {
				finding, err := st.CheckCAS(ctx)
				switch {
				case server == itest.MinIO && errors.Is(err, s3store.ErrIfMatchIgnored):
				case err != nil:
					t.Fatalf("CheckCAS: %v", err)
				case !strings.Contains(finding, "and the ETag of a DeleteObjects entry"):
					t.Fatalf("CheckCAS = %q; want DeleteObjects' ETag proven", finding)
				default:
					proven = true
				}
			}
			objs, _, err := st.ListObjects(ctx, b, "", 100)
			if err != nil || len(objs) != 5 {
				t.Fatalf("ListObjects = %v, %v", objs, err)
			}
			var reqs []filer.DeleteRequest
			for _, o := range objs {
				req := filer.DeleteRequest{Bucket: b, Key: o.Key, Kind: lifecycle.ExpirationDays, RuleID: "r", Expected: o.Versions[0].Identity()}
				if o.Key == "e" && tc.versioning != "" {
					req.Kind, req.Expected = lifecycle.NoncurrentDays, o.Versions[1].Identity()
				}
				reqs = append(reqs, req)
			}
			ids["b2"], _ = c.PutObject(t, b, "b", "second b, longer", nil)
			rewrote := false
			outs, errs := s3store.DeleteBatched(t, st, reqs, func(bucket string, keys []string) {
				if !rewrote {
					rewrote = true
					ids["c2"], _ = c.PutObject(t, b, "c", "second c, longer", nil)
				}
			})
			if !rewrote {
				t.Fatal("no DeleteObjects was sent")
			}
			got := map[string]filer.Outcome{}
			for i, req := range reqs {
				if errs[i] != nil {
					t.Errorf("%s: %v", req.Key, errs[i])
				}
				got[req.Key] = outs[i]
			}
			cSurvives := server != itest.MinIO
			want := map[string]filer.Outcome{"a": filer.OutcomeDone, "b": filer.OutcomeNoopResolved, "c": filer.OutcomeNoopResolved,
				"d": filer.OutcomeDone, "e": filer.OutcomeDone}
			if !cSurvives {
				want["c"] = filer.OutcomeDone
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %s, want %s (CheckCAS proved DeleteObjects' ETag: %v)", k, got[k], w, proven)
				}
			}
			var left []string
			if tc.versioning == "" {
				left = []string{"b@null"}
				if cSurvives {
					left = append(left, "c@null")
				}
			} else {
				left = []string{"a@" + ids["a"], "a@*[DM]", "b@" + ids["b"], "b@" + ids["b2"], "c@" + ids["c"], "c@" + ids["c2"],
					"d@" + ids["d"], "d@*[DM]", "e@" + ids["e2"]}
				if !cSurvives {
					left = append(left, "c@*[DM]")
				}
			}
			assertLeft(t, c, b, left, []string{})
		})
	}
}
