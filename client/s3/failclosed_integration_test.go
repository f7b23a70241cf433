//go:build integration

package s3_test

import (
	"context"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/itest"
	"github.com/ilmctl/ilmctl/render"
)

// The layout older SeaweedFS releases left behind, seen through S3: a
// Suspended bucket whose key k holds a completed multipart object beside a
// null delete marker in k.versions/v_null that the latest pointer names.
// The gateway lists k as one null version that is not IsLatest; a pass
// over s3:// must not delete the object: the key is left alone and
// reported, and every other key is processed.
func TestAmbiguousNullLayoutOnS3(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "the layout is written through the SeaweedFS filer behind the gateway")
	c := itest.FromEnv(t)
	fs := itest.OpenFiler(t, itest.FilerEnv(t))
	ctx := context.Background()
	b := c.CreateBucket(t, "s3-ambiguous")
	c.PutVersioning(t, b, "Enabled")
	c.PutVersioning(t, b, "Suspended")
	c.PutLifecycleXML(t, b, lifecycleXML(`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))
	c.PutObject(t, b, "k", "first", nil)
	c.DeleteObject(t, b, "k")
	c.PutMultipart(t, b, "k", 5<<20, 1<<20)
	c.PutObject(t, b, "plain", "x", nil)
	if err := fs.PutLegacyNullMarker(ctx, b, "k", time.Now().Add(-5*day)); err != nil {
		t.Fatal(err)
	}
	if err := fs.SetLatestVersionPointer(ctx, b, "k", filer.NullVersionID); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = fs.SetLatestVersionPointer(ctx, b, "k", "")
		_ = fs.RemoveVersionFile(ctx, b, "k", filer.NullVersionID)
	})
	for _, k := range []string{"k", "plain"} {
		if err := fs.SetVersionMtime(ctx, b, k, filer.NullVersionID, time.Now().Add(-3*day)); err != nil {
			t.Fatal(err)
		}
	}

	vs, _ := c.ListAll(t, b)
	t.Logf("the gateway lists: %v", vs)
	rep, err := runPassErr(t, time.Now(), t.TempDir())
	if err != nil {
		t.Errorf("pass: %v", err)
	}

	if rep.Status != dailyrun.StatusOK.String() {
		t.Errorf("status %s: an ambiguous key must not halt anything", rep.Status)
	}
	for _, a := range rep.Actions {
		if a.Bucket == b && a.Key == "k" && a.Outcome == "DONE" {
			t.Errorf("a delete on the ambiguous key was done: %+v", a)
		}
	}
	if got := outcomes(rep, b)["DONE"]; got != 1 {
		t.Errorf("%d DONE in %s, want 1 (plain)", got, b)
	}
	e, err := fs.RawEntry(ctx, b, "k")
	if err != nil || e == nil || e.GetAttributes().GetFileSize() != 6<<20 {
		t.Fatalf("the completed 6 MiB object k did not survive: %v %v", e, err)
	}
	var keyNotices []render.NoticeReport
	for _, n := range rep.Notices {
		if n.Kind != dailyrun.NoticeConditionalDeleteUnproven.String() {
			keyNotices = append(keyNotices, n)
		}
	}
	if rep.AmbiguousKeys != 1 || len(keyNotices) != 1 || keyNotices[0].Key != "k" || keyNotices[0].Kind != "ambiguous_layout" {
		t.Errorf("notices = %+v (ambiguous_keys %d), want one ambiguous_layout for k", rep.Notices, rep.AmbiguousKeys)
	}
}
