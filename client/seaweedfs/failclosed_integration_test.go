//go:build integration

package seaweedfs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// runBuckets runs one pass over the named buckets' rules at runNow (exact
// due rounding) with the filer's clock as ServerNow, and returns the result
// whatever its status.
func runBuckets(t *testing.T, st *seaweedfs.Store, runNow time.Time, buckets ...string) *dailyrun.Result {
	t.Helper()
	res, n := passOver(t, st, runNow, engine.Options{Rounding: lifecycle.RoundExact}, func(name string) bool { return contains(buckets, name) })
	if n != len(buckets) {
		t.Fatalf("buckets %v: the filer lists %d of them", buckets, n)
	}
	return res
}

// passOver runs one pass over the rules of the buckets want selects, as
// ilmctl run compiles them (a rejected configuration is left out), and
// returns the result whatever its status, with how many buckets it
// compiled.
func passOver(t *testing.T, st *seaweedfs.Store, runNow time.Time, opts engine.Options, want func(bucket string) bool) (*dailyrun.Result, int) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bs, err := st.ListBuckets(c)
	if err != nil {
		t.Fatalf("list buckets: %v", err)
	}
	var eb []engine.Bucket
	for _, b := range bs {
		if b.LifecycleXML == "" || !want(b.Name) {
			continue
		}
		cfg, err := lifecycle.Parse([]byte(b.LifecycleXML))
		if err != nil {
			t.Logf("bucket %s: lifecycle rejected, left out as ilmctl run does: %v", b.Name, err)
			continue
		}
		eb = append(eb, engine.Bucket{Name: b.Name, Versioning: b.Versioning, ObjectLock: b.ObjectLock, Rules: cfg.Rules})
	}
	serverNow, err := st.ServerTime(c)
	if err != nil {
		t.Fatalf("filer clock: %v", err)
	}
	res, err := dailyrun.Run(c, dailyrun.Config{
		Store:     st,
		Snapshot:  engine.CompileWith(eb, opts).Snapshot(),
		RunNow:    runNow,
		ServerNow: serverNow,
		Clock:     time.Now,
		Retry:     dailyrun.RetryPolicy{Attempts: 2, Base: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatalf("pass: %v", err)
	}
	for _, a := range res.Actions {
		t.Logf("action %s %s/%s@%s%s %s -> %s %s", a.Source, a.Bucket, a.Key, a.VersionID, a.UploadID, a.Kind, a.Outcome, a.Err)
	}
	for _, s := range res.Shards {
		if s.Status != dailyrun.StatusOK {
			t.Logf("shard %d: %s: %s", s.Shard, s.Status, s.Err)
		}
	}
	return res, len(eb)
}

// Two entries, one version ID: a Suspended bucket where a completed
// multipart object k sits beside an older null delete marker in
// k.versions/v_null that the latest pointer names (what older SeaweedFS
// releases left behind). AWS would do nothing (the latest version is a
// delete marker); ilmctl cannot tell which entry "null" names, so it does
// nothing to k, reports it once, and every shard still ends ok.
func TestAmbiguousNullLayoutIsLeftAlone(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "ambiguous")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutVersioning(t, b, "Suspended")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))
	s3c.PutObject(t, b, "k", "first", nil)
	s3c.DeleteObject(t, b, "k")
	s3c.PutMultipart(t, b, "k", 5<<20, 1<<20)
	s3c.PutObject(t, b, "plain", "x", nil)
	c := context.Background()
	if err := st.PutLegacyNullMarker(c, b, "k", time.Now().Add(-5*day)); err != nil {
		t.Fatal(err)
	}
	if err := st.SetLatestVersionPointer(c, b, "k", filer.NullVersionID); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // undo the layout so the bucket can be removed through S3
		_ = st.SetLatestVersionPointer(c, b, "k", "")
		_ = st.RemoveVersionFile(c, b, "k", filer.NullVersionID)
	})
	itest.Backdate(t, st, b, "k", filer.NullVersionID, 3*day)
	itest.Backdate(t, st, b, "plain", filer.NullVersionID, 3*day)
	before, err := st.RawEntry(c, b, "k")
	if err != nil || before == nil {
		t.Fatalf("the bare object k: %v", err)
	}

	res := runBuckets(t, st, time.Now(), b)

	if res.Status() != dailyrun.StatusOK {
		t.Errorf("pass status %s: an ambiguous key must not halt anything", res.Status())
	}
	for _, a := range res.Actions {
		if a.Key == "k" {
			t.Errorf("an action was dispatched on the ambiguous key: %+v", a)
		}
	}
	if !contains(actionKeys(res), "plain") {
		t.Errorf("the unambiguous key next to it was not expired: %v", actionKeys(res))
	}
	if len(res.Notices) != 1 || res.Notices[0].Key != "k" || res.Notices[0].Kind != dailyrun.NoticeAmbiguousLayout ||
		!strings.Contains(res.Notices[0].Reason, "v_null") {
		t.Errorf("notices = %+v, want one ambiguous_layout for k naming v_null", res.Notices)
	}
	after, err := st.RawEntry(c, b, "k")
	if err != nil || after == nil {
		t.Fatalf("the completed multipart object k is gone: %v", err)
	}
	if after.GetAttributes().GetFileSize() != 6<<20 {
		t.Errorf("k is now %d bytes, want the 6 MiB object untouched", after.GetAttributes().GetFileSize())
	}

	// A delete prepared for the marker can never remove the object: the
	// identity the server compares tells the two entries apart.
	marker, err := st.RawVersion(c, b, "k", filer.NullVersionID)
	if err != nil {
		t.Fatal(err)
	}
	out, err := st.LifecycleDelete(c, filer.DeleteRequest{Bucket: b, Key: "k", Kind: lifecycle.NoncurrentDays, RuleID: "d1", Expected: marker.Identity()})
	if err != nil {
		t.Fatalf("LifecycleDelete: %v", err)
	}
	if again, err := st.RawEntry(c, b, "k"); err != nil || again == nil || again.GetAttributes().GetFileSize() != 6<<20 {
		t.Fatalf("a delete carrying the marker's identity (%s) removed the object: %v", out, err)
	}
}

func actionKeys(res *dailyrun.Result) []string {
	var out []string
	for _, a := range res.Actions {
		out = append(out, a.Key)
	}
	return out
}

// One bad key halts one shard, not sixteen: e/dang's latest pointer names
// a version that no longer exists. Its shard halts; every other shard
// finishes, and 32 due objects of an unrelated bucket are expired.
func TestDanglingPointerHaltsOneShard(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "dangling")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc(
		`<Rule><ID>e</ID><Status>Enabled</Status><Filter><Prefix>e/</Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>m</ID><Status>Enabled</Status><Filter><Prefix>m/</Prefix></Filter><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`))
	other := s3c.CreateBucket(t, "unrelated")
	s3c.PutLifecycleXML(t, other, lc(`<Rule><ID>o</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))

	v1, _ := s3c.PutObject(t, b, "e/dang", "x", nil)
	s3c.PutObject(t, b, "e/dang", "y", nil)
	badShard := lifecycle.ShardID(b, "e/dang")
	var keys []string
	for i := 0; len(keys) < 32; i++ {
		if k := fmt.Sprintf("o/%03d", i); lifecycle.ShardID(other, k) != badShard {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		s3c.PutObject(t, other, k, "due", nil)
		itest.Backdate(t, st, other, k, filer.NullVersionID, 3*day)
	}
	c := context.Background()
	if err := st.SetLatestVersionPointer(c, b, "e/dang", "0000000000000000deadbeefdeadbeef"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.SetLatestVersionPointer(c, b, "e/dang", "") })

	res := runBuckets(t, st, time.Now(), b, other)

	for _, s := range res.Shards {
		want := dailyrun.StatusOK
		if s.Shard == badShard {
			want = dailyrun.StatusHalted
		}
		if s.Status != want {
			t.Errorf("shard %d: %s (%s), want %s", s.Shard, s.Status, s.Err, want)
		}
		if s.Shard == badShard && !strings.Contains(fmt.Sprint(s.Err), "e/dang") {
			t.Errorf("the halted shard's error %q does not name the key", s.Err)
		}
	}
	vs, _ := s3c.ListAll(t, other)
	if len(vs) != 0 {
		t.Errorf("unrelated bucket still holds %d objects: %v", len(vs), vs)
	}
	_ = v1
}

// A cursor never runs ahead of the events it was given: a real pass dated
// three days after the filer's clock reads the meta-log only to the
// filer's time, so an object written (and aged) after it is still found
// by the next pass's replay.
func TestCursorBoundedByFilerClock(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "future")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))
	s3c.PutObject(t, b, "seed", "x", nil)
	if res := runBuckets(t, st, time.Now(), b); res.Status() != dailyrun.StatusOK { // cold start or rule edit: walk
		t.Fatalf("first pass: %s", res.Heartbeat())
	}
	res := runBuckets(t, st, time.Now().Add(3*day), b)
	serverNow, err := st.ServerTime(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Shards {
		if s.CursorSaved && s.Cursor.TsNs > serverNow.UnixNano() {
			t.Errorf("shard %d cursor saved at %s, after the filer's clock %s", s.Shard, time.Unix(0, s.Cursor.TsNs).UTC(), serverNow)
		}
	}
	s3c.PutObject(t, b, "late", "x", nil)
	itest.Backdate(t, st, b, "late", filer.NullVersionID, 3*day)
	runBuckets(t, st, time.Now(), b)
	vs, _ := s3c.ListAll(t, b)
	if contains(vs, "late@null") {
		t.Errorf("late@null survived: replay started after its events (left: %v)", vs)
	}
}
