//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// takeoverReport is the part of `ilmctl run -o json` the takeover test
// reads.
type takeoverReport struct {
	Status string `json:"status"`
	Shards []struct {
		Shard    int    `json:"shard"`
		Status   string `json:"status"`
		Error    string `json:"error"`
		Recovery string `json:"recovery"`
		Walk     string `json:"walk"`
	} `json:"shards"`
}

// takeoverRules is every bucket's lifecycle in the takeover test: replay
// kinds only (walks of other kinds would find what replay skipped and hide
// it), days counted from backdated stamps.
const takeoverRules = lc +
	`<Rule><ID>exp</ID><Filter><Prefix>e/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
	`<Rule><ID>nc</ID><Filter><Prefix>n/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
	`<Rule><ID>mpu</ID><Filter><Prefix>u/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
	`</LifecycleConfiguration>`

// takeoverSeed is what seedTakeover wrote into one bucket: for each due
// object, the filer paths whose meta-log events carry its due work.
type takeoverSeed struct {
	bucket string
	due    map[string][]string // key -> event paths
}

const takeoverObjects = 8 // per prefix

// seedTakeover writes the test's objects into a versioned bucket: n/NN
// with two versions, the older one's noncurrent stamp backdated (due:
// NoncurrentDays); then e/NN with one version, its mtime backdated (due:
// Expiration Days); then k/NN and an upload x/up that no rule selects.
//
// Nothing is due later: a match not yet due holds its shard's cursor
// before it, and the cursors must move past the events the test is about.
// SeaweedFS's worker, though, schedules Expiration Days from the PUT
// event's own entry (weed/s3api/s3lifecycle/router/router.go,
// routeVersionFileExpiration), dated now, so each e/ PUT holds its shard
// there for a day; the n/ objects come first so that its cursors pass
// their events.
func seedTakeover(t *testing.T, s3c *itest.S3, ft itest.FilerTarget, bucket string) takeoverSeed {
	t.Helper()
	st := itest.OpenFiler(t, ft)
	seed := takeoverSeed{bucket: bucket, due: map[string][]string{}}
	for i := range takeoverObjects {
		n := fmt.Sprintf("n/%02d", i)
		v1, _ := s3c.PutObject(t, bucket, n, "n1-"+n, nil)
		s3c.PutObject(t, bucket, n, "n2-"+n, nil)
		itest.BackdateNoncurrent(t, st, bucket, n, v1, 3*24*time.Hour)
		seed.due[n] = []string{n + ".versions", n + ".versions/v_" + v1}
	}
	for i := range takeoverObjects {
		e := fmt.Sprintf("e/%02d", i)
		v, _ := s3c.PutObject(t, bucket, e, "e-"+e, nil)
		itest.Backdate(t, st, bucket, e, v, 3*24*time.Hour)
		seed.due[e] = []string{e + ".versions/v_" + v}
	}
	for i := range takeoverObjects {
		k := fmt.Sprintf("k/%02d", i)
		s3c.PutObject(t, bucket, k, "k-"+k, nil)
	}
	s3c.CreateMultipartUpload(t, bucket, "x/up")
	return seed
}

// wantAfterTakeover is a seeded bucket once every due action is done:
// each e/ key gains a delete marker over its version, each n/ key loses
// its noncurrent version, the rest stays.
func wantAfterTakeover() []string {
	var out []string
	for i := range takeoverObjects {
		e, n, k := fmt.Sprintf("e/%02d", i), fmt.Sprintf("n/%02d", i), fmt.Sprintf("k/%02d", i)
		out = append(out, e+" latest [DM]", e+" noncurrent e-"+e, n+" latest n2-"+n, k+" latest k-"+k)
	}
	out = append(out, "x/up upload")
	sort.Strings(out)
	return out
}

// contents lists bucket by what two buckets seeded alike can share (not
// version IDs): each version as "key latest|noncurrent body", a delete
// marker as "key latest|noncurrent [DM]", each upload as "key upload".
func contents(t *testing.T, s3c *itest.S3, bucket string) []string {
	t.Helper()
	c := context.Background()
	var out []string
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)}
	for {
		page, err := s3c.C.ListObjectVersions(c, in)
		if err != nil {
			t.Fatalf("list %s: %v", bucket, err)
		}
		pos := func(latest *bool) string {
			if aws.ToBool(latest) {
				return "latest"
			}
			return "noncurrent"
		}
		for _, v := range page.Versions {
			body, err := s3c.C.GetObject(c, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: v.Key, VersionId: v.VersionId})
			if err != nil {
				t.Fatalf("get %s/%s@%s: %v", bucket, aws.ToString(v.Key), aws.ToString(v.VersionId), err)
			}
			data, err := io.ReadAll(body.Body)
			body.Body.Close()
			if err != nil {
				t.Fatalf("read %s/%s: %v", bucket, aws.ToString(v.Key), err)
			}
			out = append(out, aws.ToString(v.Key)+" "+pos(v.IsLatest)+" "+string(data))
		}
		for _, m := range page.DeleteMarkers {
			out = append(out, aws.ToString(m.Key)+" "+pos(m.IsLatest)+" [DM]")
		}
		if !aws.ToBool(page.IsTruncated) {
			break
		}
		in.KeyMarker, in.VersionIdMarker = page.NextKeyMarker, page.NextVersionIdMarker
	}
	ups, err := s3c.C.ListMultipartUploads(c, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("list uploads of %s: %v", bucket, err)
	}
	for _, u := range ups.Uploads {
		out = append(out, aws.ToString(u.Key)+" upload")
	}
	sort.Strings(out)
	return out
}

// TestTakeoverWithSeaweedFSWorker: SeaweedFS's own worker
// (weed shell s3.lifecycle.run-shard) and ilmctl hand the cursors over to
// each other on unchanged rules, each after the other stopped part-way, on
// half the shards, skip no due delete, and leave what an uninterrupted
// SeaweedFS pass leaves. The two tools' shards name different events
// (SeaweedFS's by filer path, ilmctl's by key), so the handover costs
// what docs/design/daily-run.md#seaweedfs-cursors says: ilmctl takes the
// worker's sixteen cursors over as a plain replay from the oldest of them,
// with no walk; the worker reads ilmctl's as a rule edit and walks.
//
// Four buckets get the same rules up front, so the rule set, and the
// hashes in the cursors, stay the same throughout; ref1 and ref2 are
// seeded and expired by a whole SeaweedFS pass, sub1 and sub2 alike by the
// interrupted one and the taker-over. The seeds have due objects whose key
// and whose meta-log events shard differently, which a taker-over that
// read the other tool's cursor as its own shard's would skip.
func TestTakeoverWithSeaweedFSWorker(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "it hands shards over between ilmctl and SeaweedFS's own lifecycle worker")
	ft := itest.FilerEnv(t)
	s3c := itest.FromEnv(t)
	st := itest.OpenFiler(t, ft)
	low := func(s int) bool { return s < lifecycle.ShardCount/2 }
	high := func(s int) bool { return !low(s) }
	// sub1 needs a due object whose key is in shards 0-7 and an event in
	// 8-15, sub2 the other way round. An n/ key's events include its
	// .versions directory, whose path (unlike a version's) is known
	// before the seed, so the bucket's name is drawn until one n/ key
	// crosses: a random name alone misses about one run in 400.
	crossesBy := func(keyShards, eventShards func(int) bool) func(string) bool {
		return func(bucket string) bool {
			for i := range takeoverObjects {
				n := fmt.Sprintf("n/%02d", i)
				if keyShards(lifecycle.ShardID(bucket, n)) && eventShards(lifecycle.ShardID(bucket, n+".versions")) {
					return true
				}
			}
			return false
		}
	}
	where := map[string]func(string) bool{"sub1": crossesBy(low, high), "sub2": crossesBy(high, low)}
	buckets := map[string]string{}
	for _, name := range []string{"ref1", "sub1", "ref2", "sub2"} {
		ok := where[name]
		if ok == nil {
			ok = func(string) bool { return true }
		}
		b := s3c.CreateBucketWhere(t, "takeover-"+name, ok)
		s3c.PutVersioning(t, b, "Enabled")
		s3c.PutLifecycleXML(t, b, takeoverRules)
		buckets[name] = b
	}
	// SeaweedFS's worker keeps expired object delete markers and counts
	// days unrounded; these flags make ilmctl do the same work, so that a
	// cursor it saved covers the worker's and the other way round.
	ilmctlPass := func(what string, extra ...string) takeoverReport {
		t.Helper()
		args := append([]string{"run", "--filer", "seaweedfs://" + ft.Filer, "--s3-grpc", ft.S3GRPC, "-runtime", "3m", "-o", "json",
			"--due-rounding", "exact", "--expired-marker-days", "keep"}, extra...)
		stdout, stderr, code := execute(t, args...)
		if code != 0 {
			t.Fatalf("%s: ilmctl run exit %d\n%s\n%s", what, code, stderr, stdout)
		}
		var rep takeoverReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%s: report: %v\n%s", what, err, stdout)
		}
		return rep
	}
	noRecovery := func(what string, rep takeoverReport) {
		t.Helper()
		for _, s := range rep.Shards {
			if s.Recovery != "" || s.Walk == "recovery" || s.Status != "ok" {
				t.Errorf("%s: shard %d: status %s recovery %q walk %q %s", what, s.Shard, s.Status, s.Recovery, s.Walk, s.Error)
			}
		}
	}
	weedPass := func(shards string) {
		t.Helper()
		out := itest.WeedShell(t, ft, "s3.lifecycle.run-shard -shards "+shards+" -s3 "+ft.S3GRPC+" -events 0 -runtime 90s", 3*time.Minute)
		if !strings.Contains(out, "cursors checkpointed") {
			t.Fatalf("run-shard -shards %s did not complete:\n%s", shards, out)
		}
	}
	// crossing reports the due keys of seed whose key is in a shard of
	// keyShards while an event carrying its due work is in one of
	// eventShards: the objects a key-sharded taker-over would skip.
	crossing := func(seed takeoverSeed, keyShards, eventShards func(int) bool) []string {
		var out []string
		for key, paths := range seed.due {
			if !keyShards(lifecycle.ShardID(seed.bucket, key)) {
				continue
			}
			for _, p := range paths {
				if eventShards(lifecycle.ShardID(seed.bucket, p)) {
					out = append(out, key)
					break
				}
			}
		}
		sort.Strings(out)
		return out
	}
	want := wantAfterTakeover()

	// New buckets are a rule edit for any cursor on the server: the
	// worker's recovery walk, after which ilmctl already replays from
	// the worker's cursors.
	weedPass("0-15")
	noRecovery("ilmctl after a whole SeaweedFS pass", ilmctlPass("warm-up"))

	// SeaweedFS stopped part-way, then ilmctl.
	seedTakeover(t, s3c, ft, buckets["ref1"])
	weedPass("0-15")
	sub1 := seedTakeover(t, s3c, ft, buckets["sub1"])
	if c := crossing(sub1, low, high); len(c) == 0 {
		t.Fatalf("no due object of %s has its key in shards 0-7 and an event in 8-15; the test needs one", sub1.bucket)
	} else {
		t.Logf("due, key in shards 0-7, an event in 8-15: %v", c)
	}
	weedPass("0-7")
	if got := contents(t, s3c, buckets["sub1"]); cmp.Equal(got, want) {
		t.Fatalf("SeaweedFS's pass over shards 0-7 left nothing due in %s: the test needs it to stop part-way", sub1.bucket)
	}
	noRecovery("ilmctl taking over from SeaweedFS stopped part-way", ilmctlPass("after run-shard 0-7"))
	ref1 := contents(t, s3c, buckets["ref1"])
	if d := cmp.Diff(want, ref1); d != "" {
		t.Errorf("an uninterrupted SeaweedFS pass left in ref1 (-want +got):\n%s", d)
	}
	if d := cmp.Diff(ref1, contents(t, s3c, buckets["sub1"])); d != "" {
		t.Errorf("SeaweedFS over shards 0-7, then ilmctl, left in sub1 what an uninterrupted SeaweedFS pass did not (-ref1 +sub1):\n%s", d)
	}

	// ilmctl stopped part-way, then SeaweedFS.
	seedTakeover(t, s3c, ft, buckets["ref2"])
	weedPass("0-15")
	noRecovery("ilmctl after a whole SeaweedFS pass", ilmctlPass("cursors back to ilmctl"))
	sub2 := seedTakeover(t, s3c, ft, buckets["sub2"])
	if c := crossing(sub2, high, low); len(c) == 0 {
		t.Fatalf("no due object of %s has its key in shards 8-15 and an event in 0-7; the test needs one", sub2.bucket)
	} else {
		t.Logf("due, key in shards 8-15, an event in 0-7: %v", c)
	}
	noRecovery("ilmctl over shards 0-7", ilmctlPass("--shards 0-7", "--shards", "0-7"))
	if got := contents(t, s3c, buckets["sub2"]); cmp.Equal(got, want) {
		t.Fatalf("ilmctl's pass over shards 0-7 left nothing due in %s: the test needs it to stop part-way", sub2.bucket)
	}
	before := loadCursors(t, st)
	for shard, c := range before {
		if !c.Own.Present || !c.Own.ByKey || c.RuleSetHash != c.Own.RuleSet {
			t.Fatalf("shard %d: ilmctl saved a cursor the worker would replay from: %+v", shard, c)
		}
	}
	weedPass("0-15")
	after := loadCursors(t, st)
	for shard := range lifecycle.ShardCount {
		b, a := before[shard], after[shard]
		// The worker reads ilmctl's hashes as a rule edit: its recovery
		// walk, after which it saves its own hashes without ilmctl's.
		if a.RuleSetHash == b.RuleSetHash || a.Own.Present {
			t.Errorf("shard %d: SeaweedFS's worker replayed from ilmctl's cursor: rule_set_hash %x -> %x, ilmctl hashes kept %v",
				shard, b.RuleSetHash[:6], a.RuleSetHash[:6], a.Own.Present)
		}
	}
	ref2 := contents(t, s3c, buckets["ref2"])
	if d := cmp.Diff(want, ref2); d != "" {
		t.Errorf("an uninterrupted SeaweedFS pass left in ref2 (-want +got):\n%s", d)
	}
	if d := cmp.Diff(ref2, contents(t, s3c, buckets["sub2"])); d != "" {
		t.Errorf("ilmctl over shards 0-7, then SeaweedFS, left in sub2 what an uninterrupted SeaweedFS pass did not (-ref2 +sub2):\n%s", d)
	}
}
