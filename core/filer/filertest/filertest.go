// Package filertest is the LifecycleDelete and listing contract every
// filer.Store passes (the embedded filer, the pass's test fakes, and, in
// integration tests, SeaweedFS and s3://), written once as a table of
// scenarios (docs/design/daily-run.md#dispatch).
package filertest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// Now is the store clock every scenario assumes: versions are written
// before it, retention runs past it.
var Now = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// Bucket is one bucket a scenario starts from.
type Bucket struct {
	Name       string
	Versioning filer.Versioning
	ObjectLock bool
	Objects    []Object
	Uploads    []filer.Upload
}

// Object is one key with its versions, oldest first (the last is the
// latest).
type Object struct {
	Key      string
	Versions []Version
}

// Version is one version a scenario writes; ETag is derived from ID when
// the store sets it.
type Version struct {
	ID           string // filer.NullVersionID for the null version
	Mtime        time.Time
	Size         int64
	DeleteMarker bool
	LegalHold    bool
	RetainUntil  time.Time // zero: no retention; a live server sets GOVERNANCE
}

// Harness is one store under the contract. Exactly one of New and Live
// is set.
type Harness struct {
	// New returns a store holding buckets under the names and IDs the
	// scenario gives them, whose clock (for Object Lock) is Now.
	New func(t *testing.T, buckets []Bucket) filer.Store
	// Live writes buckets on a live server through its API and returns the
	// store with the bucket names and IDs the server gave them. The
	// server stamps versions and uploads with its own clock, in the order
	// the scenario writes them; no scenario reads a time beyond comparing
	// identities. A scenario the server cannot be set up for is skipped
	// with t.Skipf saying why, never passed silently.
	Live func(t *testing.T, buckets []Bucket) Subject
	// UploadsByInitiation says that uploads of one key list oldest first,
	// as AWS's ListMultipartUploads orders them, rather than by upload ID
	// as a filer lists its uploads directory.
	UploadsByInitiation bool
	// Ambiguate lays key of bucket (as the scenario names them) out so
	// that two entries carry one version ID (filer.ErrAmbiguousLayout). A
	// store that cannot hold such a layout, or whose API cannot write one,
	// skips with t.Skipf saying why.
	Ambiguate func(t *testing.T, s Subject, bucket, key string)
	// Differs names the scenarios a live server is known to fail, each
	// with the named known difference (docs/design/daily-run.md#dispatch)
	// that explains it. Those are skipped, saying so; the store's own
	// tests pin what the server does instead. A name that is no
	// scenario's fails the suite.
	Differs map[string]string
}

// Subject is a store holding a scenario's buckets.
type Subject struct {
	Store filer.Store
	// Buckets maps a scenario's bucket name to the store's; IDs maps a
	// scenario's version, delete marker or upload ID (unique within a
	// scenario) to the store's. A name absent from a map is the store's
	// own.
	Buckets, IDs map[string]string
}

func (s Subject) bucket(name string) string { return or(s.Buckets[name], name) }
func (s Subject) id(id string) string       { return or(s.IDs[id], id) }

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func day(n int) time.Time { return Now.AddDate(0, 0, -n) }

// Run runs every scenario, each on a fresh store.
func Run(t *testing.T, h Harness) {
	if (h.New == nil) == (h.Live == nil) {
		t.Fatal("filertest.Harness: set exactly one of New and Live")
	}
	ver := func(key string, vs ...Version) []Bucket {
		return []Bucket{{Name: "b", Versioning: filer.VersioningEnabled, ObjectLock: true, Objects: []Object{{Key: key, Versions: vs}}}}
	}
	three := ver("k", Version{ID: "v1", Mtime: day(30), Size: 1}, Version{ID: "v2", Mtime: day(20), Size: 2}, Version{ID: "v3", Mtime: day(10), Size: 3})
	yes := func(*filer.Object, int) bool { return true }
	differs := map[string]bool{}
	defer func() {
		for name := range h.Differs {
			if !differs[name] {
				t.Errorf("Differs names %q, which is no scenario", name)
			}
		}
	}()
	for _, sc := range []struct {
		name    string
		buckets []Bucket
		run     func(t *testing.T, s Subject)
	}{
		{"a changed identity is NOOP_RESOLVED and deletes nothing", three, func(t *testing.T, s Subject) {
			id := version(t, s, "b", "k", "v1").Identity()
			for _, change := range []func(*filer.Identity){
				func(i *filer.Identity) { i.MtimeNs += int64(time.Second) }, // a second: S3 dates carry no finer
				func(i *filer.Identity) { i.Size++ },
				func(i *filer.Identity) { i.VersionID = "v0" },
			} {
				stale := id
				change(&stale)
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, Expected: stale, Applies: yes}, filer.OutcomeNoopResolved)
			}
			ids(t, s, "b", "k", "v3", "v2", "v1")
		}},
		{"a noncurrent action on the latest version is NOOP_RESOLVED", three, func(t *testing.T, s Subject) {
			for _, k := range []lifecycle.ActionKind{lifecycle.NoncurrentDays, lifecycle.NewerNoncurrent} {
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: k, Expected: version(t, s, "b", "k", "v3").Identity(), Applies: yes}, filer.OutcomeNoopResolved)
			}
			ids(t, s, "b", "k", "v3", "v2", "v1")
		}},
		{"an expiration of a noncurrent version is NOOP_RESOLVED", three, func(t *testing.T, s Subject) {
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpirationDays, Expected: version(t, s, "b", "k", "v2").Identity(), Applies: yes}, filer.OutcomeNoopResolved)
			ids(t, s, "b", "k", "v3", "v2", "v1")
		}},
		{"Applies false is NOOP_RESOLVED, and sees the key as the store holds it", three, func(t *testing.T, s Subject) {
			var seen []string
			no := func(o *filer.Object, idx int) bool {
				for _, v := range o.Versions {
					seen = append(seen, v.VersionID)
				}
				return o.Versions[idx].VersionID != s.id("v1")
			}
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, Expected: version(t, s, "b", "k", "v1").Identity(), Applies: no}, filer.OutcomeNoopResolved)
			if want := s.ids("v3", "v2", "v1"); !slices.Equal(seen, want) {
				t.Errorf("Applies saw %v, want %v", seen, want)
			}
			ids(t, s, "b", "k", "v3", "v2", "v1")
		}},
		{"an expiration on a versioned bucket writes a delete marker over the latest", three, func(t *testing.T, s Subject) {
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpirationDays, Expected: version(t, s, "b", "k", "v3").Identity(), Applies: yes}, filer.OutcomeDone)
			obj := lookup(t, s, "b", "k")
			if len(obj.Versions) != 4 || !obj.Versions[0].DeleteMarker || !obj.Versions[0].IsLatest || obj.Versions[1].VersionID != s.id("v3") || obj.Versions[1].IsLatest {
				t.Errorf("after expiration %v, want a latest delete marker over %v", describe(obj), s.ids("v3", "v2", "v1"))
			}
			// The marker is not alone: ExpiredDeleteMarker leaves it.
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpiredDeleteMarker, Expected: obj.Versions[0].Identity(), Applies: yes}, filer.OutcomeNoopResolved)
		}},
		{"a lone delete marker is removed", ver("k", Version{ID: "d1", Mtime: day(10), DeleteMarker: true}), func(t *testing.T, s Subject) {
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpiredDeleteMarker, Expected: version(t, s, "b", "k", "d1").Identity(), Applies: yes}, filer.OutcomeDone)
			if _, found, err := s.Store.LookupObject(context.Background(), s.bucket("b"), "k"); err != nil || found {
				t.Errorf("after removing the lone marker: found %v, %v", found, err)
			}
		}},
		{"a noncurrent delete removes only that version", three, func(t *testing.T, s Subject) {
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, Expected: version(t, s, "b", "k", "v2").Identity(), Applies: yes}, filer.OutcomeDone)
			ids(t, s, "b", "k", "v3", "v1")
			if !lookup(t, s, "b", "k").Versions[0].IsLatest {
				t.Error("v3 is no longer the latest")
			}
		}},
		{"a version under legal hold is SKIPPED_OBJECT_LOCK", ver("k", Version{ID: "h1", Mtime: day(30), Size: 1, LegalHold: true}, Version{ID: "h2", Mtime: day(20), Size: 2}), func(t *testing.T, s Subject) {
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, Expected: version(t, s, "b", "k", "h1").Identity(), Applies: yes}, filer.OutcomeSkippedObjectLock)
			ids(t, s, "b", "k", "h2", "h1")
		}},
		{"retention past the store clock is SKIPPED_OBJECT_LOCK", ver("k", Version{ID: "r1", Mtime: day(30), Size: 1, RetainUntil: Now.AddDate(1, 0, 0)}, Version{ID: "r2", Mtime: day(20), Size: 2}), func(t *testing.T, s Subject) {
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, Expected: version(t, s, "b", "k", "r1").Identity(), Applies: yes}, filer.OutcomeSkippedObjectLock)
			ids(t, s, "b", "k", "r2", "r1")
		}},
		{"an expiration naming a latest delete marker is NOOP_RESOLVED", ver("k", Version{ID: "m1", Mtime: day(30), Size: 1}, Version{ID: "d1", Mtime: day(20), DeleteMarker: true}), func(t *testing.T, s Subject) {
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpirationDays, Expected: version(t, s, "b", "k", "d1").Identity(), Applies: yes}, filer.OutcomeNoopResolved)
			ids(t, s, "b", "k", "d1", "m1")
		}},
		{"a delete marker is removed once alone, not before", ver("k", Version{ID: "m1", Mtime: day(30), Size: 1}, Version{ID: "d1", Mtime: day(20), DeleteMarker: true}), func(t *testing.T, s Subject) {
			marker := version(t, s, "b", "k", "d1").Identity()
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpiredDeleteMarker, Expected: marker, Applies: yes}, filer.OutcomeNoopResolved)
			ids(t, s, "b", "k", "d1", "m1")
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, Expected: version(t, s, "b", "k", "m1").Identity(), Applies: yes}, filer.OutcomeDone)
			ids(t, s, "b", "k", "d1")
			outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpiredDeleteMarker, Expected: marker, Applies: yes}, filer.OutcomeDone)
			if _, found, err := s.Store.LookupObject(context.Background(), s.bucket("b"), "k"); err != nil || found {
				t.Errorf("after removing the marker left alone: found %v, %v", found, err)
			}
		}},
		{"an expiration on an unversioned bucket removes the object",
			[]Bucket{{Name: "b", Versioning: filer.VersioningOff, Objects: []Object{{Key: "k", Versions: []Version{{ID: filer.NullVersionID, Mtime: day(30), Size: 1}}}}}},
			func(t *testing.T, s Subject) {
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpirationDays, Expected: version(t, s, "b", "k", filer.NullVersionID).Identity(), Applies: yes}, filer.OutcomeDone)
				if _, found, err := s.Store.LookupObject(context.Background(), s.bucket("b"), "k"); err != nil || found {
					t.Errorf("after expiration: found %v, %v", found, err)
				}
			}},
		{"an expiration on a suspended bucket replaces the null version with a null delete marker",
			[]Bucket{{Name: "b", Versioning: filer.VersioningSuspended, Objects: []Object{{Key: "k", Versions: []Version{
				{ID: "x1", Mtime: day(30), Size: 1}, {ID: filer.NullVersionID, Mtime: day(20), Size: 2}}}}}},
			func(t *testing.T, s Subject) {
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpirationDays, Expected: version(t, s, "b", "k", filer.NullVersionID).Identity(), Applies: yes}, filer.OutcomeDone)
				obj := lookup(t, s, "b", "k")
				if len(obj.Versions) != 2 || obj.Versions[0].VersionID != filer.NullVersionID || !obj.Versions[0].DeleteMarker || obj.Versions[1].VersionID != s.id("x1") {
					t.Errorf("after expiration %v, want a null delete marker over %s", describe(obj), s.id("x1"))
				}
			}},
		{"a null delete marker left alone is removed",
			[]Bucket{{Name: "b", Versioning: filer.VersioningSuspended, Objects: []Object{{Key: "k", Versions: []Version{
				{ID: "x1", Mtime: day(30), Size: 1}, {ID: filer.NullVersionID, Mtime: day(20), DeleteMarker: true}}}}}},
			func(t *testing.T, s Subject) {
				marker := version(t, s, "b", "k", filer.NullVersionID).Identity()
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpiredDeleteMarker, Expected: marker, Applies: yes}, filer.OutcomeNoopResolved)
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.NoncurrentDays, Expected: version(t, s, "b", "k", "x1").Identity(), Applies: yes}, filer.OutcomeDone)
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpiredDeleteMarker, Expected: marker, Applies: yes}, filer.OutcomeDone)
				if obj, found, err := s.Store.LookupObject(context.Background(), s.bucket("b"), "k"); err != nil || found {
					t.Errorf("after removing the null marker: found %v %v, %v", found, describe(obj), err)
				}
			}},
		{"an ambiguous key is reported, not read, and its neighbours are",
			[]Bucket{{Name: "b", Versioning: filer.VersioningSuspended, Objects: []Object{
				{Key: "k", Versions: []Version{{ID: "a1", Mtime: day(30), Size: 1}, {ID: filer.NullVersionID, Mtime: day(20), Size: 2}}},
				{Key: "plain", Versions: []Version{{ID: filer.NullVersionID, Mtime: day(20), Size: 3}}}}}},
			func(t *testing.T, s Subject) {
				if h.Ambiguate == nil {
					t.Skip("the harness gives no way to lay a key out ambiguously")
				}
				h.Ambiguate(t, s, "b", "k")
				if _, _, err := s.Store.LookupObject(context.Background(), s.bucket("b"), "k"); !errors.Is(err, filer.ErrAmbiguousLayout) {
					t.Errorf("LookupObject of the ambiguous key: %v, want %v", err, filer.ErrAmbiguousLayout)
				}
				objs, _, err := s.Store.ListObjects(context.Background(), s.bucket("b"), "", 10)
				if err != nil {
					t.Fatalf("ListObjects: %v", err)
				}
				var got []string
				for _, o := range objs {
					var ke *filer.KeyError
					switch {
					case o.Err == nil:
						got = append(got, o.Key+":"+strings.Join(render(o), ","))
					case errors.Is(o.Err, filer.ErrAmbiguousLayout) && errors.As(o.Err, &ke) && len(o.Versions) == 0:
						got = append(got, o.Key+":ambiguous")
					default:
						got = append(got, o.Key+":"+o.Err.Error())
					}
				}
				if want := []string{"k:ambiguous", "plain:null"}; !slices.Equal(got, want) {
					t.Errorf("listed %v, want %v", got, want)
				}
			}},
		{"uploads list in (key, upload ID) order, page after page",
			[]Bucket{{Name: "b", Versioning: filer.VersioningOff, Uploads: []filer.Upload{
				{Key: "z", UploadID: "u1", Initiated: day(5)}, {Key: "a", UploadID: "u9", Initiated: day(5)},
				{Key: "m", UploadID: "u2", Initiated: day(5)}, {Key: "a", UploadID: "u3", Initiated: day(5)},
				{Key: "b", UploadID: "u0", Initiated: day(5)}}}},
			func(t *testing.T, s Subject) {
				var got []string
				after := ""
				for pages := 0; ; pages++ {
					if pages > 5 {
						t.Fatalf("no end of listing after %d pages: %v", pages, got)
					}
					ups, next, err := s.Store.ListUploads(context.Background(), s.bucket("b"), after, 2)
					if err != nil {
						t.Fatal(err)
					}
					for _, u := range ups {
						got = append(got, u.Key+"/"+u.UploadID)
					}
					if next == "" {
						break
					}
					after = next
				}
				// Within key a, u9 was initiated first.
				a := []string{"a/" + s.id("u3"), "a/" + s.id("u9")}
				if h.UploadsByInitiation {
					a[0], a[1] = a[1], a[0]
				} else {
					slices.Sort(a)
				}
				want := append(a, "b/"+s.id("u0"), "m/"+s.id("u2"), "z/"+s.id("u1"))
				if !slices.Equal(got, want) {
					t.Errorf("listed %v, want %v", got, want)
				}
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "a", Kind: lifecycle.AbortMPU, Expected: filer.Identity{UploadID: "u9"}}, filer.OutcomeDone)
				outcome(t, s, filer.DeleteRequest{Bucket: "b", Key: "a", Kind: lifecycle.AbortMPU, Expected: filer.Identity{UploadID: "u9"}}, filer.OutcomeNoopResolved)
			}},
	} {
		if _, ok := h.Differs[sc.name]; ok {
			differs[sc.name] = true
		}
		t.Run(sc.name, func(t *testing.T) {
			if why, ok := h.Differs[sc.name]; ok {
				t.Skipf("known difference: %s", why)
			}
			var s Subject
			if h.Live != nil {
				s = h.Live(t, sc.buckets)
			} else {
				s = Subject{Store: h.New(t, sc.buckets)}
			}
			sc.run(t, s)
		})
	}
}

// ids maps scenario IDs to the store's.
func (s Subject) ids(ids ...string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.id(id)
	}
	return out
}

func lookup(t *testing.T, s Subject, bucket, key string) filer.Object {
	t.Helper()
	obj, found, err := s.Store.LookupObject(context.Background(), s.bucket(bucket), key)
	if err != nil || !found {
		t.Fatalf("LookupObject %s/%s: found %v, %v", bucket, key, found, err)
	}
	return obj
}

func version(t *testing.T, s Subject, bucket, key, id string) filer.Version {
	t.Helper()
	obj := lookup(t, s, bucket, key)
	i := slices.IndexFunc(obj.Versions, func(v filer.Version) bool { return v.VersionID == s.id(id) })
	if i < 0 {
		t.Fatalf("%s/%s has no version %s (%s): %v", bucket, key, id, s.id(id), render(obj))
	}
	return obj.Versions[i]
}

// outcome sends req, its bucket and upload ID named as the scenario names
// them, and fails t unless the store answers want.
func outcome(t *testing.T, s Subject, req filer.DeleteRequest, want filer.Outcome) {
	t.Helper()
	req.Bucket = s.bucket(req.Bucket)
	if req.Expected.UploadID != "" {
		req.Expected.UploadID = s.id(req.Expected.UploadID)
	}
	got, err := s.Store.LifecycleDelete(context.Background(), req)
	if err != nil || got != want {
		t.Fatalf("%s of %s@%s%s = %s, %v; want %s", req.Kind, req.Key, req.Expected.VersionID, req.Expected.UploadID, got, err, want)
	}
}

func ids(t *testing.T, s Subject, bucket, key string, want ...string) {
	t.Helper()
	if got, want := render(lookup(t, s, bucket, key)), s.ids(want...); !slices.Equal(got, want) {
		t.Errorf("%s/%s holds %v, want %v", bucket, key, got, want)
	}
}

// render is obj's version IDs, newest first.
func render(obj filer.Object) []string {
	var out []string
	for _, v := range obj.Versions {
		out = append(out, v.VersionID)
	}
	return out
}

// describe is obj's versions, newest first, each "ID", then "[DM]" for a
// delete marker and "*" for the latest.
func describe(obj filer.Object) []string {
	var out []string
	for _, v := range obj.Versions {
		d := v.VersionID
		if v.DeleteMarker {
			d += "[DM]"
		}
		if v.IsLatest {
			d += "*"
		}
		out = append(out, d)
	}
	return out
}
