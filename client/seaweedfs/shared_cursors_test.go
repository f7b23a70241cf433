package seaweedfs

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"github.com/seaweedfs/seaweedfs/weed/s3api/lifecycle_xml"
	swengine "github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle/engine"
	"github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle/reader"
	"github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle/scheduler"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// streamClient serves one SubscribeMetadata stream of canned responses;
// every other SeaweedFiler method is unimplemented (nil embedded client).
type streamClient struct {
	filer_pb.SeaweedFilerClient
	resps []*filer_pb.SubscribeMetadataResponse
}

func (c *streamClient) SubscribeMetadata(context.Context, *filer_pb.SubscribeMetadataRequest, ...grpc.CallOption) (grpc.ServerStreamingClient[filer_pb.SubscribeMetadataResponse], error) {
	return &cannedStream{resps: c.resps}, nil
}

type cannedStream struct {
	grpc.ClientStream
	resps []*filer_pb.SubscribeMetadataResponse
}

func (s *cannedStream) Recv() (*filer_pb.SubscribeMetadataResponse, error) {
	if len(s.resps) == 0 {
		return nil, io.EOF
	}
	r := s.resps[0]
	s.resps = s.resps[1:]
	return r, nil
}

// Every event carries the filer path SeaweedFS's own reader
// (weed/s3api/s3lifecycle/reader) shards it by, for every path shape:
// version files, .versions directories, null versions, uploads, nested
// keys; and ilmctl replays it in its key's shard, which for many events is
// another (see dailyrun.SharedCursors for what that costs a takeover).
func TestEventPathIsSeaweedFSReaderShard(t *testing.T) {
	var resps []*filer_pb.SubscribeMetadataResponse
	add := func(dir string, oldE, newE *filer_pb.Entry) {
		resps = append(resps, &filer_pb.SubscribeMetadataResponse{Directory: dir, TsNs: int64(len(resps) + 1),
			EventNotification: &filer_pb.EventNotification{OldEntry: oldE, NewEntry: newE}})
	}
	for i := range 40 {
		key := fmt.Sprintf("k%02d", i)
		parent := "/buckets/b"
		if i%3 == 0 {
			parent, key = "/buckets/b/a/b", "a/b/"+key
		}
		name := key[len(key)-3:]
		id := fmt.Sprintf("67134f1d04c4dd%02daaaaaaaaaaaaaaaa", i)
		add(parent+"/"+name+".versions", nil, file("v_"+id, 1, nil))
		add(parent+"/"+name+".versions", file("v_"+id, 1, nil), file("v_"+id, 1, map[string]string{extNoncurrentSinceNs: "9"}))
		add(parent, dir(name+".versions", map[string]string{extLatestVersionID: idOld}), dir(name+".versions", map[string]string{extLatestVersionID: id}))
		add(parent+"/"+name+".versions", file("v_"+id, 1, nil), nil)
		add(parent, nil, file(name, 1, nil))
		add(parent, file(name, 1, nil), nil)
		up := fmt.Sprintf("u%02d", i)
		add("/buckets/b/.uploads", nil, dir(up, map[string]string{extMultipartObjectKey: key}))
		add("/buckets/b/.uploads", dir(up, map[string]string{extMultipartObjectKey: key}), nil)
	}

	events := make(chan *reader.Event, len(resps))
	rd := &reader.Reader{ShardPredicate: func(int) bool { return true }, BucketsPath: "/buckets", Events: events}
	if err := rd.Run(context.Background(), &streamClient{resps: resps}, "test", 1); err != nil {
		t.Fatalf("SeaweedFS reader: %v", err)
	}
	close(events)
	theirs := map[int64]*reader.Event{}
	for ev := range events {
		theirs[ev.TsNs] = ev
	}
	mapped, pathed := 0, 0
	for _, r := range resps {
		ev, ok, err := mapEvent("/buckets", r)
		if err != nil || !ok {
			t.Fatalf("event %d not mapped: %v", r.TsNs, err)
		}
		mapped++
		if ev.Path != "" && lifecycle.ShardID(ev.Bucket, ev.Path) != lifecycle.ShardID(ev.Bucket, ev.Key) {
			pathed++
		}
		their := theirs[r.TsNs]
		if their == nil {
			t.Errorf("event %d (%s %s/%s): SeaweedFS's reader dropped it", r.TsNs, ev.Type, ev.Bucket, ev.Key)
			continue
		}
		if got := dailyrun.EventShard(ev); got != lifecycle.ShardID(ev.Bucket, ev.Key) {
			t.Errorf("event %d (%s %s/%s): shard %d, not its key's", r.TsNs, ev.Type, ev.Bucket, ev.Key, got)
		}
		path := ev.Path
		if path == "" {
			path = ev.Key
		}
		if got := lifecycle.ShardID(ev.Bucket, path); got != their.ShardID {
			t.Errorf("event %d (%s %s/%s path %q): shard %d, SeaweedFS's reader says %d (key %q)",
				r.TsNs, ev.Type, ev.Bucket, ev.Key, ev.Path, got, their.ShardID, their.Key)
		}
	}
	// The point of the test: many events are not in their key's shard.
	if pathed < mapped/3 {
		t.Errorf("only %d of %d events shard elsewhere than their key", pathed, mapped)
	}
}

// hashCorpus is bucket lifecycle documents in the shapes both parsers
// read: old-style Prefix, Filter/Prefix, Filter/And with tags and sizes,
// tag-only filters, Date, ExpiredObjectDeleteMarker, NoncurrentDays with
// and without NewerNoncurrentVersions, AbortIncompleteMultipartUpload, a
// disabled rule, two rules of one content, several rules per bucket.
var hashCorpus = map[string]string{
	"days":       `<LifecycleConfiguration><Rule><ID>d</ID><Status>Enabled</Status><Filter><Prefix>logs/</Prefix></Filter><Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>`,
	"old-prefix": `<LifecycleConfiguration><Rule><ID>o</ID><Prefix>tmp/</Prefix><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`,
	"and": `<LifecycleConfiguration><Rule><ID>a</ID><Status>Enabled</Status><Filter><And><Prefix>p/</Prefix><Tag><Key>env</Key><Value>dev</Value></Tag><Tag><Key>app</Key><Value>x</Value></Tag><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>1000</ObjectSizeLessThan></And></Filter><Expiration><Days>7</Days></Expiration></Rule>` +
		`<Rule><ID>t</ID><Status>Enabled</Status><Filter><Tag><Key>tmp</Key><Value>yes</Value></Tag></Filter><Expiration><Days>2</Days></Expiration></Rule></LifecycleConfiguration>`,
	"versioned": `<LifecycleConfiguration><Rule><ID>nc</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><NoncurrentVersionExpiration><NoncurrentDays>10</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>keep2</ID><Status>Enabled</Status><Filter><Prefix>k/</Prefix></Filter><NoncurrentVersionExpiration><NoncurrentDays>5</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>edm</ID><Status>Enabled</Status><Filter><Prefix>m/</Prefix></Filter><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule></LifecycleConfiguration>`,
	"mpu-date": `<LifecycleConfiguration><Rule><ID>mpu</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><AbortIncompleteMultipartUpload><DaysAfterInitiation>3</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
		`<Rule><ID>date</ID><Status>Enabled</Status><Filter><Prefix>old/</Prefix></Filter><Expiration><Date>2020-01-01T00:00:00Z</Date></Expiration></Rule></LifecycleConfiguration>`,
	"disabled-twin": `<LifecycleConfiguration><Rule><ID>on</ID><Status>Enabled</Status><Filter><Prefix>x/</Prefix></Filter><Expiration><Days>90</Days></Expiration></Rule>` +
		`<Rule><ID>off</ID><Status>Disabled</Status><Filter><Prefix>y/</Prefix></Filter><Expiration><Days>365</Days></Expiration></Rule>` +
		`<Rule><ID>twin</ID><Status>Enabled</Status><Filter><Prefix>x/</Prefix></Filter><Expiration><Days>90</Days></Expiration></Rule></LifecycleConfiguration>`,
}

// swHashes computes the hashes SeaweedFS's worker stamps for the corpus
// buckets, as weed/shell/command_s3_lifecycle_run_shard.go and
// dailyrun.runShard do: scheduler.LoadCompileInputs' parse of each
// bucket's XML, Compile with AllActivePriorStates, then ReplayContentHash
// and PromotedHash at RetentionWindow, or MaxEffectiveTTL when 0.
func swHashes(t *testing.T, buckets []string, retention time.Duration) (ruleSet, promoted [32]byte) {
	t.Helper()
	var inputs []swengine.CompileInput
	for _, b := range buckets {
		rules, err := lifecycle_xml.ParseCanonical([]byte(hashCorpus[b]))
		if err != nil {
			t.Fatalf("SeaweedFS parse of %s: %v", b, err)
		}
		inputs = append(inputs, swengine.CompileInput{Bucket: b, Rules: rules})
	}
	eng := swengine.New()
	eng.Compile(inputs, swengine.CompileOptions{PriorStates: scheduler.AllActivePriorStates(inputs)})
	snap := eng.Snapshot()
	if retention <= 0 {
		retention = swengine.MaxEffectiveTTL(snap)
	}
	return swengine.ReplayContentHash(snap), swengine.PromotedHash(snap, retention)
}

func ilmctlSnapshot(t *testing.T, buckets []string, opts engine.Options) *engine.Snapshot {
	t.Helper()
	var eb []engine.Bucket
	for _, b := range buckets {
		cfg, err := lifecycle.Parse([]byte(hashCorpus[b]))
		if err != nil {
			t.Fatalf("ilmctl parse of %s: %v", b, err)
		}
		eb = append(eb, engine.Bucket{Name: b, Rules: cfg.Rules})
	}
	return engine.CompileWith(eb, opts).Snapshot()
}

// The hashes ilmctl stamps on a SeaweedFS filer are the ones SeaweedFS's
// worker computes from the same lifecycle documents, whatever the due
// rounding, so neither sees a rule edit where there is none.
func TestCursorHashesAreSeaweedFSWorkers(t *testing.T) {
	sets := [][]string{{"days"}, {"old-prefix"}, {"and"}, {"versioned"}, {"mpu-date"}, {"disabled-twin"},
		{"days", "and", "versioned", "mpu-date", "disabled-twin", "old-prefix"}}
	for _, buckets := range sets {
		wantRS, wantP := swHashes(t, buckets, 0)
		for _, rnd := range []lifecycle.Rounding{lifecycle.RoundAWS, lifecycle.RoundExact} {
			snap := ilmctlSnapshot(t, buckets, engine.Options{Rounding: rnd})
			h := cursorHashes(snap, 0)
			rs, p := h.RuleSet, h.Promoted
			if rs != wantRS || p != wantP {
				t.Errorf("%v %s: rule_set_hash %x promoted_hash %x, SeaweedFS's worker %x %x", buckets, rnd, rs[:6], p[:6], wantRS[:6], wantP[:6])
			}
			if rs == ([32]byte{}) {
				t.Errorf("%v: zero rule_set_hash", buckets)
			}
		}
		// A meta-log retention promotes the same actions as SeaweedFS's
		// worker given it, under exact rounding (SeaweedFS's).
		for _, r := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 60 * 24 * time.Hour} {
			wantRS, wantP := swHashes(t, buckets, r)
			snap := ilmctlSnapshot(t, buckets, engine.Options{Rounding: lifecycle.RoundExact})
			if h := cursorHashes(snap, r); h.RuleSet != wantRS || h.Promoted != wantP {
				t.Errorf("%v retention %s: hashes differ from SeaweedFS's worker", buckets, r)
			}
		}
	}
	// A rule edit changes the hash.
	a := cursorHashes(ilmctlSnapshot(t, []string{"days"}, engine.Options{}), 0)
	b := cursorHashes(ilmctlSnapshot(t, []string{"old-prefix"}, engine.Options{}), 0)
	if a.RuleSet == b.RuleSet {
		t.Error("different rules, one hash")
	}
}

// Under AWS rounding a retention R promotes what ilmctl's partition
// promotes (TTL + 1 day > R), which is SeaweedFS's window R - 1 day.
func TestCursorPromotedHashFollowsIlmctlPartition(t *testing.T) {
	snap := ilmctlSnapshot(t, []string{"days", "versioned"}, engine.Options{Rounding: lifecycle.RoundAWS})
	r := 30*24*time.Hour + 12*time.Hour // 30-day rule: 31 days effective, promoted
	p := cursorHashes(snap, r).Promoted
	_, want := swHashes(t, []string{"days", "versioned"}, r-24*time.Hour)
	if p != want {
		t.Errorf("promoted_hash %x, want SeaweedFS's at R-1d %x", p[:6], want[:6])
	}
	_, walk := snap.RulesForShard(0, r)
	promoted := false
	for _, a := range walk.Actions() {
		promoted = promoted || (a.Key.Kind == lifecycle.ExpirationDays && a.Key.Bucket == "days")
	}
	if !promoted || p == ([32]byte{}) {
		t.Errorf("ilmctl promotes the 30-day rule at R=%s (%v); promoted_hash must not be empty", r, promoted)
	}
}

// Where the two replays differ on the same rules, ilmctl does not take
// SeaweedFS's cursors over: it removes expired delete markers under
// Expiration Days, events SeaweedFS's replay passes. (The other direction
// needs no hash: ilmctl never stamps its cursors with the worker's.)
func TestCursorHashesCoverage(t *testing.T) {
	for _, tc := range []struct {
		buckets  []string
		markers  lifecycle.ExpiredMarkerDays
		takeOver bool
	}{
		{[]string{"days"}, lifecycle.ExpiredMarkersAWS, false},
		{[]string{"days"}, lifecycle.ExpiredMarkersKeep, true},
		{[]string{"mpu-date"}, lifecycle.ExpiredMarkersAWS, true},
		{[]string{"versioned"}, lifecycle.ExpiredMarkersKeep, true},
		{[]string{"disabled-twin"}, lifecycle.ExpiredMarkersKeep, true},
	} {
		snap := ilmctlSnapshot(t, tc.buckets, engine.Options{ExpiredMarkers: tc.markers})
		if h := cursorHashes(snap, 0); h.TakeOver != tc.takeOver {
			t.Errorf("%v markers %s: take over %v, want %v", tc.buckets, tc.markers, h.TakeOver, tc.takeOver)
		}
	}
}
