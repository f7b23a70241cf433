package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
)

// deleteFixture has one bucket per versioning state; object lock is on
// everywhere so locked versions can be staged. Times are 2026; the clock is
// testNow (2026-11-30).
const deleteFixture = `{"buckets":[
 {"name":"ver","versioning":"Enabled","object_lock":true,
  "objects":[
   {"key":"a","versions":[
     {"version_id":"v1","mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1"},
     {"version_id":"v2","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2"}]},
   {"key":"dm-only","versions":[
     {"version_id":"d1","mtime":"2026-01-01T00:00:00Z","delete_marker":true}]},
   {"key":"dm-top","versions":[
     {"version_id":"v1","mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1"},
     {"version_id":"d2","mtime":"2026-02-01T00:00:00Z","delete_marker":true}]},
   {"key":"held","versions":[
     {"version_id":"h1","mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1","legal_hold":true},
     {"version_id":"h2","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2","legal_hold":true}]},
   {"key":"retained","versions":[
     {"version_id":"r1","mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1","retain_until":"2027-01-01T00:00:00Z"},
     {"version_id":"r2","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2"}]},
   {"key":"retention-over","versions":[
     {"version_id":"p1","mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1","retain_until":"2026-06-01T00:00:00Z"},
     {"version_id":"p2","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2"}]}],
  "uploads":[{"upload_id":"u1","key":"big.bin","initiated":"2026-01-01T00:00:00Z"}]},
 {"name":"susp","versioning":"Suspended","object_lock":true,
  "objects":[
   {"key":"null-top","versions":[
     {"version_id":"x1","mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1"},
     {"version_id":null,"mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2"}]},
   {"key":"null-deep","versions":[
     {"version_id":null,"mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1"},
     {"version_id":"x2","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2"}]},
   {"key":"no-null","versions":[
     {"version_id":"x3","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2"}]},
   {"key":"null-held","versions":[
     {"version_id":"null","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2","legal_hold":true}]},
   {"key":"null-deep-held","versions":[
     {"version_id":null,"mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1","legal_hold":true},
     {"version_id":"x4","mtime":"2026-02-01T00:00:00Z","size":20,"etag":"e2"}]}]},
 {"name":"off","object_lock":true,
  "objects":[
   {"key":"f","versions":[{"mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1"}]},
   {"key":"f-held","versions":[{"mtime":"2026-01-01T00:00:00Z","size":10,"etag":"e1","retain_until":"2027-01-01T00:00:00Z"}]}]}
]}`

func TestLifecycleDelete(t *testing.T) {
	newDM := fmt.Sprintf("dm%016x", testNow.UnixNano())
	type stale func(*filer.Identity)
	tests := []struct {
		name        string
		bucket, key string
		kind        string
		target      string // version ID whose identity is expected; "" for uploads
		uploadID    string
		stale       stale
		want        filer.Outcome
		wantAfter   []string // versions newest first; nil when the key is gone
		wantEvents  []string // "type:version" appended to the meta-log; a removal of a noncurrent version "remove:version(noncurrent)"
		wantDemoted string   // version whose NoncurrentSinceNs must be the demote event's TsNs
	}{
		// Expiration on a versioned bucket: a delete marker on top.
		{name: "days enabled adds delete marker", bucket: "ver", key: "a", kind: "ExpirationDays", target: "v2",
			want: filer.OutcomeDone, wantAfter: []string{newDM + "(dm)", "v2", "v1"},
			wantEvents: []string{"put:" + newDM, "demote:v2"}, wantDemoted: "v2"},
		{name: "date enabled adds delete marker", bucket: "ver", key: "a", kind: "ExpirationDate", target: "v2",
			want: filer.OutcomeDone, wantAfter: []string{newDM + "(dm)", "v2", "v1"},
			wantEvents: []string{"put:" + newDM, "demote:v2"}, wantDemoted: "v2"},
		{name: "days enabled on legal hold still adds marker", bucket: "ver", key: "held", kind: "ExpirationDays", target: "h2",
			want: filer.OutcomeDone, wantAfter: []string{newDM + "(dm)", "h2", "h1"},
			wantEvents: []string{"put:" + newDM, "demote:h2"}, wantDemoted: "h2"},
		{name: "days on noncurrent target is noop", bucket: "ver", key: "a", kind: "ExpirationDays", target: "v1",
			want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "days on delete marker latest is noop", bucket: "ver", key: "dm-top", kind: "ExpirationDays", target: "d2",
			want: filer.OutcomeNoopResolved, wantAfter: []string{"d2(dm)", "v1"}},
		{name: "days stale mtime is noop", bucket: "ver", key: "a", kind: "ExpirationDays", target: "v2",
			stale: func(id *filer.Identity) { id.MtimeNs++ }, want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "days stale size is noop", bucket: "ver", key: "a", kind: "ExpirationDate", target: "v2",
			stale: func(id *filer.Identity) { id.Size = 1 }, want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "days stale etag is noop", bucket: "ver", key: "a", kind: "ExpirationDays", target: "v2",
			stale: func(id *filer.Identity) { id.ETag = "other" }, want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "days missing key is noop", bucket: "ver", key: "nope", kind: "ExpirationDays",
			want: filer.OutcomeNoopResolved},
		{name: "days missing bucket is noop", bucket: "gone", key: "a", kind: "ExpirationDays",
			want: filer.OutcomeNoopResolved},

		// Expiration on a suspended bucket: a null delete marker.
		{name: "suspended null latest replaced by null marker", bucket: "susp", key: "null-top", kind: "ExpirationDays", target: "null",
			want: filer.OutcomeDone, wantAfter: []string{"null(dm)", "x1"},
			wantEvents: []string{"remove:null", "put:null"}},
		{name: "suspended non-null latest demoted, old null removed", bucket: "susp", key: "null-deep", kind: "ExpirationDays", target: "x2",
			want: filer.OutcomeDone, wantAfter: []string{"null(dm)", "x2"},
			wantEvents: []string{"remove:null(noncurrent)", "put:null", "demote:x2"}, wantDemoted: "x2"},
		{name: "suspended without null version", bucket: "susp", key: "no-null", kind: "ExpirationDate", target: "x3",
			want: filer.OutcomeDone, wantAfter: []string{"null(dm)", "x3"},
			wantEvents: []string{"put:null", "demote:x3"}, wantDemoted: "x3"},
		{name: "suspended locked null latest is skipped", bucket: "susp", key: "null-held", kind: "ExpirationDays", target: "null",
			want: filer.OutcomeSkippedObjectLock, wantAfter: []string{"null"}},
		{name: "suspended locked noncurrent null is skipped", bucket: "susp", key: "null-deep-held", kind: "ExpirationDays", target: "x4",
			want: filer.OutcomeSkippedObjectLock, wantAfter: []string{"x4", "null"}},
		{name: "suspended stale is noop", bucket: "susp", key: "null-top", kind: "ExpirationDays", target: "null",
			stale: func(id *filer.Identity) { id.VersionID = "x1" }, want: filer.OutcomeNoopResolved, wantAfter: []string{"null", "x1"}},

		// Expiration on an unversioned bucket: the object goes.
		{name: "off deletes object", bucket: "off", key: "f", kind: "ExpirationDays", target: "null",
			want: filer.OutcomeDone, wantEvents: []string{"remove:null"}},
		{name: "off retained object is skipped", bucket: "off", key: "f-held", kind: "ExpirationDate", target: "null",
			want: filer.OutcomeSkippedObjectLock, wantAfter: []string{"null"}},
		{name: "off stale is noop", bucket: "off", key: "f", kind: "ExpirationDays", target: "null",
			stale: func(id *filer.Identity) { id.ETag = "x" }, want: filer.OutcomeNoopResolved, wantAfter: []string{"null"}},

		// Noncurrent kinds: permanent delete of a noncurrent version.
		{name: "noncurrent days deletes noncurrent", bucket: "ver", key: "a", kind: "NoncurrentDays", target: "v1",
			want: filer.OutcomeDone, wantAfter: []string{"v2"}, wantEvents: []string{"remove:v1(noncurrent)"}},
		{name: "newer noncurrent deletes noncurrent", bucket: "ver", key: "a", kind: "NewerNoncurrent", target: "v1",
			want: filer.OutcomeDone, wantAfter: []string{"v2"}, wantEvents: []string{"remove:v1(noncurrent)"}},
		{name: "noncurrent in suspended bucket deleted", bucket: "susp", key: "null-top", kind: "NoncurrentDays", target: "x1",
			want: filer.OutcomeDone, wantAfter: []string{"null"}, wantEvents: []string{"remove:x1(noncurrent)"}},
		{name: "noncurrent on latest is noop", bucket: "ver", key: "a", kind: "NoncurrentDays", target: "v2",
			want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "noncurrent missing version is noop", bucket: "ver", key: "a", kind: "NoncurrentDays", target: "v1",
			stale: func(id *filer.Identity) { id.VersionID = "v9" }, want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "noncurrent stale identity is noop", bucket: "ver", key: "a", kind: "NewerNoncurrent", target: "v1",
			stale: func(id *filer.Identity) { id.Size = 11 }, want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "noncurrent legal hold skipped", bucket: "ver", key: "held", kind: "NoncurrentDays", target: "h1",
			want: filer.OutcomeSkippedObjectLock, wantAfter: []string{"h2", "h1"}},
		{name: "noncurrent retention skipped", bucket: "ver", key: "retained", kind: "NewerNoncurrent", target: "r1",
			want: filer.OutcomeSkippedObjectLock, wantAfter: []string{"r2", "r1"}},
		{name: "noncurrent expired retention deleted", bucket: "ver", key: "retention-over", kind: "NoncurrentDays", target: "p1",
			want: filer.OutcomeDone, wantAfter: []string{"p2"}, wantEvents: []string{"remove:p1(noncurrent)"}},
		{name: "noncurrent stale and locked is noop", bucket: "ver", key: "held", kind: "NoncurrentDays", target: "h1",
			stale: func(id *filer.Identity) { id.MtimeNs-- }, want: filer.OutcomeNoopResolved, wantAfter: []string{"h2", "h1"}},

		// Expired delete marker: only a lone latest marker.
		{name: "lone delete marker removed", bucket: "ver", key: "dm-only", kind: "ExpiredDeleteMarker", target: "d1",
			want: filer.OutcomeDone, wantEvents: []string{"remove:d1"}},
		{name: "marker with older versions is noop", bucket: "ver", key: "dm-top", kind: "ExpiredDeleteMarker", target: "d2",
			want: filer.OutcomeNoopResolved, wantAfter: []string{"d2(dm)", "v1"}},
		{name: "marker kind on object is noop", bucket: "ver", key: "a", kind: "ExpiredDeleteMarker", target: "v2",
			want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},
		{name: "lone marker stale is noop", bucket: "ver", key: "dm-only", kind: "ExpiredDeleteMarker", target: "d1",
			stale: func(id *filer.Identity) { id.MtimeNs++ }, want: filer.OutcomeNoopResolved, wantAfter: []string{"d1(dm)"}},

		// Abort incomplete multipart upload.
		{name: "abort upload", bucket: "ver", key: "big.bin", kind: "AbortMPU", uploadID: "u1",
			want: filer.OutcomeDone, wantEvents: []string{"mpu_remove:u1"}},
		{name: "abort unknown upload is noop", bucket: "ver", key: "big.bin", kind: "AbortMPU", uploadID: "u2",
			want: filer.OutcomeNoopResolved},
		{name: "abort upload under other key is noop", bucket: "ver", key: "a", kind: "AbortMPU", uploadID: "u1",
			want: filer.OutcomeNoopResolved, wantAfter: []string{"v2", "v1"}},

		// Unknown kind fails closed.
		{name: "unknown kind blocked", bucket: "ver", key: "a", kind: "Transition", target: "v2",
			want: filer.OutcomeBlocked, wantAfter: []string{"v2", "v1"}},
		{name: "empty kind blocked", bucket: "ver", key: "a", kind: "", target: "v2",
			want: filer.OutcomeBlocked, wantAfter: []string{"v2", "v1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := openTest(t, Options{})
			loadTest(t, f, deleteFixture)
			before := lastTs(t, f)
			want := filer.Identity{UploadID: tc.uploadID}
			if tc.target != "" {
				i := slices.IndexFunc(lookup(t, f, tc.bucket, tc.key).Versions, func(v filer.Version) bool { return v.VersionID == tc.target })
				if i < 0 {
					t.Fatalf("fixture has no version %s of %s/%s", tc.target, tc.bucket, tc.key)
				}
				want = lookup(t, f, tc.bucket, tc.key).Versions[i].Identity()
			}
			if tc.stale != nil {
				tc.stale(&want)
			}
			got, err := f.LifecycleDelete(ctx, filer.DeleteRequest{Bucket: tc.bucket, Key: tc.key, Kind: filer.ActionKind(tc.kind), RuleID: "r", Expected: want})
			if err != nil {
				t.Fatalf("LifecycleDelete: %v", err)
			}
			if got != tc.want {
				t.Errorf("outcome = %s, want %s", got, tc.want)
			}
			var after []string
			if tc.bucket != "gone" {
				if obj := lookup(t, f, tc.bucket, tc.key); len(obj.Versions) > 0 {
					after = versionIDs(obj)
				}
			}
			if !slices.Equal(after, tc.wantAfter) {
				t.Errorf("versions after = %v, want %v", after, tc.wantAfter)
			}
			evs := allEvents(t, f, before)
			var gotEvents []string
			demoteTs := map[string]int64{}
			for _, ev := range evs {
				id := ev.VersionID
				if ev.Type == filer.EventMPURemove {
					id = ev.UploadID
				}
				if ev.Noncurrent {
					id += "(noncurrent)"
				}
				gotEvents = append(gotEvents, string(ev.Type)+":"+id)
				if ev.Type == filer.EventDemote {
					demoteTs[ev.VersionID] = ev.TsNs
				}
				if ev.Bucket != tc.bucket || ev.Key != tc.key {
					t.Errorf("event %+v names the wrong object", ev)
				}
			}
			if !slices.Equal(gotEvents, tc.wantEvents) {
				t.Errorf("events = %v, want %v", gotEvents, tc.wantEvents)
			}
			if tc.wantDemoted != "" {
				obj := lookup(t, f, tc.bucket, tc.key)
				if !obj.Versions[0].DeleteMarker || !obj.Versions[0].IsLatest || obj.Versions[0].MtimeNs != testNow.UnixNano() {
					t.Errorf("new latest = %+v, want a delete marker at the clock's now", obj.Versions[0])
				}
				i := slices.IndexFunc(obj.Versions, func(v filer.Version) bool { return v.VersionID == tc.wantDemoted })
				if got, want := obj.Versions[i].NoncurrentSinceNs, demoteTs[tc.wantDemoted]; got != want || got == 0 {
					t.Errorf("NoncurrentSinceNs of %s = %d, want the demote event's TsNs %d", tc.wantDemoted, got, want)
				}
			}
		})
	}
}

func TestLifecycleDeleteSecondTimeIsNoop(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, deleteFixture)
	req := filer.DeleteRequest{Bucket: "ver", Key: "a", Kind: "ExpirationDays", Expected: lookup(t, f, "ver", "a").Versions[0].Identity()}
	for i, want := range []filer.Outcome{filer.OutcomeDone, filer.OutcomeNoopResolved} {
		got, err := f.LifecycleDelete(ctx, req)
		if err != nil || got != want {
			t.Fatalf("attempt %d = %s, %v; want %s", i+1, got, err, want)
		}
	}
}

func TestLifecycleDeleteHook(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("connection reset")
	f := openTest(t, Options{DeleteHook: func(req filer.DeleteRequest) (filer.Outcome, error, bool) {
		switch req.Key {
		case "a":
			return filer.OutcomeRetryLater, nil, true
		case "dm-only":
			return "", boom, true
		}
		return "", nil, false
	}})
	loadTest(t, f, deleteFixture)
	before := lastTs(t, f)
	a := lookup(t, f, "ver", "a").Versions[0].Identity()
	if got, err := f.LifecycleDelete(ctx, filer.DeleteRequest{Bucket: "ver", Key: "a", Kind: "ExpirationDays", Expected: a}); err != nil || got != filer.OutcomeRetryLater {
		t.Errorf("hooked a = %s, %v; want RETRY_LATER", got, err)
	}
	if _, err := f.LifecycleDelete(ctx, filer.DeleteRequest{Bucket: "ver", Key: "dm-only", Kind: "ExpiredDeleteMarker"}); !errors.Is(err, boom) {
		t.Errorf("hooked dm-only err = %v, want %v", err, boom)
	}
	if evs := allEvents(t, f, before); len(evs) != 0 {
		t.Errorf("hooked deletes wrote events %v", evs)
	}
	if got, err := f.LifecycleDelete(ctx, filer.DeleteRequest{Bucket: "ver", Key: "big.bin", Kind: "AbortMPU", Expected: filer.Identity{UploadID: "u1"}}); err != nil || got != filer.OutcomeDone {
		t.Errorf("unhooked abort = %s, %v; want DONE", got, err)
	}
}

func TestLifecycleDeleteCancelledContext(t *testing.T) {
	f := openTest(t, Options{})
	loadTest(t, f, deleteFixture)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.LifecycleDelete(ctx, filer.DeleteRequest{Bucket: "ver", Key: "a", Kind: "ExpirationDays"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestConcurrentDeletes runs deletes and a subscriber in parallel; -race
// checks the store, and the log must stay strictly increasing.
func TestConcurrentDeletes(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, deleteFixture)
	var wg sync.WaitGroup
	for _, key := range []string{"a", "held", "retained", "retention-over"} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			obj, _, err := f.LookupObject(ctx, "ver", key)
			if err != nil {
				t.Error(err)
				return
			}
			req := filer.DeleteRequest{Bucket: "ver", Key: key, Kind: "ExpirationDays", Expected: obj.Versions[0].Identity()}
			if out, err := f.LifecycleDelete(ctx, req); err != nil || out != filer.OutcomeDone {
				t.Errorf("%s: %s, %v", key, out, err)
			}
		}()
		go func() {
			defer wg.Done()
			_ = f.SubscribeMetadata(ctx, -1, testNow.UnixNano()+100, func(filer.Event) error { return nil })
		}()
	}
	wg.Wait()
	evs := allEvents(t, f, -1)
	for i := 1; i < len(evs); i++ {
		if evs[i].TsNs <= evs[i-1].TsNs {
			t.Fatalf("TsNs not increasing at %d: %d then %d", i, evs[i-1].TsNs, evs[i].TsNs)
		}
	}
}
