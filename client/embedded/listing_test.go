package embedded

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

const pagingFixture = `{"buckets":[
 {"name":"b","versioning":"Enabled","objects":[
  {"key":"a","versions":[{"mtime":"2026-01-01T00:00:00Z","size":1}]},
  {"key":"b","versions":[{"mtime":"2026-01-01T00:00:00Z","size":1}]},
  {"key":"b/c","versions":[{"mtime":"2026-01-01T00:00:00Z","size":1},{"mtime":"2026-01-02T00:00:00Z","delete_marker":true}]},
  {"key":"d","versions":[{"mtime":"2026-01-01T00:00:00Z","size":1}]},
  {"key":"e","versions":[{"mtime":"2026-01-01T00:00:00Z","size":1}]}],
  "uploads":[
   {"upload_id":"u2","key":"x","initiated":"2026-01-01T00:00:00Z"},
   {"upload_id":"u1","key":"x","initiated":"2026-01-02T00:00:00Z"},
   {"upload_id":"u9","key":"a","initiated":"2026-01-03T00:00:00Z"},
   {"upload_id":"u3","key":"x/y","initiated":"2026-01-04T00:00:00Z"}]},
 {"name":"empty"}]}`

func TestListObjectsPaging(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, pagingFixture)
	all := []string{"a", "b", "b/c", "d", "e"}
	for _, limit := range []int{1, 2, 3, 5, 6, 100} {
		var keys []string
		pages := 0
		for after := ""; ; pages++ {
			objs, next, err := f.ListObjects(ctx, "b", after, limit)
			if err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			if len(objs) > limit {
				t.Fatalf("limit %d: page of %d", limit, len(objs))
			}
			for _, o := range objs {
				keys = append(keys, o.Key)
			}
			if next == "" {
				break
			}
			if next != objs[len(objs)-1].Key {
				t.Fatalf("limit %d: next %q is not the last key %q", limit, next, objs[len(objs)-1].Key)
			}
			after = next
		}
		if !slices.Equal(keys, all) {
			t.Errorf("limit %d: keys %v, want %v", limit, keys, all)
		}
		if want := (len(all) + limit - 1) / limit; pages+1 != want {
			t.Errorf("limit %d: %d pages, want %d", limit, pages+1, want)
		}
	}
	objs, _, err := f.ListObjects(ctx, "b", "b/", 1)
	if err != nil || len(objs) != 1 || objs[0].Key != "b/c" {
		t.Errorf("startAfter between keys: %v, %v", objs, err)
	}
	if v := objs[0].Versions; len(v) != 2 || !v[0].IsLatest || !v[0].DeleteMarker || v[1].IsLatest {
		t.Errorf("b/c versions = %+v, want a latest delete marker over a noncurrent version", v)
	}
	if objs, next, err := f.ListObjects(ctx, "empty", "", 10); err != nil || len(objs) != 0 || next != "" {
		t.Errorf("empty bucket: %v, %q, %v", objs, next, err)
	}
}

func TestListUploadsPaging(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, pagingFixture)
	want := []string{"a/u9", "x/u1", "x/u2", "x/y/u3"}
	for _, limit := range []int{1, 2, 3, 4, 10} {
		var got []string
		for after := ""; ; {
			ups, next, err := f.ListUploads(ctx, "b", after, limit)
			if err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			for _, u := range ups {
				got = append(got, u.Key+"/"+u.UploadID)
			}
			if next == "" {
				break
			}
			after = next
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: %v, want %v", limit, got, want)
		}
	}
	ups, _, _ := f.ListUploads(ctx, "b", "", 1)
	if want := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC); !ups[0].Initiated.Equal(want) {
		t.Errorf("initiated = %v, want %v", ups[0].Initiated, want)
	}
}

func TestListingErrors(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, pagingFixture)
	tests := []struct {
		name    string
		call    func() error
		is      error
		mention string
	}{
		{name: "objects unknown bucket", call: func() error { _, _, err := f.ListObjects(ctx, "nope", "", 1); return err }, is: ErrNoSuchBucket, mention: `"nope"`},
		{name: "uploads unknown bucket", call: func() error { _, _, err := f.ListUploads(ctx, "nope", "", 1); return err }, is: ErrNoSuchBucket, mention: `"nope"`},
		{name: "lookup unknown bucket", call: func() error { _, _, err := f.LookupObject(ctx, "nope", "a"); return err }, is: ErrNoSuchBucket, mention: `"nope"`},
		{name: "zero limit", call: func() error { _, _, err := f.ListObjects(ctx, "b", "", 0); return err }, mention: "must be positive"},
		{name: "bad marker", call: func() error { _, _, err := f.ListUploads(ctx, "b", "!!", 1); return err }, mention: "bad upload marker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("err = %v, want one matching %v and naming %s", err, tc.is, tc.mention)
			}
		})
	}
}

func TestListBucketsAndLookup(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, pagingFixture)
	bs, err := f.ListBuckets(ctx)
	if err != nil || len(bs) != 2 || bs[0].Name != "b" || bs[1].Name != "empty" || bs[0].Versioning != filer.VersioningEnabled || bs[1].Versioning != filer.VersioningOff {
		t.Errorf("ListBuckets = %+v, %v", bs, err)
	}
	if _, found, err := f.LookupObject(ctx, "b", "zz"); found || err != nil {
		t.Errorf("missing key: found=%v err=%v", found, err)
	}
	if obj, found, err := f.LookupObject(ctx, "b", "d"); !found || err != nil || obj.Key != "d" || !obj.Versions[0].IsLatest {
		t.Errorf("LookupObject d = %+v, %v, %v", obj, found, err)
	}
}
