package journal

import (
	"context"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/testdata/rustfsgen"
)

// TestRustFSGeneratedRecords is the differential test: records written by
// testdata/rustfsgen (encoding/json on structs laid out as RustFS's serde
// types, independent of ilmctl's codecs) must decode and classify as the
// generator expects, one row per kind and state RustFS writes.
func TestRustFSGeneratedRecords(t *testing.T) {
	recs := rustfsgen.Records()
	pool := &mem{name: "pool-a", objs: map[string][]byte{}}
	for _, r := range recs {
		if _, dup := pool.objs[r.Key]; dup {
			t.Fatalf("generator wrote %s twice", r.Key)
		}
		pool.objs[r.Key] = r.Data
	}
	rep, err := Scan(context.Background(), []metastore.Store{pool}, Options{Clock: func() time.Time { return rustfsgen.Now }})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Record{}
	for _, r := range rep.Records {
		got[r.Path] = r
	}
	for _, want := range recs {
		r := got[want.Key]
		if string(r.Classification) != want.Classification || string(r.Decision) != want.Decision {
			t.Errorf("%s (%s): got %s/%s (%s), want %s/%s\n%s", want.What, want.Key, r.Classification, r.Decision, r.Reason,
				want.Classification, want.Decision, want.Data)
		}
	}
	if len(recs) < 40 {
		t.Errorf("generator wrote only %d records", len(recs))
	}
}
