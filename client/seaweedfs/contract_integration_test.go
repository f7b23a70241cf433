//go:build integration

package seaweedfs_test

import (
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/filer/filertest"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// The contract scenarios SeaweedFS's LifecycleDelete RPC is known to fail,
// by the names of their known differences
// (docs/design/daily-run.md#dispatch); TestKnownDifferences pins what it
// does instead.
var knownDifferences = map[string]string{
	"an expiration on a suspended bucket replaces the null version with a null delete marker": "suspended-expiration-marker-id: the marker written has a fresh version ID, not null",
	"an expiration naming a latest delete marker is NOOP_RESOLVED":                            "expiration-stacks-markers: an Expiration naming a latest delete marker writes another marker over it",
	"a null delete marker left alone is removed":                                              "null-marker-kept: a lone null delete marker is NOOP_RESOLVED, and stays",
}

// The filer store passes the contract the embedded filer and the pass's
// fakes pass (core/filer/filertest), on the SeaweedFS under test, but for
// its known differences: scenarios are written through its S3 gateway, so
// SeaweedFS lays them out in the filer and names the buckets and
// versions, and read and deleted through the filer and the
// LifecycleDelete RPC.
func TestStoreContractLive(t *testing.T) {
	filertest.Run(t, filertest.Harness{
		Live: func(t *testing.T, buckets []filertest.Bucket) filertest.Subject {
			s3c, st, _ := target(t)
			names, ids := s3c.WriteContract(t, buckets)
			return filertest.Subject{Store: st, Buckets: names, IDs: ids}
		},
		// As older SeaweedFS releases left a key (seaweedfs#10583): a null
		// delete marker in <key>.versions beside the bare null object,
		// written through the filer, as S3 cannot.
		Ambiguate: func(t *testing.T, s filertest.Subject, bucket, key string) {
			st := s.Store.(*seaweedfs.Store)
			b := s.Buckets[bucket]
			if err := st.PutLegacyNullMarker(t.Context(), b, key, time.Now().Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
			if err := st.SetLatestVersionPointer(t.Context(), b, key, filer.NullVersionID); err != nil {
				t.Fatal(err)
			}
		},
		Differs: knownDifferences,
	})
}

// TestKnownDifferences pins what SeaweedFS's LifecycleDelete does where
// the contract says otherwise (docs/design/daily-run.md#dispatch). When a
// case fails, SeaweedFS has changed: if it now does as AWS does, drop the
// difference from the docs and from knownDifferences.
func TestKnownDifferences(t *testing.T) {
	yes := func(*filer.Object, int) bool { return true }
	for _, tc := range []struct {
		name    string
		buckets []filertest.Bucket
		target  string // the scenario ID deleted, under kind
		kind    lifecycle.ActionKind
		want    filer.Outcome
		// left checks the key after the delete; ids maps scenario IDs.
		left func(t *testing.T, obj filer.Object, ids map[string]string)
	}{
		{
			// AWS writes a null marker in place of the null version
			// (weed/s3api/s3api_internal_lifecycle.go: createDeleteMarker).
			name: "suspended-expiration-marker-id",
			buckets: []filertest.Bucket{{Name: "b", Versioning: filer.VersioningSuspended, Objects: []filertest.Object{{Key: "k", Versions: []filertest.Version{
				{ID: "x1", Size: 1}, {ID: filer.NullVersionID, Size: 2}}}}}},
			target: filer.NullVersionID, kind: lifecycle.ExpirationDays, want: filer.OutcomeDone,
			left: func(t *testing.T, obj filer.Object, ids map[string]string) {
				if len(obj.Versions) != 2 || !obj.Versions[0].DeleteMarker || !obj.Versions[0].IsLatest ||
					obj.Versions[0].VersionID == filer.NullVersionID || obj.Versions[1].VersionID != ids["x1"] {
					t.Errorf("left %+v; want a marker with a fresh version ID over %s, the null version gone", obj.Versions, ids["x1"])
				}
			},
		},
		{
			// AWS takes no action when the current version is a delete
			// marker. A pass never sends this: it sends Expiration only for
			// a version it read as an object version, and a version ID
			// never changes kind.
			name: "expiration-stacks-markers",
			buckets: []filertest.Bucket{{Name: "b", Versioning: filer.VersioningEnabled, Objects: []filertest.Object{{Key: "k", Versions: []filertest.Version{
				{ID: "m1", Size: 1}, {ID: "d1", DeleteMarker: true}}}}}},
			target: "d1", kind: lifecycle.ExpirationDays, want: filer.OutcomeDone,
			left: func(t *testing.T, obj filer.Object, ids map[string]string) {
				if len(obj.Versions) != 3 || !obj.Versions[0].DeleteMarker || obj.Versions[1].VersionID != ids["d1"] {
					t.Errorf("left %+v; want a second marker over %s", obj.Versions, ids["d1"])
				}
			},
		},
		{
			// AWS removes it. The pass's re-read after NOOP_RESOLVED finds
			// it unchanged and still due, and reports STUCK.
			name: "null-marker-kept",
			buckets: []filertest.Bucket{{Name: "b", Versioning: filer.VersioningSuspended, Objects: []filertest.Object{{Key: "k", Versions: []filertest.Version{
				{ID: filer.NullVersionID, DeleteMarker: true}}}}}},
			target: filer.NullVersionID, kind: lifecycle.ExpiredDeleteMarker, want: filer.OutcomeNoopResolved,
			left: func(t *testing.T, obj filer.Object, ids map[string]string) {
				if len(obj.Versions) != 1 || obj.Versions[0].VersionID != filer.NullVersionID || !obj.Versions[0].DeleteMarker {
					t.Errorf("left %+v; want the null marker alone", obj.Versions)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s3c, st, _ := target(t)
			names, ids := s3c.WriteContract(t, tc.buckets)
			ids[filer.NullVersionID] = filer.NullVersionID
			b := names["b"]
			obj, found, err := st.LookupObject(t.Context(), b, "k")
			if err != nil || !found {
				t.Fatalf("before: found %v, %v", found, err)
			}
			var expected *filer.Version
			for i := range obj.Versions {
				if obj.Versions[i].VersionID == ids[tc.target] {
					expected = &obj.Versions[i]
				}
			}
			if expected == nil {
				t.Fatalf("before: %+v has no %s", obj.Versions, ids[tc.target])
			}
			out, err := st.LifecycleDelete(t.Context(), filer.DeleteRequest{Bucket: b, Key: "k", Kind: tc.kind, Expected: expected.Identity(), Applies: yes})
			if err != nil || out != tc.want {
				t.Fatalf("%s of %s = %s, %v; want %s", tc.kind, tc.target, out, err, tc.want)
			}
			obj, found, err = st.LookupObject(t.Context(), b, "k")
			if err != nil || !found {
				t.Fatalf("after: found %v, %v", found, err)
			}
			tc.left(t, obj, ids)
		})
	}
}
