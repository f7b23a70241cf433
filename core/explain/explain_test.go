package explain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// store is a read-only filer.Store over fixed objects, uploads, events
// and files; anything that would write fails the test.
type store struct {
	t       *testing.T
	objs    map[string]filer.Object
	lookErr error
	uploads []filer.Upload
	events  []filer.Event
	files   map[string][]byte
}

func (s *store) ListBuckets(context.Context) ([]filer.Bucket, error) { return nil, nil }
func (s *store) ListObjects(context.Context, string, string, int) ([]filer.Object, string, error) {
	return nil, "", nil
}
func (s *store) LookupObject(_ context.Context, _, key string) (filer.Object, bool, error) {
	if s.lookErr != nil {
		return filer.Object{}, false, s.lookErr
	}
	o, ok := s.objs[key]
	return o, ok, nil
}
func (s *store) ListUploads(_ context.Context, _, after string, limit int) ([]filer.Upload, string, error) {
	return s.uploads, "", nil
}
func (s *store) SubscribeMetadata(_ context.Context, since, until int64, fn func(filer.Event) error) error {
	for _, ev := range s.events {
		if ev.TsNs > since && ev.TsNs <= until {
			if err := fn(ev); err != nil {
				return err
			}
		}
	}
	return nil
}
func (s *store) LifecycleDelete(context.Context, filer.DeleteRequest) (filer.Outcome, error) {
	s.t.Fatal("explain deleted something")
	return "", nil
}
func (s *store) ReadFile(_ context.Context, path string) ([]byte, error) {
	if b, ok := s.files[path]; ok {
		return b, nil
	}
	return nil, filer.ErrNotFound
}
func (s *store) WriteFile(context.Context, string, []byte) error {
	s.t.Fatal("explain wrote a file")
	return nil
}

var (
	day  = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	now  = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	rule = `<LifecycleConfiguration><Rule><ID>nc</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>exp</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>60</Days></Expiration><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition></Rule>` +
		`<Rule><ID>off</ID><Filter></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
		`<Rule><ID>mpu</ID><Filter></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule></LifecycleConfiguration>`
)

func config(t *testing.T, st *store, b filer.Bucket) Config {
	t.Helper()
	parsed, err := lifecycle.Parse([]byte(rule))
	if err != nil {
		t.Fatal(err)
	}
	buckets := []engine.Bucket{{Name: b.Name, Versioning: b.Versioning, ObjectLock: b.ObjectLock, Rules: parsed.Rules}}
	return Config{Store: st, Snapshot: engine.Compile(buckets, lifecycle.RoundAWS).Snapshot(), Bucket: b, Rules: &buckets[0], Key: "a/k", Now: now}
}

func versionAt(id string, t time.Time, size int64) filer.Version {
	return filer.Version{VersionID: id, MtimeNs: t.UnixNano(), Size: size, ETag: "e-" + id}
}

// Every rule gets a verdict on every version and upload, the due one is
// the dispatch, with its size and what it frees; a retained version is
// held, and nothing is written.
func TestExplainVerdicts(t *testing.T) {
	v2 := versionAt("v2", day.Add(24*time.Hour), 20)
	v2.IsLatest = true
	v1 := versionAt("v1", day, 10)
	v1.RetainUntil = now.Add(48 * time.Hour)
	st := &store{t: t, objs: map[string]filer.Object{"a/k": {Key: "a/k", Versions: []filer.Version{v2, v1}}},
		uploads: []filer.Upload{{Key: "a/k", UploadID: "u1", Initiated: day}, {Key: "other", UploadID: "u2", Initiated: day}}}
	cfg := config(t, st, filer.Bucket{Name: "b", Versioning: filer.VersioningEnabled, ObjectLock: true})
	rep, err := Explain(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Versions) != 2 || len(rep.Uploads) != 1 {
		t.Fatalf("%d versions, %d uploads", len(rep.Versions), len(rep.Uploads))
	}
	outcomes := func(tg Target) map[string]Outcome {
		m := map[string]Outcome{}
		for _, v := range tg.Verdicts {
			m[v.RuleID+"/"+v.Action] = v.Outcome
		}
		return m
	}
	latest := outcomes(rep.Versions[0])
	want := map[string]Outcome{"nc/NoncurrentDays": OutcomeNever, "exp/ExpirationDays": OutcomeNotYetDue, "exp/Transition": OutcomeNever,
		"off/ExpirationDays": OutcomeNever, "mpu/": OutcomeNever}
	for k, o := range want {
		if latest[k] != o {
			t.Errorf("latest %s: %s, want %s (all: %v)", k, latest[k], o, latest)
		}
	}
	if d := rep.Versions[0].Dispatch; d == nil || d.DueNow || d.Kind != lifecycle.ExpirationDays || !d.Due.Equal(time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("latest dispatch %+v, want ExpirationDays due 2027-01-02 (2026-11-02T10:00 + 60 days, rounded up)", d)
	}
	old := rep.Versions[1]
	for _, v := range old.Verdicts {
		if v.RuleID == "nc" && (v.Outcome != OutcomeNever || v.Reason != ReasonRetention || !strings.Contains(v.Detail, "retained until 2026-12-02T00:00:00Z")) {
			t.Errorf("retained noncurrent version: %s %s %q, want never, object_lock_retention until 2026-12-02", v.Outcome, v.Reason, v.Detail)
		}
	}
	if d := old.Dispatch; d == nil || !d.DueNow || d.Held == "" || d.Size != 10 || d.BytesFreed != 10 || !d.Replay || !d.Walk {
		t.Errorf("noncurrent dispatch %+v: want due now, held, 10 bytes freed, replayed and walked (Object Lock bucket)", d)
	}
	for _, v := range old.Verdicts {
		if v.RuleID == "nc" && (!v.Chosen || v.DueMath.From != lifecycle.BaseSuccessorCreation || v.DueMath.Days != 3) {
			t.Errorf("nc verdict %+v", v)
		}
	}
	up := rep.Uploads[0]
	if up.UploadID != "u1" || up.Dispatch == nil || !up.Dispatch.DueNow || up.Dispatch.Kind != lifecycle.AbortMPU {
		t.Errorf("upload %+v", up)
	}
}

// The standing: the key's shard and its cursor, and the key's last event
// against the cursor of the shard that replays it.
func TestExplainStanding(t *testing.T) {
	v := versionAt("v1", day, 10)
	v.IsLatest = true
	cursorTs := day.Add(time.Hour).UnixNano()
	st := &store{t: t, objs: map[string]filer.Object{"a/k": {Key: "a/k", Versions: []filer.Version{v}}}, files: map[string][]byte{}}
	cfg := config(t, st, filer.Bucket{Name: "b", Versioning: filer.VersioningEnabled})
	for _, tc := range []struct {
		name  string
		evTs  int64
		after bool
	}{{"before the cursor", cursorTs - 1, false}, {"after the cursor", cursorTs + 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			st.events = []filer.Event{{TsNs: day.UnixNano() - 5, Type: filer.EventPut, Bucket: "b", Key: "other"}, {TsNs: tc.evTs, Type: filer.EventPut, Bucket: "b", Key: "a/k", VersionID: "v1"}}
			rep, err := Explain(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			shard := lifecycle.ShardID("b", "a/k")
			if rep.Pass.Shard != shard || rep.Pass.Plan.Found || rep.Pass.Plan.Walk != "recovery" || rep.Pass.Plan.Recovery != "cold_start" {
				t.Errorf("cold plan %+v", rep.Pass.Plan)
			}
			// Every shard's cursor at cursorTs, stamped as a pass with
			// these rules stamps it, so the next pass replays from it.
			snap := cfg.Snapshot
			c := dailyrun.Cursor{TsNs: cursorTs, LastWalkedNs: cursorTs, RuleSetHash: engine.ReplayContentHash(snap),
				PromotedHash: engine.PromotedHash(snap, engine.MaxEffectiveTTL(snap))}
			for shard := range lifecycle.ShardCount {
				st.files[dailyrun.CursorPath(shard)] = dailyrun.EncodeCursor(c, shard)
			}
			defer func() { st.files = map[string][]byte{} }()
			rep, err = Explain(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			p := rep.Pass
			if !p.Plan.Found || p.Plan.Cursor.TsNs != cursorTs || p.Plan.Walk != "" || !p.Plan.Replays || p.Plan.ReplayFromNs != cursorTs {
				t.Errorf("plan %+v", p.Plan)
			}
			// The scan reaches back over the cold-start window (61 days
			// before now), so an event before the cursor is found too.
			if floor := now.Add(-61 * 24 * time.Hour).UnixNano(); !p.Scanned || p.ScannedFromNs != floor {
				t.Errorf("scanned %v from %d, want from the cold-start floor %d", p.Scanned, p.ScannedFromNs, floor)
			}
			if p.LastEvent == nil || p.LastEvent.TsNs != tc.evTs || p.LastEvent.AfterCursor != tc.after || p.LastEvent.Shard != shard || (p.Pending == 1) != tc.after {
				t.Errorf("last event %+v pending %d, want the event, after the cursor: %v", p.LastEvent, p.Pending, tc.after)
			}
		})
	}
}

func TestExplainKeyAndBucketStates(t *testing.T) {
	v := versionAt("v1", day, 10)
	v.IsLatest = true
	st := &store{t: t, objs: map[string]filer.Object{"a/k": {Key: "a/k", Versions: []filer.Version{v}}}}
	cfg := config(t, st, filer.Bucket{Name: "b"})

	cfg.VersionID = "nope"
	if _, err := Explain(context.Background(), cfg); !errors.Is(err, ErrNoVersion) || err.Error() != `b/a/k has no version "nope"` {
		t.Errorf("missing version: %v, want ErrNoVersion naming the key and version", err)
	}
	cfg.VersionID = ""

	rejected := cfg
	rejected.Rules, rejected.ConfigErr = nil, "InvalidArgument: Days is 0"
	rep, err := Explain(context.Background(), rejected)
	if err != nil {
		t.Fatal(err)
	}
	if vs := rep.Versions[0].Verdicts; len(vs) != 1 || vs[0].Reason != ReasonConfigRejected || rep.Versions[0].Dispatch != nil {
		t.Errorf("rejected bucket verdicts %+v", vs)
	}

	st.lookErr = &filer.KeyError{Bucket: "b", Key: "a/k", Err: filer.ErrAmbiguousLayout}
	rep, err = Explain(context.Background(), cfg)
	if err != nil || !rep.Ambiguous || rep.KeyError == "" || len(rep.Versions) != 0 || rep.Listed != nil {
		t.Errorf("ambiguous key: %+v %v", rep, err)
	}
	// A pass listed it: explain names the entry.
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	st.files = map[string][]byte{dailyrun.AmbiguousPath(5): []byte(fmt.Sprintf(
		`{"version":1,"shard_id":5,"keys":[{"bucket":"b","key":"a/k","reason":"r","first_seen_ns":%d,"last_seen_ns":%d}]}`, first, first))}
	rep, err = Explain(context.Background(), cfg)
	if err != nil || rep.Listed == nil || rep.Listed.FirstSeenNs != first {
		t.Errorf("listed ambiguous key: %+v %v", rep.Listed, err)
	}
	st.files = nil
	st.lookErr = errors.New("connection refused")
	if _, err := Explain(context.Background(), cfg); err == nil {
		t.Error("a store error is an error")
	}
}

// An upload completed or aborted while its mpu_init event is still ahead
// of the cursor is replayed anyway (replay decides on the event alone):
// explain lists it as gone, with the abort the pass dispatches and the
// NOOP_RESOLVED the store answers.
func TestExplainGoneUpload(t *testing.T) {
	initTs := day.UnixNano()
	st := &store{t: t, objs: map[string]filer.Object{}, files: map[string][]byte{},
		events: []filer.Event{{TsNs: initTs, Type: filer.EventMPUInit, Bucket: "b", Key: "a/k", UploadID: "u9"}}}
	cfg := config(t, st, filer.Bucket{Name: "b", Versioning: filer.VersioningEnabled})
	rep, err := Explain(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Uploads) != 1 {
		t.Fatalf("uploads %+v", rep.Uploads)
	}
	up := rep.Uploads[0]
	if d := up.Dispatch; !up.Gone || up.UploadID != "u9" || !up.Created.Equal(day) || d == nil || !d.DueNow || d.Kind != lifecycle.AbortMPU || d.Gone == "" || !d.Replay {
		t.Errorf("gone upload %+v dispatch %+v", up, up.Dispatch)
	}
	chosen := 0
	for _, v := range up.Verdicts {
		if v.Chosen {
			chosen++
			if v.RuleID != "mpu" || v.Outcome != OutcomeDue {
				t.Errorf("chosen verdict %+v", v)
			}
		}
	}
	if chosen != 1 {
		t.Errorf("%d chosen verdicts", chosen)
	}
	cfg.VersionID = "x"
	st.objs["a/k"] = filer.Object{Key: "a/k", Versions: []filer.Version{{VersionID: "x", IsLatest: true, MtimeNs: initTs}}}
	if rep, err := Explain(context.Background(), cfg); err != nil || len(rep.Uploads) != 0 {
		t.Errorf("--version-id explains versions only: %+v %v", rep, err)
	}
}

// What the next pass dispatches depends on where it stands: a walked
// action is reached only when the shard walks (not within
// --walker-interval of its last walk), a replayed one by replaying the
// event that triggers it.
func TestExplainNextPass(t *testing.T) {
	doc := `<LifecycleConfiguration><Rule><ID>nnv</ID><Filter><Prefix>n/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>nc</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>nc-n</ID><Filter><And><Prefix>n/</Prefix><Tag><Key>old</Key><Value>yes</Value></Tag></And></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>2</NoncurrentDays></NoncurrentVersionExpiration></Rule></LifecycleConfiguration>`
	parsed, err := lifecycle.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	buckets := []engine.Bucket{{Name: "b", Versioning: filer.VersioningEnabled, Rules: parsed.Rules}}
	snap := engine.Compile(buckets, lifecycle.RoundAWS).Snapshot()
	lastWalk := now.Add(-12 * time.Hour)
	cursorTs := now.Add(-24 * time.Hour).UnixNano()
	files := map[string][]byte{}
	c := dailyrun.Cursor{TsNs: cursorTs, LastWalkedNs: lastWalk.UnixNano(), RuleSetHash: engine.ReplayContentHash(snap),
		PromotedHash: engine.PromotedHash(snap, engine.MaxEffectiveTTL(snap))}
	for shard := range lifecycle.ShardCount {
		files[dailyrun.CursorPath(shard)] = dailyrun.EncodeCursor(c, shard)
	}
	three := func(key string) filer.Object {
		v3, v2, v1 := versionAt("x3", day.Add(48*time.Hour), 3), versionAt("x2", day.Add(24*time.Hour), 2), versionAt("x1", day, 1)
		v3.IsLatest = true
		// nc-n selects x1 only: x2 stays, so it counts toward nnv's
		// NewerNoncurrentVersions and nnv deletes x1.
		v1.Tags = map[string]string{"old": "yes"}
		return filer.Object{Key: key, Versions: []filer.Version{v3, v2, v1}}
	}
	for _, tc := range []struct {
		name     string
		key      string
		interval time.Duration
		events   []filer.Event
		next     bool
		via      string
	}{
		{"walked, walker due", "n/k", 0, nil, true, "steady-state walk"},
		{"walked, within the walker interval", "n/k", 24 * time.Hour, nil, false, "--walker-interval 24h0m0s"},
		{"walked within the interval, another rule's replay goes first", "n/k", 24 * time.Hour,
			[]filer.Event{{TsNs: cursorTs + 5, Type: filer.EventDemote, Bucket: "b", Key: "n/k", VersionID: "x1"}}, true, "replay of its demote event"},
		{"replayed, its demotion after the cursor", "a/k", 0,
			[]filer.Event{{TsNs: cursorTs + 5, Type: filer.EventDemote, Bucket: "b", Key: "a/k", VersionID: "x1"}}, true, "replay of its demote event"},
		{"replayed, its demotion already replayed", "a/k", 0,
			[]filer.Event{{TsNs: cursorTs - 5, Type: filer.EventDemote, Bucket: "b", Key: "a/k", VersionID: "x1"}}, false, "none of its meta-log events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &store{t: t, objs: map[string]filer.Object{tc.key: three(tc.key)}, files: files, events: tc.events}
			cfg := Config{Store: st, Snapshot: snap, Bucket: filer.Bucket{Name: "b", Versioning: filer.VersioningEnabled}, Rules: &buckets[0],
				Key: tc.key, VersionID: "x1", Now: now, WalkerInterval: tc.interval}
			rep, err := Explain(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			d := rep.Versions[0].Dispatch
			if d == nil || !d.DueNow || d.NextPass != tc.next || !strings.Contains(d.Via, tc.via) {
				t.Errorf("dispatch %+v, want next pass %v via %q", d, tc.next, tc.via)
			}
			wantRule := "nnv"
			if tc.key == "a/k" {
				wantRule = "nc"
			}
			if tc.events != nil && tc.key == "n/k" {
				wantRule = "nc-n" // replay's NoncurrentDays, not the walk's NewerNoncurrent
			}
			chosen := ""
			for _, v := range rep.Versions[0].Verdicts {
				if v.Chosen {
					chosen += v.RuleID
				}
			}
			if d.RuleID != wantRule || chosen != wantRule {
				t.Errorf("dispatch of rule %s, chosen verdict %q, want %s", d.RuleID, chosen, wantRule)
			}
		})
	}
}
