package embedded

import (
	"context"
	"errors"
	"strings"
	"testing"
)

const internalFixture = `{"buckets":[{"name":"photos","versioning":"Enabled","objects":[
 {"key":"a.jpg","versions":[
  {"version_id":"v1","mtime":"2026-01-01T00:00:00Z","size":5,"internal_metadata":{
    "x-rustfs-internal-transition-status":"complete","x-minio-internal-transition-status":"complete"}},
  {"version_id":"v2","mtime":"2026-01-02T00:00:00Z","size":6}]}]}]}`

func TestInternalMetadataConditionalUpdate(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	if _, err := f.LoadFixture(ctx, strings.NewReader(internalFixture)); err != nil {
		t.Fatal(err)
	}
	v, err := f.InternalMetadata(ctx, "photos", "a.jpg", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if v.Generation != 1 || v.Metadata["x-rustfs-internal-transition-status"] != "complete" || v.Size != 5 || v.ETag == "" {
		t.Fatalf("loaded %+v", v)
	}
	plain, err := f.InternalMetadata(ctx, "photos", "a.jpg", "v2")
	if err != nil || plain.Generation != 0 || plain.Metadata != nil {
		t.Fatalf("version without internal metadata: %+v %v", plain, err)
	}

	set := map[string]string{"x-rustfs-internal-transitioned-version-state": "exact"}
	tests := []struct {
		name    string
		gen     uint64
		wantErr error
		wantGen uint64
	}{
		{"stale generation", 0, ErrGenerationMismatch, 0},
		{"future generation", 7, ErrGenerationMismatch, 0},
		{"current generation", 1, nil, 2},
		{"the same generation again", 1, ErrGenerationMismatch, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := f.InternalMetadata(ctx, "photos", "a.jpg", "v1")
			got, err := f.UpdateInternalMetadata(ctx, "photos", "a.jpg", "v1", tt.gen, set)
			if !errors.Is(err, tt.wantErr) || got != tt.wantGen {
				t.Fatalf("update(gen %d) = %d, %v; want %d, %v", tt.gen, got, err, tt.wantGen, tt.wantErr)
			}
			after, _ := f.InternalMetadata(ctx, "photos", "a.jpg", "v1")
			if tt.wantErr != nil && (after.Generation != before.Generation || len(after.Metadata) != len(before.Metadata)) {
				t.Fatalf("a refused update changed the version: %+v -> %+v", before, after)
			}
		})
	}
	v, _ = f.InternalMetadata(ctx, "photos", "a.jpg", "v1")
	if v.Metadata["x-rustfs-internal-transitioned-version-state"] != "exact" || v.Metadata["x-minio-internal-transition-status"] != "complete" {
		t.Fatalf("after update: %v", v.Metadata)
	}
	// The listing the lifecycle engine reads is unchanged.
	obj, ok, err := f.LookupObject(ctx, "photos", "a.jpg")
	if err != nil || !ok || len(obj.Versions) != 2 || obj.Versions[1].Size != 5 {
		t.Fatalf("lookup after update: %+v %v %v", obj, ok, err)
	}
	for _, miss := range [][3]string{{"nope", "a.jpg", "v1"}, {"photos", "b.jpg", "v1"}, {"photos", "a.jpg", "v9"}} {
		if _, err := f.InternalMetadata(ctx, miss[0], miss[1], miss[2]); !errors.Is(err, ErrNoSuchVersion) {
			t.Errorf("%v: %v, want ErrNoSuchVersion", miss, err)
		}
		if _, err := f.UpdateInternalMetadata(ctx, miss[0], miss[1], miss[2], 1, set); !errors.Is(err, ErrNoSuchVersion) {
			t.Errorf("update %v: %v, want ErrNoSuchVersion", miss, err)
		}
	}
	if _, err := f.UpdateInternalMetadata(ctx, "photos", "a.jpg", "v1", 2, map[string]string{"x-amz-meta-a": "b"}); err == nil {
		t.Error("a non-internal key was accepted")
	}
}

func TestFixtureInternalMetadataValidation(t *testing.T) {
	bad := []struct{ doc, want string }{
		{`{"buckets":[{"name":"b","versioning":"Enabled","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z","delete_marker":true,"internal_metadata":{"x-rustfs-internal-a":"b"}}]}]}]}`, "delete marker"},
		{`{"buckets":[{"name":"b","objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z","internal_metadata":{"x-amz-meta-a":"b"}}]}]}]}`, "internal keys start with"},
	}
	for _, b := range bad {
		f := openTest(t, Options{})
		if _, err := f.LoadFixture(context.Background(), strings.NewReader(b.doc)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("err %v, want one containing %q", err, b.want)
		}
	}
}
