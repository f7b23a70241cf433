package s3

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// fakeVersion is one version of the fake server's only key, "k".
type fakeVersion struct {
	ID     string
	Latest bool
	Marker bool
	Sec    int64 // LastModified, Unix seconds
	Size   int64
	ETag   string // as ListObjectVersions spells it
	Tags   map[string]string
	Hold   bool // legal hold ON
	// Head, when set, is what HeadObject reports instead of the listing's
	// size, LastModified and ETag: a stale listing, or SeaweedFS's
	// multipart ETag spelling.
	Head *headView
}

type headView struct {
	Gone bool
	Size int64
	Sec  int64
	ETag string
}

func (v *fakeVersion) head() headView {
	if v.Head != nil {
		return *v.Head
	}
	return headView{Size: v.Size, Sec: v.Sec, ETag: v.ETag}
}

// deleteCall is one DeleteObject the fake server received.
type deleteCall struct {
	VersionID string // "" when the request named none
	IfMatch   string // the header as sent, quotes included
}

// fakeS3 speaks just enough S3 for LifecycleDelete on one bucket "b" and
// one key "k": ListObjectVersions, GetObjectTagging, HeadObject,
// GetObjectLegalHold/Retention, DeleteObject, ListBuckets. DeleteObject
// honours If-Match against the ETag HeadObject reports, as S3 does.
type fakeS3 struct {
	t         *testing.T
	versioned bool

	mu           sync.Mutex
	vs           []fakeVersion // newest first
	tagStatus    int           // when set, GetObjectTagging fails with it
	tagCode      string
	deleteStatus int           // when set, every DeleteObject fails with it
	afterHead    func(*fakeS3) // runs once, after the first HeadObject is answered
	afterDelete  func(*fakeS3) // runs after each DeleteObject is answered
	date         []string      // the Date header; nil = Go's own
	deletes      []deleteCall
	heads        int
	taggings     int
}

func (f *fakeS3) find(id string) *fakeVersion {
	for i := range f.vs {
		if (id == "" && f.vs[i].Latest) || (id != "" && f.vs[i].ID == id) {
			return &f.vs[i]
		}
	}
	return nil
}

func (f *fakeS3) fail(w http.ResponseWriter, r *http.Request, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, code)
	}
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.date != nil {
		w.Header()["Date"] = f.date
	}
	q := r.URL.Query()
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	vid := q.Get("versionId")
	switch {
	case bucket == "" && r.Method == http.MethodGet:
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><ListAllMyBucketsResult><Owner><ID>o</ID></Owner><Buckets><Bucket><Name>b</Name><CreationDate>2026-01-01T00:00:00.000Z</CreationDate></Bucket></Buckets></ListAllMyBucketsResult>`)
	case key == "" && q.Has("versions"):
		var sb strings.Builder
		sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListVersionsResult><Name>b</Name><IsTruncated>false</IsTruncated>`)
		for _, v := range f.vs {
			tag := "Version"
			if v.Marker {
				tag = "DeleteMarker"
			}
			fmt.Fprintf(&sb, "<%s><Key>k</Key><VersionId>%s</VersionId><IsLatest>%v</IsLatest><LastModified>%s</LastModified>",
				tag, v.ID, v.Latest, time.Unix(v.Sec, 0).UTC().Format("2006-01-02T15:04:05.000Z"))
			if !v.Marker {
				fmt.Fprintf(&sb, "<ETag>&#34;%s&#34;</ETag><Size>%d</Size>", v.ETag, v.Size)
			}
			fmt.Fprintf(&sb, "</%s>", tag)
		}
		sb.WriteString(`</ListVersionsResult>`)
		fmt.Fprint(w, sb.String())
	case key == "k" && q.Has("tagging"):
		f.taggings++
		v := f.find(vid)
		switch {
		case f.tagStatus != 0:
			f.fail(w, r, f.tagStatus, f.tagCode)
		case v == nil || v.Marker:
			f.fail(w, r, 404, "NoSuchVersion")
		default:
			var sb strings.Builder
			for k, val := range v.Tags {
				fmt.Fprintf(&sb, "<Tag><Key>%s</Key><Value>%s</Value></Tag>", k, val)
			}
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Tagging><TagSet>%s</TagSet></Tagging>`, sb.String())
		}
	case key == "k" && q.Has("legal-hold"):
		status := "OFF"
		if v := f.find(vid); v != nil && v.Hold {
			status = "ON"
		}
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><LegalHold><Status>%s</Status></LegalHold>`, status)
	case key == "k" && q.Has("retention"):
		f.fail(w, r, 404, "NoSuchObjectLockConfiguration")
	case key == "k" && r.Method == http.MethodHead:
		f.heads++
		v := f.find(vid)
		if v == nil || v.Marker || v.head().Gone {
			f.fail(w, r, 404, "NotFound")
			break
		}
		h := v.head()
		w.Header().Set("ETag", `"`+h.ETag+`"`)
		w.Header().Set("Content-Length", fmt.Sprint(h.Size))
		w.Header().Set("Last-Modified", time.Unix(h.Sec, 0).UTC().Format(http.TimeFormat))
		if f.versioned {
			w.Header().Set("x-amz-version-id", v.ID)
		}
		if f.afterHead != nil {
			defer func(fn func(*fakeS3)) { fn(f) }(f.afterHead)
			f.afterHead = nil
		}
	case key == "k" && r.Method == http.MethodDelete:
		call := deleteCall{VersionID: vid, IfMatch: r.Header.Get("If-Match")}
		f.deletes = append(f.deletes, call)
		if f.afterDelete != nil {
			defer f.afterDelete(f)
		}
		v := f.find(vid)
		switch {
		case f.deleteStatus != 0:
			f.fail(w, r, f.deleteStatus, "PreconditionFailed")
		case v == nil || v.head().Gone:
			f.fail(w, r, 404, "NoSuchVersion")
		case call.IfMatch != "" && call.IfMatch != `"`+v.head().ETag+`"`:
			f.fail(w, r, 412, "PreconditionFailed")
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	default:
		f.t.Errorf("fake S3: unexpected %s %s", r.Method, r.URL)
		f.fail(w, r, 501, "NotImplemented")
	}
}

// fakeStore opens a Store on f with bucket "b" already described.
func fakeStore(t *testing.T, f *fakeS3, info *bucketInfo, now time.Time) *Store {
	t.Helper()
	return storeOn(t, f, info, now)
}

// storeOn opens a Store on the S3 server h, with bucket "b" described as
// info when it is not nil.
func storeOn(t *testing.T, h http.Handler, info *bucketInfo, now time.Time) *Store {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	st, err := Open(context.Background(), strings.TrimPrefix(srv.URL, "http://"), Options{
		PathStyle: true, State: t.TempDir(), Clock: func() time.Time { return now },
		Credentials: credentials.NewStaticCredentialsProvider("id", "secret", ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	if info != nil {
		st.buckets["b"] = info
	}
	return st
}

// appliesOf is DeleteRequest.Applies as the pass builds it: the real rule
// (the only one in ruleXML) evaluated on the fresh read, due by now.
func appliesOf(t *testing.T, ruleXML string, kind lifecycle.ActionKind, now time.Time) func(*filer.Object, int) bool {
	t.Helper()
	cfg, err := lifecycle.Parse([]byte(`<LifecycleConfiguration>` + ruleXML + `</LifecycleConfiguration>`))
	if err != nil {
		t.Fatal(err)
	}
	r := &cfg.Rules[0]
	return func(obj *filer.Object, idx int) bool {
		m, ok := lifecycle.EvaluateVersion(r, kind, obj, idx, lifecycle.RoundAWS)
		return ok && m.IsDue(now)
	}
}

const (
	tagRule  = `<Rule><ID>tag</ID><Status>Enabled</Status><Filter><Tag><Key>expire</Key><Value>yes</Value></Tag></Filter><Expiration><Days>1</Days></Expiration></Rule>`
	allRule  = `<Rule><ID>all</ID><Status>Enabled</Status><Filter></Filter><Expiration><Days>1</Days></Expiration></Rule>`
	ncRule   = `<Rule><ID>nc</ID><Status>Enabled</Status><Filter></Filter><NoncurrentVersionExpiration><NoncurrentDays>30</NoncurrentDays></NoncurrentVersionExpiration></Rule>`
	nnRule   = `<Rule><ID>nn</ID><Status>Enabled</Status><Filter></Filter><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`
	markRule = `<Rule><ID>dm</ID><Status>Enabled</Status><Filter></Filter><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`
)

// Every predicate a lifecycle action was chosen on is established again
// from fresh reads before the DeleteObject, and a 412 is told apart from a
// resolved race: the path a delete takes alone (Object Lock buckets, a
// batched delete the server refused; batch_test.go covers the batches).
func TestLifecycleDeleteRechecks(t *testing.T) {
	const day = 86400
	b0 := time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC).Unix()
	now := time.Unix(b0, 0).Add(100 * 24 * time.Hour)
	yes, no := map[string]string{"expire": "yes"}, map[string]string{"expire": "no"}
	latest := func(id string, sec int64, etag string) fakeVersion {
		return fakeVersion{ID: id, Latest: true, Sec: sec, Size: 3, ETag: etag}
	}
	old := func(id string, sec int64, etag string) fakeVersion {
		return fakeVersion{ID: id, Sec: sec, Size: 3, ETag: etag}
	}
	tagged := func(v fakeVersion, tags map[string]string) fakeVersion { v.Tags = tags; return v }
	cases := []struct {
		name       string
		versioning filer.Versioning
		lock       bool
		rule       string
		noApplies  bool // send no Applies (old callers)
		kind       lifecycle.ActionKind
		listed     []fakeVersion // the key when the pass evaluated it
		target     string
		// changed turns the server's state into what it is at delete time.
		changed      func(f *fakeS3)
		afterHead    func(f *fakeS3)
		afterDelete  func(f *fakeS3)
		deleteStatus int
		tagStatus    int
		tagCode      string

		want        filer.Outcome
		wantErr     bool
		wantDeletes []deleteCall
		wantHeads   int // -1: not checked
	}{
		{
			name: "tags still match: deleted", versioning: filer.VersioningEnabled, rule: tagRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{tagged(latest("v1", b0, "e1"), yes)}, target: "v1",
			want: filer.OutcomeDone, wantDeletes: []deleteCall{{"", `"e1"`}}, wantHeads: 1,
		},
		{
			name: "retagged expire=no: Applies false", versioning: filer.VersioningEnabled, rule: tagRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{tagged(latest("v1", b0, "e1"), yes)}, target: "v1",
			changed: func(f *fakeS3) { f.vs[0].Tags = no },
			want:    filer.OutcomeNoopResolved, wantHeads: 0,
		},
		{
			name: "retagged, unversioned bucket", versioning: filer.VersioningOff, rule: tagRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{tagged(latest("null", b0, "e1"), yes)}, target: "null",
			changed: func(f *fakeS3) { f.vs[0].Tags = map[string]string{} },
			want:    filer.OutcomeNoopResolved, wantHeads: 0,
		},
		{
			name: "tags gone with the version", versioning: filer.VersioningEnabled, rule: tagRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{tagged(latest("v1", b0, "e1"), yes)}, target: "v1",
			tagStatus: 404, tagCode: "NoSuchVersion",
			want: filer.OutcomeNoopResolved, wantHeads: 0,
		},
		{
			name: "tags unreadable: nothing deleted", versioning: filer.VersioningEnabled, rule: tagRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{tagged(latest("v1", b0, "e1"), yes)}, target: "v1",
			tagStatus: 403, tagCode: "AccessDenied",
			wantErr: true, wantHeads: 0,
		},
		{
			name: "size changed, listing stale", versioning: filer.VersioningEnabled, rule: allRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{latest("v1", b0, "e1")}, target: "v1",
			changed: func(f *fakeS3) { f.vs[0].Head = &headView{Size: 4, Sec: b0, ETag: "e1"} },
			want:    filer.OutcomeNoopResolved, wantHeads: 1,
		},
		{
			name: "LastModified changed, listing stale", versioning: filer.VersioningOff, rule: allRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{latest("null", b0, "e1")}, target: "null",
			changed: func(f *fakeS3) { f.vs[0].Head = &headView{Size: 3, Sec: b0 + 5, ETag: "e1"} },
			want:    filer.OutcomeNoopResolved, wantHeads: 1,
		},
		{
			name: "gone by HEAD", versioning: filer.VersioningEnabled, rule: allRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{latest("v1", b0, "e1")}, target: "v1",
			changed: func(f *fakeS3) { f.vs[0].Head = &headView{Gone: true} },
			want:    filer.OutcomeNoopResolved, wantHeads: 1,
		},
		{
			name: "no longer latest", versioning: filer.VersioningEnabled, rule: allRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{latest("v1", b0, "e1")}, target: "v1",
			changed: func(f *fakeS3) {
				f.vs[0].Latest = false
				f.vs = append([]fakeVersion{latest("v2", now.Unix()-3600, "e2")}, f.vs...)
			},
			want: filer.OutcomeNoopResolved, wantHeads: 0,
		},
		{
			name: "successor replaced by a recent one: not due", versioning: filer.VersioningEnabled, rule: ncRule, kind: lifecycle.NoncurrentDays,
			listed: []fakeVersion{latest("v2", b0+day, "e2"), old("v1", b0, "e1")}, target: "v1",
			changed: func(f *fakeS3) { f.vs[0] = latest("v3", now.Unix()-day, "e3") },
			want:    filer.OutcomeNoopResolved, wantHeads: 0,
		},
		{
			name: "a newer noncurrent version went: count not exceeded", versioning: filer.VersioningEnabled, rule: nnRule, kind: lifecycle.NewerNoncurrent,
			listed: []fakeVersion{latest("v3", b0+2*day, "e3"), old("v2", b0+day, "e2"), old("v1", b0, "e1")}, target: "v1",
			changed: func(f *fakeS3) { f.vs = slices.Delete(f.vs, 1, 2) },
			want:    filer.OutcomeNoopResolved, wantHeads: 0,
		},
		{
			name: "newer noncurrent count still exceeded: deleted", versioning: filer.VersioningEnabled, rule: nnRule, kind: lifecycle.NewerNoncurrent,
			listed: []fakeVersion{latest("v3", b0+2*day, "e3"), old("v2", b0+day, "e2"), old("v1", b0, "e1")}, target: "v1",
			want: filer.OutcomeDone, wantDeletes: []deleteCall{{"v1", `"e1"`}}, wantHeads: 1,
		},
		{
			name: "legal hold added", versioning: filer.VersioningEnabled, lock: true, rule: ncRule, kind: lifecycle.NoncurrentDays,
			listed: []fakeVersion{latest("v2", b0+day, "e2"), old("v1", b0, "e1")}, target: "v1",
			changed: func(f *fakeS3) { f.vs[1].Hold = true },
			want:    filer.OutcomeSkippedObjectLock, wantHeads: 1,
		},
		{
			name: "listing ETag differs from HEAD ETag: If-Match carries HEAD's", versioning: filer.VersioningOff, rule: allRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{{ID: "null", Latest: true, Sec: b0, Size: 3, ETag: "aaaa-2", Head: &headView{Size: 3, Sec: b0, ETag: "bbbb-1"}}}, target: "null",
			want: filer.OutcomeDone, wantDeletes: []deleteCall{{"", `"bbbb-1"`}}, wantHeads: 1,
		},
		{
			name: "412, HEAD unchanged: STUCK", versioning: filer.VersioningEnabled, rule: ncRule, kind: lifecycle.NoncurrentDays,
			listed: []fakeVersion{latest("v2", b0+day, "e2"), old("v1", b0, "e1")}, target: "v1",
			deleteStatus: 412,
			want:         filer.OutcomeStuck, wantDeletes: []deleteCall{{"v1", `"e1"`}}, wantHeads: 2,
		},
		{
			name: "412, HEAD ETag changed: resolved", versioning: filer.VersioningEnabled, rule: ncRule, kind: lifecycle.NoncurrentDays,
			listed: []fakeVersion{latest("v2", b0+day, "e2"), old("v1", b0, "e1")}, target: "v1",
			deleteStatus: 412, afterDelete: func(f *fakeS3) { f.vs[1].Head = &headView{Size: 3, Sec: b0, ETag: "e1-other"} },
			want: filer.OutcomeNoopResolved, wantDeletes: []deleteCall{{"v1", `"e1"`}}, wantHeads: 2,
		},
		{
			name: "412, HEAD size changed: resolved", versioning: filer.VersioningOff, rule: allRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{latest("null", b0, "e1")}, target: "null",
			deleteStatus: 412, afterDelete: func(f *fakeS3) { f.vs[0].Head = &headView{Size: 9, Sec: b0, ETag: "e1"} },
			want: filer.OutcomeNoopResolved, wantDeletes: []deleteCall{{"", `"e1"`}}, wantHeads: 2,
		},
		{
			name: "412 because a new version became latest: resolved, not STUCK", versioning: filer.VersioningEnabled, rule: allRule, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{latest("v1", b0, "e1")}, target: "v1",
			afterHead: func(f *fakeS3) {
				f.vs[0].Latest = false
				f.vs = append([]fakeVersion{latest("v2", now.Unix(), "e2")}, f.vs...)
			},
			want: filer.OutcomeNoopResolved, wantDeletes: []deleteCall{{"", `"e1"`}}, wantHeads: 1,
		},
		{
			name: "expired delete marker: no HEAD, no If-Match", versioning: filer.VersioningEnabled, rule: markRule, kind: lifecycle.ExpiredDeleteMarker,
			listed: []fakeVersion{{ID: "dm", Latest: true, Marker: true, Sec: b0}}, target: "dm",
			want: filer.OutcomeDone, wantDeletes: []deleteCall{{"dm", ""}}, wantHeads: 0,
		},
		{
			name: "no Applies: no tag read, HEAD ETag still used", versioning: filer.VersioningEnabled, rule: tagRule, noApplies: true, kind: lifecycle.ExpirationDays,
			listed: []fakeVersion{{ID: "v1", Latest: true, Sec: b0, Size: 3, ETag: "aaaa-2", Tags: no, Head: &headView{Size: 3, Sec: b0, ETag: "bbbb-1"}}}, target: "v1",
			want: filer.OutcomeDone, wantDeletes: []deleteCall{{"", `"bbbb-1"`}}, wantHeads: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeS3{t: t, versioned: c.versioning != filer.VersioningOff, vs: slices.Clone(c.listed),
				tagStatus: c.tagStatus, tagCode: c.tagCode, deleteStatus: c.deleteStatus, afterHead: c.afterHead, afterDelete: c.afterDelete}
			xml := `<LifecycleConfiguration>` + c.rule + `</LifecycleConfiguration>`
			st := fakeStore(t, f, &bucketInfo{versioning: c.versioning, objectLock: c.lock, tagRules: tagRulesOf(xml)}, now)
			st.oneByOne = true
			// Expected is the target as the pass listed it.
			i := slices.IndexFunc(c.listed, func(v fakeVersion) bool { return v.ID == c.target })
			lv := c.listed[i]
			expected := filer.Identity{VersionID: lv.ID, MtimeNs: time.Unix(lv.Sec, 0).UnixNano(), Size: lv.Size, ETag: lv.ETag}
			if lv.Marker {
				expected.Size, expected.ETag = 0, ""
			}
			if c.changed != nil {
				c.changed(f)
			}
			req := filer.DeleteRequest{Bucket: "b", Key: "k", Kind: c.kind, RuleID: "r", Expected: expected}
			if !c.noApplies {
				req.Applies = appliesOf(t, c.rule, c.kind, now)
			}
			got, err := st.LifecycleDelete(context.Background(), req)
			if got != c.want || (err != nil) != c.wantErr {
				t.Errorf("LifecycleDelete = %q, %v; want %q, error %v", got, err, c.want, c.wantErr)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if !slices.Equal(f.deletes, c.wantDeletes) {
				t.Errorf("DeleteObject calls %+v, want %+v", f.deletes, c.wantDeletes)
			}
			if c.wantHeads >= 0 && f.heads != c.wantHeads {
				t.Errorf("HeadObject calls %d, want %d", f.heads, c.wantHeads)
			}
			if wantTags := !c.noApplies && c.rule == tagRule; (f.taggings > 0) != wantTags {
				t.Errorf("GetObjectTagging calls %d, want some: %v", f.taggings, wantTags)
			}
		})
	}
}

func TestServerTime(t *testing.T) {
	date := time.Date(2026, 11, 30, 8, 17, 4, 0, time.UTC)
	f := &fakeS3{t: t, date: []string{date.Format(http.TimeFormat)}}
	st := fakeStore(t, f, nil, time.Now())
	got, err := st.ServerTime(context.Background())
	if err != nil || !got.Equal(date) || got.Location() != time.UTC {
		t.Errorf("ServerTime = %v, %v; want %v", got, err, date)
	}

	f.mu.Lock()
	f.date = []string{} // present but empty: Go's server then sends no Date
	f.mu.Unlock()
	if got, err := st.ServerTime(context.Background()); !errors.Is(err, ErrNoServerDate) {
		t.Errorf("ServerTime without a Date header = %v, %v; want ErrNoServerDate", got, err)
	}
}

// hangingS3 answers no request until the test ends.
type hangingS3 struct{ done chan struct{} }

func (h hangingS3) ServeHTTP(_ http.ResponseWriter, r *http.Request) {
	select {
	case <-h.done:
	case <-r.Context().Done():
	}
}

// A delete the server leaves unanswered fails with filer.ErrNoAnswer once
// the store's own deadline passes, a transport error and not a context
// error; the pass's own cancellation still comes back as a cancellation.
func TestLifecycleDeleteNoAnswer(t *testing.T) {
	h := hangingS3{done: make(chan struct{})}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(h.done) }) // runs first: the handlers return, then the server closes
	st, err := Open(context.Background(), strings.TrimPrefix(srv.URL, "http://"), Options{
		PathStyle: true, State: t.TempDir(),
		Credentials: credentials.NewStaticCredentialsProvider("id", "secret", ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	st.buckets["b"] = &bucketInfo{versioning: filer.VersioningEnabled}
	req := filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, RuleID: "nc",
		Expected: filer.Identity{VersionID: "v1", MtimeNs: 1, Size: 3, ETag: "e"}}

	st.deleteTimeout = 20 * time.Millisecond
	_, err = st.LifecycleDelete(context.Background(), req)
	if !errors.Is(err, filer.ErrNoAnswer) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("unanswered delete: %v; want filer.ErrNoAnswer, not a context error", err)
	}

	st.deleteTimeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := st.LifecycleDelete(ctx, req)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || errors.Is(err, filer.ErrNoAnswer) {
		t.Errorf("cancelled pass: %v; want context.Canceled", err)
	}
}
