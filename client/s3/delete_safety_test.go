package s3

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// answering is the fake S3 server with two things fakeS3 does not do:
// DeleteObject and AbortMultipartUpload answer with a chosen error, and
// GetObjectRetention reports a retention date.
type answering struct {
	*fakeS3
	status      int // DeleteObject / AbortMultipartUpload answer; 0: fakeS3's own
	code, msg   string
	retainUntil time.Time // zero: no retention
	uploadGone  bool      // ListParts answers NoSuchUpload

	mu      sync.Mutex
	deletes int
}

func (a *answering) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case r.Method == http.MethodDelete && a.status != 0:
		a.mu.Lock()
		a.deletes++
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(a.status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, a.code, a.msg)
	case r.Method == http.MethodDelete:
		a.mu.Lock()
		a.deletes++
		a.mu.Unlock()
		a.fakeS3.ServeHTTP(w, r)
	case r.Method == http.MethodGet && q.Has("uploadId"): // ListParts
		if a.uploadGone {
			w.WriteHeader(404)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>gone</Message></Error>`)
			break
		}
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><ListPartsResult><UploadId>%s</UploadId><IsTruncated>false</IsTruncated></ListPartsResult>`, q.Get("uploadId"))
	case q.Has("retention") && !a.retainUntil.IsZero():
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>%s</RetainUntilDate></Retention>`,
			a.retainUntil.UTC().Format("2006-01-02T15:04:05.000Z"))
	default:
		a.fakeS3.ServeHTTP(w, r)
	}
}

// answeringStore is fakeStore over a, with the store's production
// configuration: each delete attempt sends one DeleteObject (no SDK
// retries under the pass's own), which each case counts.
func answeringStore(t *testing.T, a *answering, info *bucketInfo, now time.Time) *Store {
	t.Helper()
	st := fakeStore(t, a.fakeS3, info, now)
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	st.c = s3api.New(st.c.Options(), func(o *s3api.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
	return st
}

// The delete-safety rules of the s3:// backend, without a server: how
// each answer maps to an outcome, when Object Lock forbids a delete, and
// that a target whose listed identity changed is never deleted.
func TestDeleteSafety(t *testing.T) {
	b0 := time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC).Unix()
	now := time.Unix(b0, 0).Add(100 * 24 * time.Hour)
	cur := fakeVersion{ID: "v2", Latest: true, Sec: b0 + 86400, Size: 3, ETag: "e2"}
	nc := fakeVersion{ID: "v1", Sec: b0, Size: 3, ETag: "e1"}
	for _, tc := range []struct {
		name        string
		lock        bool
		kind        lifecycle.ActionKind
		status      int
		code, msg   string
		retainUntil time.Time
		// expect changes the identity the pass listed (a stale listing).
		expect      func(*filer.Identity)
		uploadID    string
		uploadGone  bool // ListParts answers NoSuchUpload
		want        filer.Outcome
		wantErr     bool
		wantDeletes int
	}{
		{name: "deleted", kind: lifecycle.NoncurrentDays, want: filer.OutcomeDone, wantDeletes: 1},
		{name: "404 NoSuchVersion: someone else removed it", kind: lifecycle.NoncurrentDays, status: 404, code: "NoSuchVersion",
			want: filer.OutcomeNoopResolved, wantDeletes: 1},
		{name: "404 NoSuchKey", kind: lifecycle.NoncurrentDays, status: 404, code: "NoSuchKey", want: filer.OutcomeNoopResolved, wantDeletes: 1},
		{name: "503 SlowDown: retry on a later pass", kind: lifecycle.NoncurrentDays, status: 503, code: "SlowDown",
			want: filer.OutcomeRetryLater, wantDeletes: 1},
		{name: "503 without a code", kind: lifecycle.NoncurrentDays, status: 503, code: "ServiceUnavailable",
			want: filer.OutcomeRetryLater, wantDeletes: 1},
		{name: "500: a transport error, retried by the pass", kind: lifecycle.NoncurrentDays, status: 500, code: "InternalError",
			wantErr: true, wantDeletes: 1},
		{name: "403 AccessDenied, no Object Lock: an error, not a skip", kind: lifecycle.NoncurrentDays, status: 403, code: "AccessDenied", msg: "Access Denied",
			wantErr: true, wantDeletes: 1},
		{name: "MinIO WORM refusal", lock: true, kind: lifecycle.NoncurrentDays, status: 403, code: "AccessDenied",
			msg: "Object is WORM protected and cannot be overwritten", want: filer.OutcomeSkippedObjectLock, wantDeletes: 1},
		{name: "AWS refusal naming Object Lock", lock: true, kind: lifecycle.NoncurrentDays, status: 403, code: "AccessDenied",
			msg: "Access Denied because object protected by object lock.", want: filer.OutcomeSkippedObjectLock, wantDeletes: 1},
		{name: "ObjectLocked code", lock: true, kind: lifecycle.NoncurrentDays, status: 400, code: "ObjectLocked",
			want: filer.OutcomeSkippedObjectLock, wantDeletes: 1},
		{name: "retention until after the pass clock: skipped without a delete", lock: true, kind: lifecycle.NoncurrentDays,
			retainUntil: now.Add(time.Hour), want: filer.OutcomeSkippedObjectLock, wantDeletes: 0},
		{name: "retention ended: deleted", lock: true, kind: lifecycle.NoncurrentDays,
			retainUntil: now.Add(-time.Hour), want: filer.OutcomeDone, wantDeletes: 1},
		{name: "listed ETag differs: not deleted", kind: lifecycle.NoncurrentDays, expect: func(id *filer.Identity) { id.ETag = "other" },
			want: filer.OutcomeNoopResolved, wantDeletes: 0},
		{name: "listed size differs: not deleted", kind: lifecycle.NoncurrentDays, expect: func(id *filer.Identity) { id.Size = 4 },
			want: filer.OutcomeNoopResolved, wantDeletes: 0},
		{name: "listed LastModified differs: not deleted", kind: lifecycle.NoncurrentDays, expect: func(id *filer.Identity) { id.MtimeNs += int64(time.Second) },
			want: filer.OutcomeNoopResolved, wantDeletes: 0},
		{name: "LastModified within the same second: deleted", kind: lifecycle.NoncurrentDays, expect: func(id *filer.Identity) { id.MtimeNs += 999 },
			want: filer.OutcomeDone, wantDeletes: 1},
		{name: "version gone from the listing: not deleted", kind: lifecycle.NoncurrentDays, expect: func(id *filer.Identity) { id.VersionID = "v0" },
			want: filer.OutcomeNoopResolved, wantDeletes: 0},
		{name: "Expiration of a noncurrent version: not in place", kind: lifecycle.ExpirationDays,
			want: filer.OutcomeNoopResolved, wantDeletes: 0},
		{name: "unknown kind: blocked, nothing sent", kind: "Transition", want: filer.OutcomeBlocked, wantDeletes: 0},
		{name: "abort upload", kind: lifecycle.AbortMPU, uploadID: "u1", want: filer.OutcomeDone, wantDeletes: 1},
		{name: "abort upload: NoSuchUpload", kind: lifecycle.AbortMPU, uploadID: "u1", status: 404, code: "NoSuchUpload",
			want: filer.OutcomeNoopResolved, wantDeletes: 1},
		{name: "abort upload gone, though the server would answer the abort with success (MinIO): nothing sent", kind: lifecycle.AbortMPU, uploadID: "u1", uploadGone: true,
			want: filer.OutcomeNoopResolved, wantDeletes: 0},
		{name: "abort without an upload ID: nothing sent", kind: lifecycle.AbortMPU, want: filer.OutcomeNoopResolved, wantDeletes: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeS3{t: t, versioned: true, vs: []fakeVersion{cur, nc}}
			a := &answering{fakeS3: f, status: tc.status, code: tc.code, msg: tc.msg, retainUntil: tc.retainUntil, uploadGone: tc.uploadGone}
			if tc.msg == "" {
				a.msg = tc.code
			}
			if tc.kind == lifecycle.AbortMPU && tc.status == 0 {
				a.status, a.code = 204, "" // AbortMultipartUpload's success
			}
			st := answeringStore(t, a, &bucketInfo{versioning: filer.VersioningEnabled, objectLock: tc.lock}, now)
			st.oneByOne = true // batch_test.go maps DeleteObjects' answers
			expected := filer.Identity{VersionID: nc.ID, MtimeNs: time.Unix(nc.Sec, 0).UnixNano(), Size: nc.Size, ETag: nc.ETag, UploadID: tc.uploadID}
			if tc.expect != nil {
				tc.expect(&expected)
			}
			got, err := st.LifecycleDelete(context.Background(), filer.DeleteRequest{
				Bucket: "b", Key: "k", Kind: tc.kind, RuleID: "r", Expected: expected})
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("LifecycleDelete = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
			if a.deletes != tc.wantDeletes {
				t.Errorf("%d delete requests, want %d", a.deletes, tc.wantDeletes)
			}
			if tc.wantDeletes == 0 && tc.status == 0 && !slices.Equal(f.deletes, nil) {
				t.Errorf("DeleteObject sent: %+v", f.deletes)
			}
		})
	}
}

// A delete of the null version the server answers with success is
// checked with a fresh listing: gone is DONE; still there, unchanged, is
// STUCK (SeaweedFS's gateway keeps a null delete marker so), never a DONE
// every pass repeats.
func TestNullDeleteAnsweredButKept(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	marker := fakeVersion{ID: filer.NullVersionID, Latest: true, Marker: true, Sec: now.Add(-48 * time.Hour).Unix()}
	for _, tc := range []struct {
		name   string
		remove bool // the server removes what it answered success for
		want   filer.Outcome
	}{
		{"removed: DONE", true, filer.OutcomeDone},
		{"answered but kept: STUCK", false, filer.OutcomeStuck},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeS3{t: t, versioned: true, vs: []fakeVersion{marker}}
			if tc.remove {
				f.afterDelete = func(f *fakeS3) { f.vs = nil }
			}
			st := fakeStore(t, f, &bucketInfo{versioning: filer.VersioningSuspended}, now)
			id := filer.Identity{VersionID: filer.NullVersionID, MtimeNs: time.Unix(marker.Sec, 0).UnixNano()}
			got, err := st.LifecycleDelete(context.Background(), filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpiredDeleteMarker, Expected: id})
			if err != nil || got != tc.want {
				t.Errorf("LifecycleDelete = %s, %v; want %s", got, err, tc.want)
			}
			if len(f.deletes) != 1 || f.deletes[0].VersionID != filer.NullVersionID {
				t.Errorf("deletes %+v, want one of version null", f.deletes)
			}
		})
	}
}
