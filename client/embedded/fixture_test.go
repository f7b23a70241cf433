package embedded

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"

	"github.com/ilmctl/ilmctl/internal/hint"
)

const goodFixture = `{"buckets":[{"name":"logs","versioning":"Enabled","object_lock":true,
  "lifecycle_xml":"<LifecycleConfiguration><Rule><ID>r</ID><Status>Enabled</Status><Filter><Prefix>app/</Prefix></Filter><Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>",
  "objects":[{"key":"app/a.log","versions":[
     {"version_id":"v1","mtime":"2026-01-01T10:00:00Z","size":120,"etag":"e1","tags":{"env":"dev"}},
     {"version_id":"v2","mtime":"2026-02-01T10:00:00Z","size":130,"delete_marker":false,
      "retain_until":"2027-01-01T00:00:00Z","legal_hold":false}]},
   {"key":"app/b.log","versions":[
     {"mtime":"2026-02-01T10:00:00Z","size":5},
     {"version_id":null,"mtime":"2026-03-01T10:00:00Z","delete_marker":true}]}],
  "uploads":[{"upload_id":"u1","key":"big.bin","initiated":"2026-01-01T00:00:00Z"}]},
 {"name":"flat","objects":[{"key":"x","versions":[{"mtime":"2026-01-01T10:00:00Z","size":1}]}]}]}`

func TestLoadFixture(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	sum := loadTest(t, f, goodFixture)
	if want := (FixtureSummary{Buckets: 2, Objects: 3, Versions: 5, Uploads: 1, Events: 8}); !reflect.DeepEqual(sum, want) {
		t.Errorf("summary = %+v, want %+v", sum, want)
	}
	bs, _ := f.ListBuckets(ctx)
	if len(bs) != 2 || bs[0].Name != "flat" || bs[0].Versioning != filer.VersioningOff || !bs[1].ObjectLock || !strings.Contains(bs[1].LifecycleXML, "<Days>30</Days>") {
		t.Errorf("buckets = %+v", bs)
	}

	a := lookup(t, f, "logs", "app/a.log")
	if got := versionIDs(a); !slices.Equal(got, []string{"v2", "v1"}) {
		t.Fatalf("a versions = %v, want newest first", got)
	}
	v2, v1 := a.Versions[0], a.Versions[1]
	if !v2.IsLatest || v1.IsLatest || v2.NoncurrentSinceNs != 0 {
		t.Errorf("latest flags: v2=%+v v1=%+v", v2, v1)
	}
	if v1.MtimeNs != ns("2026-01-01T10:00:00Z") || v1.Size != 120 || v1.ETag != "e1" || v1.Tags["env"] != "dev" {
		t.Errorf("v1 = %+v", v1)
	}
	if !v2.RetainUntil.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) || v2.LegalHold {
		t.Errorf("v2 lock = %v %v", v2.RetainUntil, v2.LegalHold)
	}
	// Demoted at its successor's mtime, bumped 1ns past the successor's put.
	if want := ns("2026-02-01T10:00:00Z") + 1; v1.NoncurrentSinceNs != want {
		t.Errorf("v1 NoncurrentSinceNs = %d, want %d", v1.NoncurrentSinceNs, want)
	}

	b := lookup(t, f, "logs", "app/b.log")
	gen := b.Versions[1]
	if b.Versions[0].VersionID != filer.NullVersionID || !b.Versions[0].DeleteMarker || b.Versions[0].ETag != "" {
		t.Errorf("b latest = %+v, want the null delete marker", b.Versions[0])
	}
	if len(gen.VersionID) != 16 || len(gen.ETag) != 32 || gen.VersionID == filer.NullVersionID {
		t.Errorf("generated version = %+v, want 16-hex ID and 32-hex ETag", gen)
	}
	if x := lookup(t, f, "flat", "x"); x.Versions[0].VersionID != filer.NullVersionID {
		t.Errorf("unversioned bucket version ID = %q, want null", x.Versions[0].VersionID)
	}

	// Generated IDs and ETags are deterministic across loads.
	g := openTest(t, Options{})
	loadTest(t, g, goodFixture)
	if again := lookup(t, g, "logs", "app/b.log").Versions[1]; again.VersionID != gen.VersionID || again.ETag != gen.ETag {
		t.Errorf("second load generated %s/%s, first %s/%s", again.VersionID, again.ETag, gen.VersionID, gen.ETag)
	}

	var got []string
	for _, ev := range allEvents(t, f, -1) {
		got = append(got, string(ev.Type)+" "+ev.Bucket+"/"+ev.Key+" "+ev.VersionID+ev.UploadID+" @"+time.Unix(0, ev.TsNs).UTC().Format(time.RFC3339Nano))
	}
	want := []string{
		"mpu_init logs/big.bin u1 @2026-01-01T00:00:00Z",
		"put logs/app/a.log v1 @2026-01-01T10:00:00Z", // ties keep fixture order
		"put flat/x null @2026-01-01T10:00:00.000000001Z",
		"put logs/app/a.log v2 @2026-02-01T10:00:00Z",
		"demote logs/app/a.log v1 @2026-02-01T10:00:00.000000001Z",
		"put logs/app/b.log " + gen.VersionID + " @2026-02-01T10:00:00.000000002Z",
		"put logs/app/b.log null @2026-03-01T10:00:00Z",
		"demote logs/app/b.log " + gen.VersionID + " @2026-03-01T10:00:00.000000001Z",
	}
	if !slices.Equal(got, want) {
		t.Errorf("meta-log:\n got %q\nwant %q", got, want)
	}
	if nb := lookup(t, f, "logs", "app/b.log").Versions[1].NoncurrentSinceNs; nb != ns("2026-03-01T10:00:00Z")+1 {
		t.Errorf("generated version NoncurrentSinceNs = %d", nb)
	}
}

func TestLoadFixtureErrors(t *testing.T) {
	obj := func(versions string) string {
		return `{"buckets":[{"name":"b","versioning":"Enabled","objects":[{"key":"k","versions":[` + versions + `]}]}]}`
	}
	tests := []struct {
		name    string
		fixture string
		want    string
	}{
		{name: "unknown field", fixture: `{"buckets":[{"name":"b","colour":"red"}]}`, want: `bucket b: unknown field "colour": want one of name, versioning, object_lock, lifecycle_xml, objects, uploads (byte 24)`},
		{name: "unknown version field", fixture: obj(`{"mtime":"2026-01-01T00:00:00Z","sise":1}`), want: `unknown field "sise"`},
		{name: "not json", fixture: `{"buckets":`, want: "unexpected EOF: the document is cut short (byte 11)"},
		{name: "trailing data", fixture: `{"buckets":[]} {}`, want: "trailing data"},
		{name: "bad versioning", fixture: `{"buckets":[{"name":"b","versioning":"On"}]}`, want: `bucket b: versioning "On"`},
		{name: "no bucket name", fixture: `{"buckets":[{"versioning":"Enabled"}]}`, want: "buckets[0]: name is required"},
		{name: "duplicate bucket", fixture: `{"buckets":[{"name":"b"},{"name":"b"}]}`, want: `bucket b: listed twice`},
		{name: "duplicate key", fixture: `{"buckets":[{"name":"b","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z"}]},{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z"}]}]}]}`, want: `bucket b, key k: listed twice`},
		{name: "equal mtimes", fixture: obj(`{"mtime":"2026-01-01T00:00:00Z"},{"mtime":"2026-01-01T00:00:00Z"}`), want: `bucket b, key k: versions[1]: mtime 2026-01-01T00:00:00Z is not after`},
		{name: "mtime before 1970", fixture: obj(`{"mtime":"1600-01-01T00:00:00Z"}`), want: "mtime 1600-01-01T00:00:00Z is outside 1970-01-01T00:00:00Z..2262-04-11T23:47:16Z"},
		{name: "mtime after 2262", fixture: obj(`{"mtime":"2300-01-01T00:00:00Z"}`), want: "mtime 2300-01-01T00:00:00Z is outside"},
		{name: "decreasing mtimes", fixture: obj(`{"mtime":"2026-02-01T00:00:00Z"},{"mtime":"2026-01-01T00:00:00Z"}`), want: "strictly increasing"},
		{name: "missing mtime", fixture: obj(`{"size":1}`), want: "versions[0]: mtime is required"},
		{name: "bad mtime", fixture: obj(`{"mtime":"yesterday"}`), want: `bucket b, key k: versions[0]: mtime "yesterday": want an RFC3339 time`},
		{name: "duplicate version id", fixture: obj(`{"version_id":"v","mtime":"2026-01-01T00:00:00Z"},{"version_id":"v","mtime":"2026-02-01T00:00:00Z"}`), want: `version_id "v" is used twice`},
		{name: "two null versions", fixture: obj(`{"version_id":null,"mtime":"2026-01-01T00:00:00Z"},{"version_id":"null","mtime":"2026-02-01T00:00:00Z"}`), want: `version_id "null" is used twice`},
		{name: "empty version id", fixture: obj(`{"version_id":"","mtime":"2026-01-01T00:00:00Z"}`), want: "version_id is empty"},
		{name: "no versions", fixture: obj(``), want: "at least one version"},
		{name: "delete marker with size", fixture: obj(`{"mtime":"2026-01-01T00:00:00Z","delete_marker":true,"size":3}`), want: "a delete marker has no size"},
		{name: "lock without object lock", fixture: obj(`{"mtime":"2026-01-01T00:00:00Z","legal_hold":true}`), want: `need "object_lock": true`},
		{name: "negative size", fixture: obj(`{"mtime":"2026-01-01T00:00:00Z","size":-1}`), want: "negative"},
		{name: "unversioned with two versions", fixture: `{"buckets":[{"name":"b","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z"},{"mtime":"2026-02-01T00:00:00Z"}]}]}]}`, want: "one version per key"},
		{name: "unversioned with version id", fixture: `{"buckets":[{"name":"b","versioning":"Off","objects":[{"key":"k","versions":[{"version_id":"v1","mtime":"2026-01-01T00:00:00Z"}]}]}]}`, want: `version_id "v1" in an unversioned bucket`},
		{name: "upload without id", fixture: `{"buckets":[{"name":"b","uploads":[{"key":"k","initiated":"2026-01-01T00:00:00Z"}]}]}`, want: `bucket b, uploads[0] of key k: upload_id is required`},
		{name: "upload without initiated", fixture: `{"buckets":[{"name":"b","uploads":[{"key":"k","upload_id":"u"}]}]}`, want: "initiated is required"},
		{name: "duplicate upload", fixture: `{"buckets":[{"name":"b","uploads":[{"key":"k","upload_id":"u","initiated":"2026-01-01T00:00:00Z"},{"key":"k","upload_id":"u","initiated":"2026-01-02T00:00:00Z"}]}]}`, want: "listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := openTest(t, Options{})
			_, err := f.LoadFixture(context.Background(), strings.NewReader(tc.fixture))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			assertEmpty(t, f)
		})
	}
}

// TestLoadFixtureAtomic fails in the write phase (the second bucket already
// exists) and checks that the first bucket was not written either.
func TestLoadFixtureAtomic(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, `{"buckets":[{"name":"zeta","versioning":"Enabled"}]}`)
	before := allEvents(t, f, -1)
	_, err := f.LoadFixture(ctx, strings.NewReader(`{"buckets":[
	  {"name":"alpha","versioning":"Enabled","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z"}]}]},
	  {"name":"zeta"}]}`))
	if !errors.Is(err, ErrBucketExists) || !strings.HasSuffix(err.Error(), `bucket zeta: bucket already exists in the filer with another versioning, object_lock or lifecycle_xml (byte 130)`) || !slices.Equal(hint.All(err), []string{"to add objects to it, repeat its versioning, object_lock and lifecycle_xml exactly; else load into a fresh --filer directory"}) {
		t.Fatalf("err = %v, want ErrBucketExists naming zeta", err)
	}
	bs, _ := f.ListBuckets(ctx)
	if len(bs) != 1 || bs[0].Name != "zeta" {
		t.Errorf("buckets after failed load = %+v, want only zeta", bs)
	}
	if after := allEvents(t, f, -1); len(after) != len(before) {
		t.Errorf("meta-log grew from %d to %d events", len(before), len(after))
	}
}

// TestLoadFixtureBesideExistingLog loads a second fixture whose events
// collide with the first one's TsNs; each must land in a free slot.
func TestLoadFixtureBesideExistingLog(t *testing.T) {
	f := openTest(t, Options{})
	loadTest(t, f, `{"buckets":[{"name":"one","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z"}]}]}]}`)
	loadTest(t, f, `{"buckets":[{"name":"two","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z"}]}]}]}`)
	evs := allEvents(t, f, -1)
	if len(evs) != 2 || evs[0].Bucket != "one" || evs[1].Bucket != "two" || evs[1].TsNs != evs[0].TsNs+1 {
		t.Errorf("events = %+v, want one then two 1ns later", evs)
	}
}

func TestLoadFixtureCancelled(t *testing.T) {
	f := openTest(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.LoadFixture(ctx, strings.NewReader(goodFixture)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	assertEmpty(t, f)
}

func assertEmpty(t *testing.T, f *Filer) {
	t.Helper()
	if bs, err := f.ListBuckets(context.Background()); err != nil || len(bs) != 0 {
		t.Errorf("filer holds buckets %+v after a failed load (err %v)", bs, err)
	}
	if evs := allEvents(t, f, -1); len(evs) != 0 {
		t.Errorf("meta-log holds %d events after a failed load", len(evs))
	}
}

// A bucket whose name and versioning come before its objects is written as
// it is decoded; one whose versioning comes after them is decoded whole
// first and loads the same. "object_lock": true after streamed objects
// without retention is accepted (Object Lock only allows more); a
// retained version streamed before it is refused with where the field
// must go. Decoded whole, the bucket takes object_lock anywhere.
func TestLoadFixtureFieldOrder(t *testing.T) {
	const versions = `[{"key":"k","versions":[{"version_id":"v1","mtime":"2026-01-01T00:00:00Z","size":1},{"version_id":"v2","mtime":"2026-02-01T00:00:00Z","size":2}]}]`
	const held = `[{"key":"k","versions":[{"version_id":"v1","mtime":"2026-01-01T00:00:00Z","size":1},{"version_id":"v2","mtime":"2026-02-01T00:00:00Z","size":2,"legal_hold":true}]}]`
	for _, tc := range []struct {
		name, fixture, wantErr string
	}{
		{"header first", `{"buckets":[{"name":"b","versioning":"Enabled","objects":` + versions + `}]}`, ""},
		{"versioning last", `{"buckets":[{"objects":` + versions + `,"name":"b","versioning":"Enabled"}]}`, ""},
		{"object_lock after streamed objects", `{"buckets":[{"name":"b","versioning":"Enabled","objects":` + versions + `,"object_lock":true}]}`, ""},
		{"object_lock first, retention streamed", `{"buckets":[{"name":"b","versioning":"Enabled","object_lock":true,"objects":` + held + `}]}`, ""},
		{"object_lock last, objects held", `{"buckets":[{"objects":` + held + `,"name":"b","versioning":"Enabled","object_lock":true}]}`, ""},
		{"object_lock after streamed retention", `{"buckets":[{"name":"b","versioning":"Enabled","objects":` + held + `,"object_lock":true}]}`,
			`bucket b, key k: version v2: retain_until/legal_hold need "object_lock": true on the bucket, before its "objects": the loader writes a bucket's objects as it reads them, once it has the bucket's name and versioning (byte 141)`},
		{"object_lock false", `{"buckets":[{"name":"b","versioning":"Enabled","object_lock":false,"objects":` + held + `}]}`,
			`bucket b, key k: version v2: retain_until/legal_hold need "object_lock": true on the bucket (byte 161)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := openTest(t, Options{})
			_, err := f.LoadFixture(context.Background(), strings.NewReader(tc.fixture))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v\nwant %s", err, tc.wantErr)
				}
				assertEmpty(t, f)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := versionIDs(lookup(t, f, "b", "k")); !slices.Equal(got, []string{"v2", "v1"}) {
				t.Errorf("versions = %v", got)
			}
		})
	}
}

// A fixture that repeats a bucket's configuration adds its new keys to it,
// each with its meta-log history; another configuration, or a key the
// bucket holds, is refused and leaves the filer as it was.
func TestLoadFixtureAddsToBucket(t *testing.T) {
	ctx := context.Background()
	xml := `<LifecycleConfiguration><Rule><ID>r</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule></LifecycleConfiguration>`
	bucket := func(versioning, keys string) string {
		return `{"buckets":[{"name":"b","versioning":"` + versioning + `","lifecycle_xml":"` + strings.ReplaceAll(xml, `"`, `\"`) + `","objects":[` + keys + `]}]}`
	}
	f := openTest(t, Options{})
	loadTest(t, f, bucket("Enabled", `{"key":"a","versions":[{"mtime":"2026-01-01T00:00:00Z"}]}`))
	before := allEvents(t, f, -1)
	loadTest(t, f, bucket("Enabled", `{"key":"c","versions":[{"mtime":"2026-01-03T00:00:00Z"},{"mtime":"2026-01-04T00:00:00Z"}]}`))
	objs, _, err := f.ListObjects(ctx, "b", "", 10)
	if err != nil || len(objs) != 2 || objs[1].Key != "c" || len(objs[1].Versions) != 2 {
		t.Fatalf("objects after adding: %+v, %v", objs, err)
	}
	if after := allEvents(t, f, -1); len(after) != len(before)+3 {
		t.Errorf("meta-log grew from %d to %d events, want 3 more (two puts, one demotion)", len(before), len(after))
	}
	for _, tc := range []struct{ name, fixture, want string }{
		{"other versioning", bucket("Suspended", `{"key":"d","versions":[{"mtime":"2026-01-05T00:00:00Z"}]}`), "bucket already exists"},
		{"other lifecycle", `{"buckets":[{"name":"b","versioning":"Enabled","objects":[{"key":"d","versions":[{"mtime":"2026-01-05T00:00:00Z"}]}]}]}`, "bucket already exists"},
		{"key already there", bucket("Enabled", `{"key":"a","versions":[{"mtime":"2026-01-05T00:00:00Z"}]}`), "already in the filer"},
	} {
		n := len(allEvents(t, f, -1))
		if _, err := f.LoadFixture(ctx, strings.NewReader(tc.fixture)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		if got := len(allEvents(t, f, -1)); got != n {
			t.Errorf("%s: meta-log grew from %d to %d events", tc.name, n, got)
		}
	}
}
