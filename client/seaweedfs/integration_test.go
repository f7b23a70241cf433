//go:build integration

package seaweedfs_test

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

const day = 24 * time.Hour

// target opens the S3 client and the filer store under test.
func target(t *testing.T) (*itest.S3, *seaweedfs.Store, itest.FilerTarget) {
	t.Helper()
	ft := itest.FilerEnv(t)
	s3c := itest.FromEnv(t)
	return s3c, itest.OpenFiler(t, ft), ft
}

// pass runs one lifecycle pass over bucket's rules (exact due rounding,
// so days count from the backdated times) and fails t unless every shard
// ended ok.
func pass(t *testing.T, st *seaweedfs.Store, bucket string) *dailyrun.Result {
	t.Helper()
	res := runBuckets(t, st, time.Now(), bucket)
	if res.Status() != dailyrun.StatusOK {
		t.Fatalf("pass status %s (subscribe: %q)", res.Status(), res.SubscribeErr)
	}
	return res
}

var markerID = regexp.MustCompile(`@[^@]*\[DM\]$`)

// assertLeft compares what the bucket holds, through the S3 API and through
// the filer store, with want; delete markers whose IDs the test cannot know
// are written "key@*[DM]".
func assertLeft(t *testing.T, s3c *itest.S3, st filer.Store, bucket string, want, wantUploads []string) {
	t.Helper()
	norm := func(vs []string) []string {
		out := make([]string, len(vs)) // never nil: cmp tells nil from empty
		for i, v := range vs {
			out[i] = v
			if !contains(want, v) {
				out[i] = markerID.ReplaceAllString(v, "@*[DM]")
			}
		}
		sort.Strings(out)
		return out
	}
	want = append([]string{}, want...)
	sort.Strings(want)
	vs, ups := s3c.ListAll(t, bucket)
	if d := cmp.Diff(want, norm(vs)); d != "" {
		t.Errorf("S3 versions left (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantUploads, ups); d != "" {
		t.Errorf("S3 uploads left (-want +got):\n%s", d)
	}
	fvs, fups := itest.Left(t, st, bucket)
	if d := cmp.Diff(want, norm(fvs)); d != "" {
		t.Errorf("filer versions left (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantUploads, fups); d != "" {
		t.Errorf("filer uploads left (-want +got):\n%s", d)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func lc(rules ...string) string {
	return `<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + strings.Join(rules, "") + `</LifecycleConfiguration>`
}

func TestExpirationDaysVersioned(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "exp-days")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))
	oldV, _ := s3c.PutObject(t, b, "old", "x", nil)
	newV, _ := s3c.PutObject(t, b, "new", "y", nil)
	itest.Backdate(t, st, b, "old", oldV, 3*day)
	pass(t, st, b)
	assertLeft(t, s3c, st, b, []string{"new@" + newV, "old@" + oldV, "old@*[DM]"}, []string{})
}

func TestExpirationDateAndPrefix(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "exp-date")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>date</ID><Status>Enabled</Status><Filter><Prefix>old/</Prefix></Filter><Expiration><Date>2020-01-01T00:00:00Z</Date></Expiration></Rule>`))
	s3c.PutObject(t, b, "old/a", "x", nil)
	s3c.PutObject(t, b, "old/b/c", "x", nil)
	s3c.PutObject(t, b, "keep/a", "x", nil)
	s3c.PutObject(t, b, "old.txt", "x", nil)
	pass(t, st, b)
	assertLeft(t, s3c, st, b, []string{"keep/a@null", "old.txt@null"}, []string{})
}

func TestNoncurrentDays(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "noncur")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>nc</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`))
	v1, _ := s3c.PutObject(t, b, "k", "1", nil)
	v2, _ := s3c.PutObject(t, b, "k", "2", nil)
	v3, _ := s3c.PutObject(t, b, "k", "3", nil)
	itest.Backdate(t, st, b, "k", v1, 5*day)
	itest.BackdateNoncurrent(t, st, b, "k", v1, 3*day)
	// v2 became noncurrent just now: not due.
	pass(t, st, b)
	assertLeft(t, s3c, st, b, []string{"k@" + v2, "k@" + v3}, []string{})
}

func TestNewerNoncurrentVersions(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "newer-nc")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>keep1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`))
	var vs []string
	for _, body := range []string{"1", "2", "3", "4"} {
		v, _ := s3c.PutObject(t, b, "k", body, nil)
		vs = append(vs, v)
	}
	for _, v := range vs[:3] {
		itest.BackdateNoncurrent(t, st, b, "k", v, 3*day)
	}
	pass(t, st, b)
	// The newest noncurrent (vs[2]) is retained, older ones expire.
	assertLeft(t, s3c, st, b, []string{"k@" + vs[2], "k@" + vs[3]}, []string{})
}

func TestExpiredObjectDeleteMarker(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "edm")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>edm</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`))
	v1, _ := s3c.PutObject(t, b, "lone", "x", nil)
	s3c.DeleteObject(t, b, "lone")
	itest.DeleteObjectVersion(t, s3c, b, "lone", v1)
	k1, _ := s3c.PutObject(t, b, "kept", "x", nil)
	dm := s3c.DeleteObject(t, b, "kept")
	pass(t, st, b)
	assertLeft(t, s3c, st, b, []string{"kept@" + dm + "[DM]", "kept@" + k1}, []string{})
}

func TestAbortMPU(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "mpu")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>mpu</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`))
	stale := s3c.CreateMultipartUpload(t, b, "big/stale")
	fresh := s3c.CreateMultipartUpload(t, b, "big/fresh")
	itest.BackdateUpload(t, st, b, stale, 3*day)
	pass(t, st, b)
	assertLeft(t, s3c, st, b, []string{}, []string{"big/fresh#" + fresh})
}

func TestTagSizeAndFilters(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "filters")
	s3c.PutLifecycleXML(t, b, lc(
		`<Rule><ID>and</ID><Status>Enabled</Status><Filter><And><Prefix>logs/</Prefix><Tag><Key>env</Key><Value>dev</Value></Tag><ObjectSizeGreaterThan>3</ObjectSizeGreaterThan></And></Filter><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>tag</ID><Status>Enabled</Status><Filter><Tag><Key>tmp</Key><Value>yes</Value></Tag></Filter><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>size</ID><Status>Enabled</Status><Filter><ObjectSizeLessThan>2</ObjectSizeLessThan></Filter><Expiration><Days>1</Days></Expiration></Rule>`,
	))
	dev := map[string]string{"env": "dev"}
	objs := []struct {
		key, body string
		tags      map[string]string
	}{
		{"logs/big-dev", "hello", dev},                               // And: expires
		{"logs/small-dev", "hey", dev},                               // And: size 3 is not > 3
		{"logs/big-prod", "hello", map[string]string{"env": "prod"}}, // And: wrong tag
		{"other/big-dev", "hello", dev},                              // And: wrong prefix
		{"t/tmp", "hello", map[string]string{"tmp": "yes"}},          // tag rule: expires
		{"s/one", "1", nil},                                          // size rule: expires
	}
	for _, o := range objs {
		s3c.PutObject(t, b, o.key, o.body, o.tags)
		itest.Backdate(t, st, b, o.key, "null", 3*day)
	}
	pass(t, st, b)
	assertLeft(t, s3c, st, b, []string{"logs/big-prod@null", "logs/small-dev@null", "other/big-dev@null"}, []string{})
}

func TestSuspendedVersioning(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "suspended")
	s3c.PutVersioning(t, b, "Enabled")
	v1, _ := s3c.PutObject(t, b, "k", "1", nil)
	s3c.PutVersioning(t, b, "Suspended")
	s3c.PutObject(t, b, "k", "2", nil) // the null version, now latest
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))
	itest.Backdate(t, st, b, "k", "null", 3*day)
	pass(t, st, b)
	// Expiring the null latest under Suspended removes the null version
	// and adds a delete marker; v1 stays noncurrent. (AWS names that
	// marker "null"; SeaweedFS's createDeleteMarker gives it a fresh ID.)
	assertLeft(t, s3c, st, b, []string{"k@" + v1, "k@*[DM]"}, []string{})
}

func TestObjectLockSkip(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateLockedBucket(t, "locked")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>nc</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`))
	held, _ := s3c.PutObject(t, b, "held", "1", nil)
	s3c.PutLegalHold(t, b, "held", held, true)
	t.Cleanup(func() { // before the bucket's own cleanup, which cannot delete a held version
		_, err := s3c.C.PutObjectLegalHold(context.Background(), &s3.PutObjectLegalHoldInput{
			Bucket: aws.String(b), Key: aws.String("held"), VersionId: aws.String(held),
			LegalHold: &s3types.ObjectLockLegalHold{Status: s3types.ObjectLockLegalHoldStatusOff},
		})
		if err != nil {
			t.Logf("release legal hold: %v", err)
		}
	})
	heldNew, _ := s3c.PutObject(t, b, "held", "2", nil)
	free, _ := s3c.PutObject(t, b, "free", "1", nil)
	freeNew, _ := s3c.PutObject(t, b, "free", "2", nil)
	itest.BackdateNoncurrent(t, st, b, "held", held, 3*day)
	itest.BackdateNoncurrent(t, st, b, "free", free, 3*day)
	res := pass(t, st, b)
	skipped := 0
	for _, a := range res.Actions {
		if a.Key == "held" && a.Outcome == filer.OutcomeSkippedObjectLock {
			skipped++
		}
	}
	if skipped == 0 {
		t.Errorf("no SKIPPED_OBJECT_LOCK action for the held version")
	}
	assertLeft(t, s3c, st, b, []string{"free@" + freeNew, "held@" + held, "held@" + heldNew}, []string{})
}

// TestOverwrittenBeforeDelete: a version looked up (as replay does on its
// event), then overwritten before the delete lands, must survive: the
// delete carries the looked-up identity and resolves as NOOP.
func TestOverwrittenBeforeDelete(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "overwrite")
	s3c.PutObject(t, b, "k", "old", nil)
	itest.Backdate(t, st, b, "k", "null", 3*day)
	c := context.Background()
	obj, found, err := st.LookupObject(c, b, "k")
	if err != nil || !found {
		t.Fatalf("lookup: found=%v err=%v", found, err)
	}
	s3c.PutObject(t, b, "k", "new!", nil)
	out, err := st.LifecycleDelete(c, filer.DeleteRequest{Bucket: b, Key: "k", Kind: lifecycle.ExpirationDays, RuleID: "r", Expected: obj.Versions[0].Identity()})
	if err != nil {
		t.Fatalf("LifecycleDelete: %v", err)
	}
	if out != filer.OutcomeNoopResolved {
		t.Errorf("outcome %s, want NOOP_RESOLVED", out)
	}
	// The same request against the live identity deletes.
	obj, _, err = st.LookupObject(c, b, "k")
	if err != nil {
		t.Fatal(err)
	}
	out, err = st.LifecycleDelete(c, filer.DeleteRequest{Bucket: b, Key: "k", Kind: lifecycle.ExpirationDays, RuleID: "r", Expected: obj.Versions[0].Identity()})
	if err != nil || out != filer.OutcomeDone {
		t.Fatalf("delete of the live version: %s %v", out, err)
	}
	assertLeft(t, s3c, st, b, []string{}, []string{})
}

// TestRetaggedBeforeDelete: a version listed, then retagged (its Extended
// map alone changes: same mtime, size and chunks), must survive a delete
// planned from the listing; the store token carries the listed Extended
// hash, so the server sees the change.
func TestRetaggedBeforeDelete(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "retag")
	s3c.PutVersioning(t, b, "Enabled")
	v1, _ := s3c.PutObject(t, b, "k", "old", map[string]string{"tmp": "yes"})
	v2, _ := s3c.PutObject(t, b, "k", "new", nil)
	c := context.Background()
	objs, _, err := st.ListObjects(c, b, "", 10)
	if err != nil || len(objs) != 1 || len(objs[0].Versions) != 2 || objs[0].Versions[1].VersionID != v1 {
		t.Fatalf("listing: %+v, %v", objs, err)
	}
	listed := objs[0].Versions[1]
	_, err = s3c.C.PutObjectTagging(c, &s3.PutObjectTaggingInput{
		Bucket: aws.String(b), Key: aws.String("k"), VersionId: aws.String(v1),
		Tagging: &s3types.Tagging{TagSet: []s3types.Tag{{Key: aws.String("tmp"), Value: aws.String("no")}}},
	})
	if err != nil {
		t.Fatalf("retag: %v", err)
	}
	obj, _, err := st.LookupObject(c, b, "k")
	if err != nil {
		t.Fatal(err)
	}
	if live := obj.Versions[1]; live.MtimeNs != listed.MtimeNs || live.Size != listed.Size || live.ETag != listed.ETag {
		t.Fatalf("the retag changed more than the Extended map: listed %+v, live %+v", listed, live)
	}
	req := filer.DeleteRequest{Bucket: b, Key: "k", Kind: lifecycle.NoncurrentDays, RuleID: "tmp", Expected: listed.Identity()}
	if out, err := st.LifecycleDelete(c, req); err != nil || out != filer.OutcomeNoopResolved {
		t.Fatalf("delete with the pre-retag identity: %s %v, want NOOP_RESOLVED", out, err)
	}
	assertLeft(t, s3c, st, b, []string{"k@" + v1, "k@" + v2}, []string{})
	// With the identity read after the retag the same delete goes through.
	req.Expected = obj.Versions[1].Identity()
	if out, err := st.LifecycleDelete(c, req); err != nil || out != filer.OutcomeDone {
		t.Fatalf("delete with the live identity: %s %v, want DONE", out, err)
	}
	assertLeft(t, s3c, st, b, []string{"k@" + v2}, []string{})
}

// TestReplayDeletes: after a first pass (cold start), an object aged later
// is expired by replaying its meta-log event, not by a walk.
func TestReplayDeletes(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "replay")
	s3c.PutVersioning(t, b, "Enabled")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))
	v, _ := s3c.PutObject(t, b, "k", "x", nil)
	pass(t, st, b) // recovery walk: nothing due
	pass(t, st, b) // replay up to now
	itest.Backdate(t, st, b, "k", v, 3*day)
	res := pass(t, st, b)
	replayed := false
	for _, a := range res.Actions {
		replayed = replayed || (a.Source == "replay" && a.Key == "k" && a.Outcome == filer.OutcomeDone)
	}
	if !replayed {
		t.Errorf("k was not expired by replay")
	}
	assertLeft(t, s3c, st, b, []string{"k@" + v, "k@*[DM]"}, []string{})
}

// TestCursorsInterop: cursors ilmctl writes are read by SeaweedFS's
// s3.lifecycle.run-shard as a rule edit (they carry ilmctl's own hashes:
// its shards name other events, docs/design/daily-run.md#seaweedfs-cursors),
// so the worker walks and saves its own; and ilmctl takes the sixteen the
// worker saved over on unchanged rules without a recovery walk.
// cmd/ilmctl's TestTakeoverWithSeaweedFSWorker takes over each way after
// a pass stopped part-way.
func TestCursorsInterop(t *testing.T) {
	s3c, st, ft := target(t)
	b := s3c.CreateBucket(t, "cursors")
	s3c.PutLifecycleXML(t, b, lc(`<Rule><ID>d1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>`))
	s3c.PutObject(t, b, "k", "x", nil)
	passAll(t, st)
	c := context.Background()
	ours := map[int]dailyrun.Cursor{}
	for shard := range lifecycle.ShardCount {
		cur, found, err := dailyrun.LoadCursor(c, st, shard)
		if err != nil || !found || !cur.Own.Present {
			t.Fatalf("ilmctl cursor %d: found=%v err=%v %+v", shard, found, err, cur)
		}
		ours[shard] = cur
	}
	out := itest.WeedShell(t, ft, "s3.lifecycle.run-shard -shards 0-15 -s3 "+ft.S3GRPC+" -events 0 -runtime 60s", 2*time.Minute)
	t.Logf("weed shell:\n%s", out)
	if !strings.Contains(out, "cursors checkpointed") {
		t.Fatalf("run-shard did not complete")
	}
	for shard := range lifecycle.ShardCount {
		cur, found, err := dailyrun.LoadCursor(c, st, shard)
		switch {
		case err != nil || !found:
			t.Errorf("cursor %d after run-shard: found=%v err=%v", shard, found, err)
		case cur.Own.Present:
			t.Errorf("cursor %d: SeaweedFS's worker saved ilmctl's own hashes back; is it still the worker's file?", shard)
		case cur.RuleSetHash == ours[shard].RuleSetHash:
			t.Errorf("cursor %d: SeaweedFS's worker kept ilmctl's hash (%x): it replayed from a cursor whose shard is not its own", shard, cur.RuleSetHash[:6])
		}
	}
	for _, s := range passAll(t, st).Shards {
		if s.Recovery != "" || s.Walk == "recovery" {
			t.Errorf("shard %d after run-shard: recovery %q walk %q", s.Shard, s.Recovery, s.Walk)
		}
	}
}

// passAll runs one pass over every bucket on the server, as `ilmctl run`
// and SeaweedFS's worker do, with SeaweedFS's semantics (exact due
// rounding, expired object delete markers kept), and fails t unless every
// shard ended ok.
func passAll(t *testing.T, st *seaweedfs.Store) *dailyrun.Result {
	t.Helper()
	res, _ := passOver(t, st, time.Now(), engine.Options{Rounding: lifecycle.RoundExact, ExpiredMarkers: lifecycle.ExpiredMarkersKeep},
		func(string) bool { return true })
	if res.Status() != dailyrun.StatusOK {
		t.Fatalf("pass status %s (subscribe: %q)", res.Status(), res.SubscribeErr)
	}
	return res
}

// TestListingOrder: ListObjects pages through nested keys in S3 byte
// order, including a key that is also a prefix of other keys.
func TestListingOrder(t *testing.T) {
	s3c, st, _ := target(t)
	b := s3c.CreateBucket(t, "order")
	want := []string{"a", "a-c", "a.txt", "a/b", "a/b/c", "b"}
	for _, k := range []string{"a/b/c", "b", "a.txt", "a", "a-c", "a/b"} {
		s3c.PutObject(t, b, k, "x", nil)
	}
	for _, limit := range []int{1, 2, 100} {
		var got []string
		after := ""
		for {
			objs, next, err := st.ListObjects(context.Background(), b, after, limit)
			if err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			for _, o := range objs {
				got = append(got, o.Key)
			}
			if next == "" {
				break
			}
			after = next
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("limit %d (-want +got):\n%s", limit, d)
		}
	}
	for _, k := range want {
		if _, found, err := st.LookupObject(context.Background(), b, k); err != nil || !found {
			t.Errorf("LookupObject(%s): found=%v err=%v", k, found, err)
		}
	}
}
