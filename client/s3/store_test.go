package s3

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// apiError builds the error shape the SDK returns for an S3 error response.
func apiError(status int, code, msg string) error {
	return &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
			Err:      &smithy.GenericAPIError{Code: code, Message: msg},
		},
	}
}

func TestOutcomeOf(t *testing.T) {
	cases := []struct {
		name    string
		err     error
		want    filer.Outcome
		wantErr bool
	}{
		{"success", nil, filer.OutcomeDone, false},
		{"412 If-Match lost", apiError(412, "PreconditionFailed", "pre-conditions"), filer.OutcomeNoopResolved, false},
		{"no such key", apiError(404, "NoSuchKey", ""), filer.OutcomeNoopResolved, false},
		{"no such version", apiError(404, "NoSuchVersion", ""), filer.OutcomeNoopResolved, false},
		{"no such upload", apiError(404, "NoSuchUpload", ""), filer.OutcomeNoopResolved, false},
		{"bare 404", apiError(404, "", ""), filer.OutcomeNoopResolved, false},
		{"AWS object lock", apiError(403, "AccessDenied", "Access Denied because object protected by object lock."), filer.OutcomeSkippedObjectLock, false},
		{"MinIO WORM", apiError(400, "InvalidRequest", "Object is WORM protected and cannot be overwritten"), filer.OutcomeSkippedObjectLock, false},
		{"plain access denied", apiError(403, "AccessDenied", "Access Denied."), "", true},
		{"slow down", apiError(503, "SlowDown", "reduce your request rate"), filer.OutcomeRetryLater, false},
		{"503 without code", apiError(503, "", ""), filer.OutcomeRetryLater, false},
		{"internal error", apiError(500, "InternalError", ""), "", true},
		{"If-Match not implemented", apiError(501, "NotImplemented", ""), "", true},
		{"network", errors.New("connection refused"), "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := outcomeOf(c.err, "DeleteObject", "b/k@v")
			if got != c.want || (err != nil) != c.wantErr {
				t.Fatalf("outcomeOf = %q, %v; want %q, error %v", got, err, c.want, c.wantErr)
			}
			var ae *APIError
			if c.wantErr && c.name != "network" && !errors.As(err, &ae) {
				t.Errorf("transport error %v is not an *APIError", err)
			}
		})
	}
	if _, err := outcomeOf(context.Canceled, "DeleteObject", "b/k"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancellation = %v, want context.Canceled", err)
	}
}

func ver(id string, latest, marker bool, sec int64) string {
	tag := "Version"
	if marker {
		tag = "DeleteMarker"
	}
	l := "false"
	if latest {
		l = "true"
	}
	ts := time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05.000Z")
	body := "<Key>k</Key><VersionId>" + id + "</VersionId><IsLatest>" + l + "</IsLatest><LastModified>" + ts + "</LastModified>"
	if !marker {
		body += "<ETag>&#34;e-" + id + "&#34;</ETag><Size>3</Size>"
	}
	return "<" + tag + ">" + body + "</" + tag + ">"
}

func doc(entries ...string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?><ListVersionsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>` +
		strings.Join(entries, "") + `</ListVersionsResult>`)
}

func TestDecodeAndNormalizeOrder(t *testing.T) {
	cases := []struct {
		name    string
		doc     []byte
		want    []string // version IDs newest first; nil = ambiguous (no action, reported)
		markers []bool
		why     string // with want nil: what the error says was seen
	}{
		{"AWS order kept", doc(ver("v3", true, false, 30), ver("dm", false, true, 20), ver("v1", false, false, 10)), []string{"v3", "dm", "v1"}, []bool{false, true, false}, ""},
		{"two versions in one second keep document order", doc(ver("v3", true, false, 30), ver("v2", false, false, 10), ver("v1", false, false, 10)), []string{"v3", "v2", "v1"}, nil, ""},
		{"three versions in one second keep document order", doc(ver("v4", true, false, 10), ver("v3", false, false, 10), ver("v2", false, false, 10), ver("v1", false, false, 5)), []string{"v4", "v3", "v2", "v1"}, nil, ""},
		{"the latest listed in the middle of a tie", doc(ver("v3", false, false, 10), ver("v4", true, false, 10), ver("v2", false, false, 10)), []string{"v4", "v3", "v2"}, nil, ""},
		{"SeaweedFS lists a latest null version last", doc(ver("v1", false, false, 10), ver("null", true, false, 10)), []string{"null", "v1"}, nil, ""},
		{"noncurrent null listed last, older than the rest", doc(ver("v3", true, false, 30), ver("v2", false, false, 20), ver("v1", false, false, 20), ver("null", false, false, 10)), []string{"v3", "v2", "v1", "null"}, nil, ""},
		{"noncurrent null listed last, placed by its second", doc(ver("v3", true, false, 30), ver("v2", false, false, 10), ver("v1", false, false, 10), ver("null", false, false, 20)), []string{"v3", "null", "v2", "v1"}, nil, ""},
		{"noncurrent null out of order, distinct seconds", doc(ver("v3", true, false, 30), ver("v1", false, false, 10), ver("null", false, false, 20)), []string{"v3", "null", "v1"}, nil, ""},
		{"noncurrent null in place (MinIO) keeps document order", doc(ver("v3", true, false, 30), ver("null", false, false, 20), ver("v1", false, false, 20)), []string{"v3", "null", "v1"}, nil, ""},
		{"out of time order with distinct seconds is sorted", doc(ver("v3", true, false, 30), ver("v1", false, false, 10), ver("v2", false, false, 20)), []string{"v3", "v2", "v1"}, nil, ""},
		{"noncurrent null listed last tied with another version", doc(ver("v3", true, false, 30), ver("v1", false, false, 10), ver("null", false, false, 10)), nil, nil, `shares its LastModified second with "v1"`},
		{"out of time order and tied", doc(ver("v4", true, false, 30), ver("v1", false, false, 10), ver("v3", false, false, 20), ver("v2", false, false, 20)), nil, nil, `out of time order, and "v3" and "v2" share`},
		{"no latest", doc(ver("v2", false, false, 20), ver("v1", false, false, 10)), nil, nil, "none of its 2 versions IsLatest"},
		{"two latest", doc(ver("v2", true, false, 20), ver("v1", true, false, 10)), nil, nil, `both "v2" and "v1" IsLatest`},
		{"one version ID listed twice", doc(ver("null", true, false, 20), ver("null", false, true, 10)), nil, nil, `version ID "null" twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := decodeVersions(c.doc)
			if err != nil {
				t.Fatal(err)
			}
			g := &grouper{}
			g.add(p.Entries)
			if len(g.objs) != 1 {
				t.Fatalf("grouped %d objects, want 1", len(g.objs))
			}
			obj := g.objs[0]
			err = normalizeOrder("b", &obj)
			if c.want == nil {
				if filer.AsKeyError(err) == nil || !errors.Is(err, filer.ErrAmbiguousLayout) || !strings.Contains(err.Error(), c.why) {
					t.Fatalf("normalizeOrder = %v, want a *filer.KeyError wrapping ErrAmbiguousLayout saying %q", err, c.why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, v := range obj.Versions {
				ids = append(ids, v.VersionID)
				if c.markers != nil && v.DeleteMarker != c.markers[i] {
					t.Errorf("%s: DeleteMarker %v, want %v", v.VersionID, v.DeleteMarker, c.markers[i])
				}
				if !v.DeleteMarker && (v.ETag != "e-"+v.VersionID || v.Size != 3) {
					t.Errorf("%s: ETag %q size %d", v.VersionID, v.ETag, v.Size)
				}
			}
			if strings.Join(ids, ",") != strings.Join(c.want, ",") {
				t.Errorf("order %v, want %v", ids, c.want)
			}
		})
	}
}

func TestDecodeVersionsFailsClosed(t *testing.T) {
	bad := map[string][]byte{
		"bad time":     doc(strings.Replace(ver("v1", true, false, 10), "1970-01-01T00:00:10.000Z", "yesterday", 1)),
		"bad size":     doc(strings.Replace(ver("v1", true, false, 10), "<Size>3</Size>", "<Size>-1</Size>", 1)),
		"bad IsLatest": doc(strings.Replace(ver("v1", true, false, 10), "<IsLatest>true", "<IsLatest>yes", 1)),
		"no VersionId": doc(strings.Replace(ver("v1", true, false, 10), "<VersionId>v1</VersionId>", "", 1)),
		"not XML":      []byte("<ListVersionsResult><Version>"),
	}
	for name, d := range bad {
		if _, err := decodeVersions(d); !errors.Is(err, ErrBadListing) {
			t.Errorf("%s: err %v, want ErrBadListing", name, err)
		}
	}
}

func TestGrouperDropsMarkerKey(t *testing.T) {
	g := &grouper{after: "b"}
	g.add([]versionEntry{{Key: "a"}, {Key: "b"}, {Key: "c", Version: filer.Version{VersionID: "1"}}, {Key: "c", Version: filer.Version{VersionID: "2"}}, {Key: "d"}})
	if len(g.objs) != 2 || g.objs[0].Key != "c" || len(g.objs[0].Versions) != 2 || g.objs[1].Key != "d" {
		t.Fatalf("grouped %+v", g.objs)
	}
}

func TestIdentityAndPlace(t *testing.T) {
	base := filer.Identity{VersionID: "v1", MtimeNs: time.Unix(100, 250e6).UnixNano(), Size: 3, ETag: "e"}
	cases := []struct {
		name string
		got  filer.Identity
		want bool
	}{
		{"equal", base, true},
		{"same second, other millis", filer.Identity{VersionID: "v1", MtimeNs: time.Unix(100, 0).UnixNano(), Size: 3, ETag: "e"}, true},
		{"next second", filer.Identity{VersionID: "v1", MtimeNs: time.Unix(101, 0).UnixNano(), Size: 3, ETag: "e"}, false},
		{"other ETag", filer.Identity{VersionID: "v1", MtimeNs: base.MtimeNs, Size: 3, ETag: "f"}, false},
		{"other size", filer.Identity{VersionID: "v1", MtimeNs: base.MtimeNs, Size: 4, ETag: "e"}, false},
		{"other version", filer.Identity{VersionID: "v2", MtimeNs: base.MtimeNs, Size: 3, ETag: "e"}, false},
	}
	for _, c := range cases {
		if got := sameIdentity(c.got, base); got != c.want {
			t.Errorf("%s: sameIdentity = %v, want %v", c.name, got, c.want)
		}
	}
	obj := &filer.Object{Key: "k", Versions: []filer.Version{{VersionID: "dm", DeleteMarker: true}, {VersionID: "v1"}}}
	lone := &filer.Object{Key: "k", Versions: []filer.Version{{VersionID: "dm", DeleteMarker: true}}}
	live := &filer.Object{Key: "k", Versions: []filer.Version{{VersionID: "v2"}, {VersionID: "v1"}}}
	places := []struct {
		kind lifecycle.ActionKind
		obj  *filer.Object
		idx  int
		want bool
	}{
		{lifecycle.ExpirationDays, live, 0, true},
		{lifecycle.ExpirationDate, live, 1, false},
		{lifecycle.ExpirationDays, obj, 0, false}, // a marker is not expired again
		{lifecycle.NoncurrentDays, live, 1, true},
		{lifecycle.NewerNoncurrent, live, 0, false}, // became latest again
		{lifecycle.ExpiredDeleteMarker, lone, 0, true},
		{lifecycle.ExpiredDeleteMarker, obj, 0, false},
		{lifecycle.AbortMPU, live, 0, false},
	}
	for _, p := range places {
		if got := inPlace(p.kind, p.obj, p.idx); got != p.want {
			t.Errorf("inPlace(%s, %v, %d) = %v, want %v", p.kind, p.obj.Versions, p.idx, got, p.want)
		}
	}
}

func TestNeedsTags(t *testing.T) {
	xml := `<LifecycleConfiguration><Rule><ID>t</ID><Status>Enabled</Status><Filter><And><Prefix>docs/</Prefix><Tag><Key>a</Key><Value>b</Value></Tag><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan></And></Filter><Expiration><Days>1</Days></Expiration></Rule>` +
		`<Rule><ID>off</ID><Status>Disabled</Status><Filter><Tag><Key>a</Key><Value>b</Value></Tag></Filter><Expiration><Days>1</Days></Expiration></Rule>` +
		`<Rule><ID>p</ID><Status>Enabled</Status><Filter><Prefix>logs/</Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`
	b := &bucketInfo{tagRules: tagRulesOf(xml)}
	if len(b.tagRules) != 1 {
		t.Fatalf("tag rules %d, want 1 (enabled, with tags)", len(b.tagRules))
	}
	cases := []struct {
		key  string
		v    filer.Version
		want bool
	}{
		{"docs/x", filer.Version{Size: 20}, true},
		{"docs/x", filer.Version{Size: 5}, false},
		{"docs/x", filer.Version{DeleteMarker: true}, false},
		{"logs/x", filer.Version{Size: 20}, false},
	}
	for _, c := range cases {
		if got := b.needsTags(c.key, &c.v); got != c.want {
			t.Errorf("needsTags(%s, %+v) = %v, want %v", c.key, c.v, got, c.want)
		}
	}
	if tagRulesOf("<not xml") != nil {
		t.Error("an unparsable document yields tag rules")
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8333": true, "s3.example.com": true, "[::1]:9000": true,
		"": false, "host:8333/path": false, "user@host": false, ":8333": false, "host:": false,
	} {
		if err := checkAddr(addr); (err == nil) != ok {
			t.Errorf("checkAddr(%q) = %v, want ok %v", addr, err, ok)
		}
		if err := checkAddr(addr); err != nil && !errors.Is(err, ErrBadAddress) {
			t.Errorf("checkAddr(%q) = %v, not ErrBadAddress", addr, err)
		}
	}
}

func TestOpenState(t *testing.T) {
	cases := []struct {
		spec, want string
		err        bool
	}{
		{"", DefaultStateDir, false},
		{"/var/lib/ilmctl", "/var/lib/ilmctl", false},
		{"s3://state", "s3://state/", false},
		{"s3://state/cursors/", "s3://state/cursors/", false},
		{"s3://", "", true},
		{"s3://host:8333/b", "", true},
		{"gs://b", "", true},
	}
	for _, c := range cases {
		st, err := openState(c.spec, &Store{})
		if c.err {
			if !errors.Is(err, ErrBadState) {
				t.Errorf("openState(%q) = %v, want ErrBadState", c.spec, err)
			}
			continue
		}
		if err != nil || st.String() != c.want {
			t.Errorf("openState(%q) = %v, %v; want %s", c.spec, st, err, c.want)
		}
	}
}

func TestDirState(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	d := &dirState{root: root}
	const path = "/etc/s3/lifecycle/daily-cursors/shard-03.json"
	if _, err := d.read(ctx, path); !errors.Is(err, filer.ErrNotFound) {
		t.Fatalf("read before write = %v, want ErrNotFound", err)
	}
	for _, data := range []string{"one\n", "two\n"} {
		if err := d.write(ctx, path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := d.read(ctx, path)
		if err != nil || string(got) != data {
			t.Fatalf("read = %q, %v; want %q", got, err, data)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(root, "etc/s3/lifecycle/daily-cursors/*")); len(matches) != 1 {
		t.Errorf("state dir holds %v, want only the cursor (no temp files)", matches)
	}
	for _, bad := range []string{"", "/", "/etc/../x", "/etc//x", "/etc/./x"} {
		if err := d.write(ctx, bad, nil); !errors.Is(err, ErrBadState) {
			t.Errorf("write(%q) = %v, want ErrBadState", bad, err)
		}
	}
}

func TestOpenNeedsCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	if _, err := Open(context.Background(), "127.0.0.1:8333", Options{State: t.TempDir()}); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("Open without credentials = %v, want ErrNoCredentials", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	st, err := Open(context.Background(), "127.0.0.1:8333", Options{State: t.TempDir()})
	if err != nil || !st.NoMetaLog() || st.Endpoint() != "http://127.0.0.1:8333" {
		t.Fatalf("Open = %v, %v", st, err)
	}
	called := false
	if err := st.SubscribeMetadata(context.Background(), 0, 1, func(filer.Event) error { called = true; return nil }); err != nil || called {
		t.Errorf("SubscribeMetadata delivered an event or failed: %v", err)
	}
}
