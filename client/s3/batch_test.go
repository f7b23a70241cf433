package s3

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// bucketS3 speaks the S3 a batched delete uses, for one bucket "b" of many
// keys: ListObjectVersions (prefix, key and version markers, max-keys,
// truncation), GetObjectTagging, HeadObject, DeleteObject with If-Match,
// DeleteObjects with per-entry ETag, ListBuckets. Deletes change what it
// lists, as a server's do; conditions compare with the ETag HeadObject
// reports (fakeVersion.Head), as S3 does.
type bucketS3 struct {
	t         *testing.T
	versioned bool
	page      int // max-keys cap; 0 = as asked
	// ignoreETag makes DeleteObjects ignore entry ETags (MinIO).
	ignoreETag bool
	// entryCode answers the DeleteObjects entry of a key with that error
	// code; "omit" leaves the key out of the answer.
	entryCode map[string]string
	// batchStatus answers every DeleteObjects with that status.
	batchStatus int

	mu       sync.Mutex
	keys     map[string][]fakeVersion // newest first
	requests map[string]int           // by operation
	batches  [][]string               // DeleteObjects entries: key@versionId#ETag
	deletes  []string                 // DeleteObject: key@versionId#If-Match
}

func (f *bucketS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	_, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	op := ""
	switch {
	case key == "" && q.Has("versions"):
		op = "ListObjectVersions"
		f.list(w, q)
	case key == "" && q.Has("delete") && r.Method == http.MethodPost:
		op = "DeleteObjects"
		f.deleteObjects(w, r)
	case q.Has("tagging"):
		op = "GetObjectTagging"
		v := f.find(key, q.Get("versionId"))
		if v == nil {
			f.fail(w, r, 404, "NoSuchVersion")
			break
		}
		var sb strings.Builder
		for k, val := range v.Tags {
			fmt.Fprintf(&sb, "<Tag><Key>%s</Key><Value>%s</Value></Tag>", k, val)
		}
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Tagging><TagSet>%s</TagSet></Tagging>`, sb.String())
	case r.Method == http.MethodHead:
		op = "HeadObject"
		v := f.find(key, q.Get("versionId"))
		if v == nil || v.Marker {
			f.fail(w, r, 404, "NotFound")
			break
		}
		h := v.head()
		w.Header().Set("ETag", `"`+h.ETag+`"`)
		w.Header().Set("Content-Length", fmt.Sprint(h.Size))
		w.Header().Set("Last-Modified", time.Unix(h.Sec, 0).UTC().Format(http.TimeFormat))
	case r.Method == http.MethodDelete:
		op = "DeleteObject"
		vid, ifMatch := q.Get("versionId"), r.Header.Get("If-Match")
		f.deletes = append(f.deletes, key+"@"+vid+"#"+strings.Trim(ifMatch, `"`))
		if code := f.apply(key, vid, strings.Trim(ifMatch, `"`)); code != "" {
			f.fail(w, r, map[string]int{"PreconditionFailed": 412, "NoSuchVersion": 404}[code], code)
			break
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		f.t.Errorf("fake S3: unexpected %s %s", r.Method, r.URL)
		f.fail(w, r, 501, "NotImplemented")
	}
	if f.requests == nil {
		f.requests = map[string]int{}
	}
	f.requests[op]++
}

func (f *bucketS3) fail(w http.ResponseWriter, r *http.Request, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, code)
	}
}

func (f *bucketS3) find(key, id string) *fakeVersion {
	vs := f.keys[key]
	for i := range vs {
		if (id == "" && vs[i].Latest) || vs[i].ID == id {
			return &vs[i]
		}
	}
	return nil
}

// apply deletes key's version id (a delete marker over the latest when id
// is "" on a versioned bucket) if etag, when set, is its HEAD ETag; it
// returns the error code of a refusal, "" when done.
func (f *bucketS3) apply(key, id, etag string) string {
	v := f.find(key, id)
	switch {
	case v == nil && id != "":
		return "NoSuchVersion"
	case etag != "" && (v == nil || v.head().ETag != etag):
		return "PreconditionFailed"
	case id == "" && f.versioned:
		vs := f.keys[key]
		for i := range vs {
			vs[i].Latest = false
		}
		f.keys[key] = append([]fakeVersion{{ID: "dm-" + key, Latest: true, Marker: true, Sec: vs[0].Sec + 1}}, vs...)
	case v != nil:
		f.keys[key] = slices.DeleteFunc(f.keys[key], func(o fakeVersion) bool { return o.ID == v.ID })
	}
	return ""
}

// list answers ListObjectVersions: entries in key order, each key's
// versions as stored, after key-marker (and version-id-marker), with
// prefix, at most max-keys.
func (f *bucketS3) list(w http.ResponseWriter, q map[string][]string) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	prefix, km, vm := get("prefix"), get("key-marker"), get("version-id-marker")
	if km != "" && !strings.HasPrefix(km, prefix) {
		// As MinIO answers a marker outside the prefix.
		fmt.Fprint(w, "")
		f.t.Errorf("ListObjectVersions with key-marker %q outside prefix %q (MinIO: 501 NotImplemented)", km, prefix)
		return
	}
	limit, _ := strconv.Atoi(get("max-keys"))
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	if f.page > 0 && f.page < limit {
		limit = f.page
	}
	keys := make([]string, 0, len(f.keys))
	for k := range f.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type entry struct {
		key string
		v   fakeVersion
	}
	var all []entry
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		for _, v := range f.keys[k] {
			all = append(all, entry{k, v})
		}
	}
	start := 0
	if km != "" {
		start = len(all)
		for i, e := range all {
			if (vm == "" && e.key > km) || (vm != "" && i > 0 && all[i-1].key == km && all[i-1].v.ID == vm) {
				start = i
				break
			}
		}
	}
	end := min(len(all), start+limit)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<?xml version="1.0" encoding="UTF-8"?><ListVersionsResult><Name>b</Name><IsTruncated>%v</IsTruncated>`, end < len(all))
	if end < len(all) {
		fmt.Fprintf(&sb, "<NextKeyMarker>%s</NextKeyMarker><NextVersionIdMarker>%s</NextVersionIdMarker>", all[end-1].key, all[end-1].v.ID)
	}
	for _, e := range all[start:end] {
		tag := "Version"
		if e.v.Marker {
			tag = "DeleteMarker"
		}
		fmt.Fprintf(&sb, "<%s><Key>%s</Key><VersionId>%s</VersionId><IsLatest>%v</IsLatest><LastModified>%s</LastModified>",
			tag, e.key, e.v.ID, e.v.Latest, time.Unix(e.v.Sec, 0).UTC().Format("2006-01-02T15:04:05.000Z"))
		if !e.v.Marker {
			fmt.Fprintf(&sb, "<ETag>&#34;%s&#34;</ETag><Size>%d</Size>", e.v.ETag, e.v.Size)
		}
		fmt.Fprintf(&sb, "</%s>", tag)
	}
	sb.WriteString(`</ListVersionsResult>`)
	fmt.Fprint(w, sb.String())
}

func (f *bucketS3) deleteObjects(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Objects []struct {
			Key       string `xml:"Key"`
			VersionID string `xml:"VersionId"`
			ETag      string `xml:"ETag"`
		} `xml:"Object"`
	}
	if err := xml.Unmarshal(body, &req); err != nil {
		f.t.Errorf("DeleteObjects body %q: %v", body, err)
	}
	var sent []string
	for _, o := range req.Objects {
		sent = append(sent, o.Key+"@"+o.VersionID+"#"+strings.Trim(o.ETag, `"`))
	}
	f.batches = append(f.batches, sent)
	if f.batchStatus != 0 {
		f.fail(w, r, f.batchStatus, http.StatusText(f.batchStatus))
		return
	}
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><DeleteResult>`)
	for _, o := range req.Objects {
		code := f.entryCode[o.Key]
		if code == "omit" {
			continue
		}
		if code == "" {
			etag := strings.Trim(o.ETag, `"`)
			if f.ignoreETag {
				etag = ""
			}
			code = f.apply(o.Key, o.VersionID, etag)
		}
		if code != "" {
			fmt.Fprintf(&sb, "<Error><Key>%s</Key><VersionId>%s</VersionId><Code>%s</Code><Message>%s</Message></Error>", o.Key, o.VersionID, code, code)
			continue
		}
		fmt.Fprintf(&sb, "<Deleted><Key>%s</Key><VersionId>%s</VersionId></Deleted>", o.Key, o.VersionID)
	}
	sb.WriteString(`</DeleteResult>`)
	fmt.Fprint(w, sb.String())
}

// bucketStore opens a Store on f with bucket "b" described.
func bucketStore(t *testing.T, f *bucketS3, info *bucketInfo, now time.Time) *Store {
	t.Helper()
	return storeOn(t, f, info, now)
}

// request is a DeleteRequest for version id of key as f lists it now.
func request(f *bucketS3, key, id string, kind lifecycle.ActionKind, applies func(*filer.Object, int) bool) filer.DeleteRequest {
	for _, v := range f.keys[key] {
		if v.ID == id {
			exp := filer.Identity{VersionID: v.ID, MtimeNs: time.Unix(v.Sec, 0).UnixNano(), Size: v.Size, ETag: v.ETag}
			if v.Marker {
				exp.Size, exp.ETag = 0, ""
			}
			return filer.DeleteRequest{Bucket: "b", Key: key, Kind: kind, RuleID: "r", Expected: exp, Applies: applies}
		}
	}
	panic("no version " + key + "@" + id)
}

// A batch of deletes costs one listing and one DeleteObjects, whatever its
// size; each target's answer maps to its own outcome; a target rewritten
// after the fresh listing survives; a target that needs an ETag condition
// the server was not proven to honour goes alone.
func TestBatchedDeletes(t *testing.T) {
	b0 := time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC).Unix()
	now := time.Unix(b0, 0).Add(100 * 24 * time.Hour)
	cur := func(id, etag string) fakeVersion {
		return fakeVersion{ID: id, Latest: true, Sec: b0 + 86400, Size: 3, ETag: etag}
	}
	old := func(id, etag string) fakeVersion { return fakeVersion{ID: id, Sec: b0, Size: 3, ETag: etag} }
	type target struct {
		key, id string
		kind    lifecycle.ActionKind
		rule    string
	}
	expire := func(key, id string) target { return target{key, id, lifecycle.ExpirationDays, allRule} }
	noncurrent := func(key, id string) target { return target{key, id, lifecycle.NoncurrentDays, ncRule} }
	cases := []struct {
		name       string
		versioned  bool
		proven     bool // CheckCAS proved DeleteObjects' ETag
		ignoreETag bool
		page       int
		keys       map[string][]fakeVersion
		targets    []target
		// changed runs after the targets are listed (a stale listing);
		// rewrite after the batch's own fresh listing.
		changed     func(f *bucketS3)
		rewrite     func(f *bucketS3)
		entryCode   map[string]string
		batchStatus int

		want         []filer.Outcome // "" for an error
		wantBatches  [][]string
		wantDeletes  []string
		wantRequests map[string]int
		wantLeft     map[string][]string // key: version IDs left
	}{
		{
			name: "unversioned expirations: one listing, one DeleteObjects, ETag per entry", proven: true,
			keys:         map[string][]fakeVersion{"a": {cur("null", "ea")}, "b": {cur("null", "eb")}, "c": {cur("null", "ec")}, "d": {cur("null", "ed")}},
			targets:      []target{expire("a", "null"), expire("b", "null"), expire("c", "null"), expire("d", "null")},
			want:         []filer.Outcome{filer.OutcomeDone, filer.OutcomeDone, filer.OutcomeDone, filer.OutcomeDone},
			wantBatches:  [][]string{{"a@#ea", "b@#eb", "c@#ec", "d@#ed"}},
			wantRequests: map[string]int{"ListObjectVersions": 1, "DeleteObjects": 1},
			wantLeft:     map[string][]string{},
		},
		{
			name: "noncurrent versions need no ETag, a null version does", versioned: true,
			keys: map[string][]fakeVersion{
				"a": {cur("a2", "ea2"), old("a1", "ea1")},
				"b": {cur("b2", "eb2"), old("null", "ebn")},
			},
			targets:      []target{noncurrent("a", "a1"), noncurrent("b", "null")},
			proven:       true,
			want:         []filer.Outcome{filer.OutcomeDone, filer.OutcomeDone},
			wantBatches:  [][]string{{"a@a1#", "b@null#ebn"}},
			wantRequests: map[string]int{"ListObjectVersions": 1, "DeleteObjects": 1},
			wantLeft:     map[string][]string{"a": {"a2"}, "b": {"b2"}},
		},
		{
			name: "ETag not proven: current and null versions go alone with If-Match", versioned: true,
			keys: map[string][]fakeVersion{
				"a": {cur("a2", "ea2"), old("a1", "ea1")},
				"b": {cur("b2", "eb2"), old("null", "ebn")},
				"c": {cur("c1", "ec1")},
			},
			targets:      []target{noncurrent("a", "a1"), noncurrent("b", "null"), expire("c", "c1")},
			want:         []filer.Outcome{filer.OutcomeDone, filer.OutcomeDone, filer.OutcomeDone},
			wantBatches:  [][]string{{"a@a1#"}},
			wantDeletes:  []string{"b@null#ebn", "c@#ec1"},
			wantRequests: map[string]int{"ListObjectVersions": 1, "DeleteObjects": 1, "DeleteObject": 2},
			wantLeft:     map[string][]string{"a": {"a2"}, "b": {"b2"}, "c": {"dm-c", "c1"}},
		},
		{
			name: "rewritten after the fresh listing: the entry is refused, decided alone, NOOP_RESOLVED", proven: true,
			keys:    map[string][]fakeVersion{"a": {cur("null", "ea")}, "b": {cur("null", "eb")}},
			targets: []target{expire("a", "null"), expire("b", "null")},
			rewrite: func(f *bucketS3) {
				f.keys["b"] = []fakeVersion{{ID: "null", Latest: true, Sec: now.Unix(), Size: 9, ETag: "eb-new"}}
			},
			want:        []filer.Outcome{filer.OutcomeDone, filer.OutcomeNoopResolved},
			wantBatches: [][]string{{"a@#ea", "b@#eb"}},
			// deleteOne lists b again and finds it changed: no HEAD, no delete.
			wantRequests: map[string]int{"ListObjectVersions": 2, "DeleteObjects": 1},
			wantLeft:     map[string][]string{"b": {"null"}},
		},
		{
			name: "a server that ignores the entry ETag deletes the rewrite (MinIO; --check-cas refuses it)", proven: true, ignoreETag: true,
			keys:    map[string][]fakeVersion{"a": {cur("null", "ea")}},
			targets: []target{expire("a", "null")},
			rewrite: func(f *bucketS3) {
				f.keys["a"] = []fakeVersion{{ID: "null", Latest: true, Sec: now.Unix(), Size: 9, ETag: "ea-new"}}
			},
			want:         []filer.Outcome{filer.OutcomeDone},
			wantBatches:  [][]string{{"a@#ea"}},
			wantRequests: map[string]int{"ListObjectVersions": 1, "DeleteObjects": 1},
			wantLeft:     map[string][]string{},
		},
		{
			name: "listing spells the ETag otherwise (SeaweedFS null version): refused, then HEAD's ETag", proven: true,
			keys:         map[string][]fakeVersion{"a": {{ID: "null", Latest: true, Sec: b0, Size: 3, ETag: "aaaa-2", Head: &headView{Size: 3, Sec: b0, ETag: "bbbb-1"}}}},
			targets:      []target{expire("a", "null")},
			want:         []filer.Outcome{filer.OutcomeDone},
			wantBatches:  [][]string{{"a@#aaaa-2"}},
			wantDeletes:  []string{"a@#bbbb-1"},
			wantRequests: map[string]int{"ListObjectVersions": 2, "DeleteObjects": 1, "HeadObject": 1, "DeleteObject": 1},
			wantLeft:     map[string][]string{},
		},
		{
			name: "mixed answers map per entry", versioned: true, proven: true,
			keys: map[string][]fakeVersion{
				"a": {cur("a2", "e"), old("a1", "e")}, "b": {cur("b2", "e"), old("b1", "e")}, "c": {cur("c2", "e"), old("c1", "e")},
				"d": {cur("d2", "e"), old("d1", "e")}, "e": {cur("e2", "e"), old("e1", "e")}, "f": {cur("f2", "e"), old("f1", "e")},
				"g": {cur("g2", "e"), old("g1", "e")},
			},
			targets: []target{noncurrent("a", "a1"), noncurrent("b", "b1"), noncurrent("c", "c1"), noncurrent("d", "d1"),
				noncurrent("e", "e1"), noncurrent("f", "f1"), noncurrent("g", "g1")},
			changed:   func(f *bucketS3) { f.keys["b"] = f.keys["b"][:1] }, // b1 went since it was listed
			entryCode: map[string]string{"c": "NoSuchVersion", "d": "SlowDown", "e": "InternalError", "f": "omit", "g": "AccessDenied"},
			want: []filer.Outcome{filer.OutcomeDone, filer.OutcomeNoopResolved, filer.OutcomeNoopResolved, filer.OutcomeRetryLater,
				"", "", ""},
			wantBatches:  [][]string{{"a@a1#", "c@c1#", "d@d1#", "e@e1#", "f@f1#", "g@g1#"}},
			wantRequests: map[string]int{"ListObjectVersions": 1, "DeleteObjects": 1},
		},
		{
			name: "503 on the whole request: every entry RETRY_LATER", versioned: true, proven: true, batchStatus: 503,
			keys:        map[string][]fakeVersion{"a": {cur("a2", "e"), old("a1", "e")}, "b": {cur("b2", "e"), old("b1", "e")}},
			targets:     []target{noncurrent("a", "a1"), noncurrent("b", "b1")},
			want:        []filer.Outcome{filer.OutcomeRetryLater, filer.OutcomeRetryLater},
			wantBatches: [][]string{{"a@a1#", "b@b1#"}},
		},
		{
			name: "500 on the whole request: every entry a transport error", versioned: true, proven: true, batchStatus: 500,
			keys:        map[string][]fakeVersion{"a": {cur("a2", "e"), old("a1", "e")}, "b": {cur("b2", "e"), old("b1", "e")}},
			targets:     []target{noncurrent("a", "a1"), noncurrent("b", "b1")},
			want:        []filer.Outcome{"", ""},
			wantBatches: [][]string{{"a@a1#", "b@b1#"}},
		},
		{
			name: "sparse keys on small pages: a page per neighbourhood, a listing of its own past a crowd", proven: true, page: 3,
			keys: func() map[string][]fakeVersion {
				m := map[string][]fakeVersion{}
				for i := range 30 {
					m[fmt.Sprintf("k%02d", i)] = []fakeVersion{cur("null", fmt.Sprintf("e%02d", i))}
				}
				for i := range 10 {
					m[fmt.Sprintf("a%d", i)] = []fakeVersion{cur("null", "a")} // all sort between "a" and "ab"
					m[fmt.Sprintf("x%d", i)] = []fakeVersion{cur("null", "x")}
				}
				m["ab"] = []fakeVersion{cur("null", "ab")}
				m["xa"] = []fakeVersion{cur("null", "xa")}
				return m
			}(),
			// ab: a page after "a" ends at a2, so ab gets a listing of its
			// own; k01 k02: a page after "k0", and the next (k03 k04 k05)
			// to see that k02 ends; k21: a jump to "k2" (k20 k21 k22); xa:
			// the last key left, so its page has it as prefix and skips
			// x0-x9.
			targets:      []target{expire("ab", "null"), expire("k01", "null"), expire("k02", "null"), expire("k21", "null"), expire("xa", "null")},
			want:         []filer.Outcome{filer.OutcomeDone, filer.OutcomeDone, filer.OutcomeDone, filer.OutcomeDone, filer.OutcomeDone},
			wantBatches:  [][]string{{"ab@#ab", "k01@#e01", "k02@#e02", "k21@#e21", "xa@#xa"}},
			wantRequests: map[string]int{"ListObjectVersions": 6, "DeleteObjects": 1},
		},
		{
			name: "tag rule: tags read again per target, a retagged one NOOP_RESOLVED", proven: true,
			keys: map[string][]fakeVersion{
				"a": {{ID: "null", Latest: true, Sec: b0, Size: 3, ETag: "ea", Tags: map[string]string{"expire": "yes"}}},
				"b": {{ID: "null", Latest: true, Sec: b0, Size: 3, ETag: "eb", Tags: map[string]string{"expire": "yes"}}},
			},
			targets:      []target{{"a", "null", lifecycle.ExpirationDays, tagRule}, {"b", "null", lifecycle.ExpirationDays, tagRule}},
			changed:      func(f *bucketS3) { f.keys["b"][0].Tags = map[string]string{"expire": "no"} },
			want:         []filer.Outcome{filer.OutcomeDone, filer.OutcomeNoopResolved},
			wantBatches:  [][]string{{"a@#ea"}},
			wantRequests: map[string]int{"ListObjectVersions": 1, "GetObjectTagging": 2, "DeleteObjects": 1},
		},
		{
			name: "a key's versions across pages are read to the end", versioned: true, proven: true, page: 2,
			keys: map[string][]fakeVersion{
				"a": {cur("a5", "e"), {ID: "a4", Sec: b0 + 4, Size: 3, ETag: "e"}, {ID: "a3", Sec: b0 + 3, Size: 3, ETag: "e"},
					{ID: "a2", Sec: b0 + 2, Size: 3, ETag: "e"}, old("a1", "e")},
			},
			targets:      []target{noncurrent("a", "a1")},
			want:         []filer.Outcome{filer.OutcomeDone},
			wantBatches:  [][]string{{"a@a1#"}},
			wantRequests: map[string]int{"ListObjectVersions": 3, "DeleteObjects": 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &bucketS3{t: t, versioned: c.versioned, page: c.page, ignoreETag: c.ignoreETag, entryCode: c.entryCode,
				batchStatus: c.batchStatus, keys: map[string][]fakeVersion{}}
			for k, vs := range c.keys {
				f.keys[k] = slices.Clone(vs)
			}
			versioning := filer.VersioningOff
			if c.versioned {
				versioning = filer.VersioningEnabled
			}
			rules := map[string]bool{}
			doc := ""
			for _, tg := range c.targets {
				if !rules[tg.rule] {
					rules[tg.rule], doc = true, doc+tg.rule
				}
			}
			st := bucketStore(t, f, &bucketInfo{versioning: versioning, tagRules: tagRulesOf(`<LifecycleConfiguration>` + doc + `</LifecycleConfiguration>`)}, now)
			st.batchETag.Store(c.proven)
			reqs := make([]filer.DeleteRequest, len(c.targets))
			for i, tg := range c.targets {
				reqs[i] = request(f, tg.key, tg.id, tg.kind, appliesOf(t, tg.rule, tg.kind, now))
			}
			if c.changed != nil {
				c.changed(f)
			}
			if c.rewrite != nil {
				st.batch.beforeDelete = func(string, []string) {
					f.mu.Lock()
					defer f.mu.Unlock()
					c.rewrite(f)
				}
			}
			f.requests = nil
			outs, errs := deleteQueued(t, st, reqs)
			for i := range reqs {
				if outs[i] != c.want[i] || (errs[i] != nil) != (c.want[i] == "") {
					t.Errorf("%s@%s: %q, %v; want %q", reqs[i].Key, reqs[i].Expected.VersionID, outs[i], errs[i], c.want[i])
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if !slices.EqualFunc(f.batches, c.wantBatches, slices.Equal) {
				t.Errorf("DeleteObjects entries %q, want %q", f.batches, c.wantBatches)
			}
			// Deletes sent alone go from their callers, in any order.
			slices.Sort(f.deletes)
			if !slices.Equal(f.deletes, c.wantDeletes) {
				t.Errorf("DeleteObject calls %q, want %q", f.deletes, c.wantDeletes)
			}
			if c.wantRequests != nil && !mapsEqual(f.requests, c.wantRequests) {
				t.Errorf("requests %v, want %v", f.requests, c.wantRequests)
			}
			if c.wantLeft != nil {
				left := map[string][]string{}
				for k, vs := range f.keys {
					for _, v := range vs {
						left[k] = append(left[k], v.ID)
					}
				}
				for k, vs := range left {
					if len(vs) == 0 {
						delete(left, k)
					}
				}
				if !mapsEqualSlices(left, c.wantLeft) {
					t.Errorf("left %v, want %v", left, c.wantLeft)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func mapsEqualSlices(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(b[k], v) {
			return false
		}
	}
	return true
}

// A key is in one batch at a time, and its deletes are taken in the order
// they were submitted: the second is re-checked on a listing made after
// the first was answered.
func TestBatchedDeletesKeepKeyOrder(t *testing.T) {
	b0 := time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC).Unix()
	now := time.Unix(b0, 0).Add(100 * 24 * time.Hour)
	f := &bucketS3{t: t, versioned: true, keys: map[string][]fakeVersion{
		"k": {{ID: "v3", Latest: true, Sec: b0 + 2, Size: 3, ETag: "e3"}, {ID: "v2", Sec: b0 + 1, Size: 3, ETag: "e2"}, {ID: "v1", Sec: b0, Size: 3, ETag: "e1"}},
		"o": {{ID: "o2", Latest: true, Sec: b0 + 1, Size: 3, ETag: "f2"}, {ID: "o1", Sec: b0, Size: 3, ETag: "f1"}},
	}}
	st := bucketStore(t, f, &bucketInfo{versioning: filer.VersioningEnabled}, now)
	applies := appliesOf(t, ncRule, lifecycle.NoncurrentDays, now)
	reqs := []filer.DeleteRequest{
		request(f, "k", "v1", lifecycle.NoncurrentDays, applies),
		request(f, "k", "v2", lifecycle.NoncurrentDays, applies),
		request(f, "o", "o1", lifecycle.NoncurrentDays, applies),
	}
	outs, errs := deleteQueued(t, st, reqs)
	for i, out := range outs {
		if out != filer.OutcomeDone || errs[i] != nil {
			t.Errorf("%s@%s: %q, %v; want DONE", reqs[i].Key, reqs[i].Expected.VersionID, out, errs[i])
		}
	}
	want := [][]string{{"k@v1#", "o@o1#"}, {"k@v2#"}}
	if !slices.EqualFunc(f.batches, want, slices.Equal) {
		t.Errorf("DeleteObjects entries %q, want %q: one delete of a key per batch, in submit order", f.batches, want)
	}
}

// A delete whose pass ended while it was queued is withdrawn: nothing is
// sent for it.
func TestBatchedDeleteWithdrawn(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f := &bucketS3{t: t, keys: map[string][]fakeVersion{"a": {{ID: "null", Latest: true, Sec: 1, Size: 3, ETag: "e"}}}}
	st := bucketStore(t, f, &bucketInfo{}, now)
	st.batch.mu.Lock()
	st.batch.held = true
	st.batch.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	queued := make(chan int, 1)
	st.batch.queuedHook = func(n int) { queued <- n }
	done := make(chan error, 1)
	go func() {
		_, err := st.LifecycleDelete(ctx, request(f, "a", "null", lifecycle.ExpirationDays, nil))
		done <- err
	}()
	<-queued
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("withdrawn delete: %v; want context.Canceled", err)
	}
	st.batch.release()
	st.batch.mu.Lock()
	defer st.batch.mu.Unlock()
	if len(st.batch.queue) != 0 || st.batch.running != 0 {
		t.Errorf("queue %d, running %d after withdrawal; want both 0", len(st.batch.queue), st.batch.running)
	}
	if n := f.requests["DeleteObjects"] + f.requests["ListObjectVersions"]; n != 0 {
		t.Errorf("%d requests sent for a withdrawn delete", n)
	}
}

func TestKeyBefore(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"abc", "ab"}, {"a", ""}, {"dir/é", "dir/"}, {"x\xff", "x"}} {
		if got := keyBefore(c.in); got != c.want || (got >= c.in) {
			t.Errorf("keyBefore(%q) = %q, want %q (< the key)", c.in, got, c.want)
		}
	}
}

func TestSegments(t *testing.T) {
	dense := make([]string, 0, 25)
	for i := 100; i < 125; i++ {
		dense = append(dense, fmt.Sprintf("obj-0%d", i))
	}
	for _, c := range []struct {
		name string
		keys []string
		want []int // run lengths
	}{
		{"one key", []string{"a"}, []int{1}},
		{"dense numbered keys: runs of ten", dense, []int{10, 10, 5}},
		{"nothing shared: one run", []string{"ab", "k01", "k02", "xa"}, []int{4}},
		{"two neighbourhoods", []string{"logs/2026/01/a", "logs/2026/01/b", "logs/2026/02/a", "media/x"}, []int{2, 1, 1}},
	} {
		var got []int
		for _, r := range segments(c.keys) {
			got = append(got, len(r))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: runs %v, want %v", c.name, got, c.want)
		}
	}
}

// While a batch is being sent, fewer than minBatch queued deletes wait for
// its answer and then go together, instead of one sender each.
func TestBatchWaitsForMinBatch(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f := &bucketS3{t: t, keys: map[string][]fakeVersion{}}
	for _, k := range []string{"a", "b", "c", "d"} {
		f.keys[k] = []fakeVersion{{ID: "null", Latest: true, Sec: 1, Size: 3, ETag: "e" + k}}
	}
	st := bucketStore(t, f, &bucketInfo{}, now)
	st.batchETag.Store(true)
	inFirst, release := make(chan struct{}), make(chan struct{})
	var sent atomic.Bool
	st.batch.beforeDelete = func(string, []string) {
		if sent.CompareAndSwap(false, true) { // a's batch; later ones go on
			inFirst <- struct{}{}
			<-release
		}
	}
	var wg sync.WaitGroup
	del := func(key string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := st.LifecycleDelete(context.Background(), request(f, key, "null", lifecycle.ExpirationDays, nil)); out != filer.OutcomeDone || err != nil {
				t.Errorf("%s: %q, %v; want DONE", key, out, err)
			}
		}()
	}
	del("a")
	<-inFirst // a's batch is being sent
	queued := make(chan int, 3)
	st.batch.mu.Lock()
	st.batch.queuedHook = func(n int) { queued <- n }
	st.batch.mu.Unlock()
	for _, k := range []string{"b", "c", "d"} {
		del(k)
		<-queued
	}
	st.batch.mu.Lock()
	running, waiting := st.batch.running, len(st.batch.queue)
	st.batch.mu.Unlock()
	if running != 1 || waiting != 3 {
		t.Errorf("while a's batch is sent: %d batches running, %d deletes queued; want 1 and 3", running, waiting)
	}
	close(release)
	wg.Wait()
	want := [][]string{{"a@#ea"}, {"b@#eb", "c@#ec", "d@#ed"}}
	if !slices.EqualFunc(f.batches, want, slices.Equal) {
		t.Errorf("DeleteObjects entries %q, want %q", f.batches, want)
	}
}
