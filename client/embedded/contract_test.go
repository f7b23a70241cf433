package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/filer/filertest"
)

// The embedded filer passes the store contract the pass's fakes pass.
func TestStoreContract(t *testing.T) {
	filertest.Run(t, filertest.Harness{New: func(t *testing.T, buckets []filertest.Bucket) filer.Store {
		f := openTest(t, Options{Clock: func() time.Time { return filertest.Now }})
		var doc bytes.Buffer
		if err := json.NewEncoder(&doc).Encode(map[string]any{"buckets": fixtureOf(buckets)}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.LoadFixture(context.Background(), &doc); err != nil {
			t.Fatalf("LoadFixture: %v", err)
		}
		return f
	}, Ambiguate: func(t *testing.T, _ filertest.Subject, _, _ string) {
		t.Skip("the embedded filer holds a key as one record of its versions, and its loader refuses a version ID used twice: no layout of it is ambiguous")
	}})
}

// fixtureOf spells the contract's buckets as LoadFixture reads them.
func fixtureOf(buckets []filertest.Bucket) []map[string]any {
	var out []map[string]any
	for _, b := range buckets {
		var objs, ups []map[string]any
		for _, o := range b.Objects {
			var vs []map[string]any
			for _, v := range o.Versions {
				fv := map[string]any{"version_id": v.ID, "mtime": v.Mtime, "delete_marker": v.DeleteMarker, "legal_hold": v.LegalHold}
				if !v.RetainUntil.IsZero() {
					fv["retain_until"] = v.RetainUntil
				}
				if v.ID == filer.NullVersionID {
					fv["version_id"] = nil
				}
				if !v.DeleteMarker {
					fv["size"], fv["etag"] = v.Size, "etag-"+v.ID
				}
				vs = append(vs, fv)
			}
			objs = append(objs, map[string]any{"key": o.Key, "versions": vs})
		}
		for _, u := range b.Uploads {
			ups = append(ups, map[string]any{"key": u.Key, "upload_id": u.UploadID, "initiated": u.Initiated})
		}
		out = append(out, map[string]any{"name": b.Name, "versioning": string(b.Versioning), "object_lock": b.ObjectLock, "objects": objs, "uploads": ups})
	}
	return out
}
