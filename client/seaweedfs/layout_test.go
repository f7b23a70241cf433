package seaweedfs

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"github.com/seaweedfs/seaweedfs/weed/s3api/s3lifecycle"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Version ids in SeaweedFS's new (inverted-timestamp) format: a smaller id
// is newer.
const (
	idNew = "67134f1d04c4ddf8aaaaaaaaaaaaaaaa"
	idMid = "67134f1d04c4ddf9aaaaaaaaaaaaaaaa"
	idOld = "67134f1d04c4ddfaaaaaaaaaaaaaaaaa"
)

func file(name string, mtimeSec int64, ext map[string]string) *filer_pb.Entry {
	e := &filer_pb.Entry{Name: name, Attributes: &filer_pb.FuseAttributes{Mtime: mtimeSec, FileSize: 3}}
	if ext != nil {
		e.Extended = map[string][]byte{}
		for k, v := range ext {
			e.Extended[k] = []byte(v)
		}
	}
	return e
}

func dir(name string, ext map[string]string) *filer_pb.Entry {
	e := file(name, 0, ext)
	e.IsDirectory = true
	return e
}

func TestHashExtendedMatchesSeaweedFS(t *testing.T) {
	for _, ext := range []map[string][]byte{
		nil,
		{"a": []byte("1")},
		{"X-Amz-Tagging-env": []byte("dev"), "Seaweed-X-Amz-ETag": []byte(`"abc"`), "k:1": []byte("2:x")},
	} {
		if d := cmp.Diff(s3lifecycle.HashExtended(ext), hashExtended(ext)); d != "" {
			t.Errorf("hashExtended(%v) differs from SeaweedFS's (-want +got):\n%s", ext, d)
		}
	}
}

func TestStoreToken(t *testing.T) {
	tagged := file("v_x", 1, map[string]string{"X-Amz-Tagging-env": "dev"})
	tagged.Chunks = []*filer_pb.FileChunk{
		{Fid: &filer_pb.FileId{VolumeId: 3, FileKey: 0x0163, Cookie: 0x7037d6}},
		{FileId: "4,02aa"},
	}
	for _, tc := range []struct {
		name    string
		e       *filer_pb.Entry
		wantFid string
	}{
		{"chunks and tags", tagged, tagged.Chunks[0].GetFileIdString()},
		{"inline, no Extended", file("k", 1, nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := storeTokenOf(tc.e)
			if tok == "" {
				t.Fatal("empty token: indistinguishable from a version another store listed")
			}
			hash, fid, err := parseStoreToken(tok)
			if err != nil {
				t.Fatalf("parse %q: %v", tok, err)
			}
			// Both halves must be the bytes the server computes for the
			// live entry (computeEntryIdentity).
			if d := cmp.Diff(s3lifecycle.HashExtended(tc.e.Extended), hash); d != "" {
				t.Errorf("Extended hash (-want +got):\n%s", d)
			}
			if fid != tc.wantFid {
				t.Errorf("head fid %q, want %q", fid, tc.wantFid)
			}
		})
	}
	// A retag changes the token: that is what lets the server refuse a
	// delete planned before it.
	retagged := file("v_x", 1, map[string]string{"X-Amz-Tagging-env": "prod"})
	retagged.Chunks = tagged.Chunks
	if storeTokenOf(retagged) == storeTokenOf(tagged) {
		t.Error("a tag change left the token unchanged")
	}
	for _, bad := range []string{"", "no-separator", "zz/3,01", "abcd/3,01"} {
		if _, _, err := parseStoreToken(bad); !errors.Is(err, ErrBadStoreToken) {
			t.Errorf("parseStoreToken(%q) err %v, want ErrBadStoreToken", bad, err)
		}
	}
}

func TestParseBucket(t *testing.T) {
	tests := []struct {
		name    string
		ext     map[string]string
		want    filer.Bucket
		wantErr error
	}{
		{"plain", nil, filer.Bucket{Name: "b"}, nil},
		{"enabled with lifecycle", map[string]string{extVersioning: "Enabled", extLifecycleXML: "<x/>"}, filer.Bucket{Name: "b", Versioning: filer.VersioningEnabled, LifecycleXML: "<x/>"}, nil},
		{"suspended", map[string]string{extVersioning: "Suspended"}, filer.Bucket{Name: "b", Versioning: filer.VersioningSuspended}, nil},
		{"object lock implies enabled", map[string]string{extObjectLockEnabled: "Enabled"}, filer.Bucket{Name: "b", Versioning: filer.VersioningEnabled, ObjectLock: true}, nil},
		{"unknown versioning", map[string]string{extVersioning: "enabled"}, filer.Bucket{}, ErrUnknownVersioning},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseBucket(dir("b", tc.ext))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestAssemble(t *testing.T) {
	type row struct {
		id     string
		latest bool
		dm     bool
	}
	tests := []struct {
		name    string
		p       objectParts
		want    []row
		wantErr error
	}{
		{"bare only", objectParts{bare: file("k", 10, nil)}, []row{{"null", true, false}}, nil},
		{"pointer names the latest", objectParts{
			versions: dir("k.versions", map[string]string{extLatestVersionID: idMid}),
			files:    []*filer_pb.Entry{file("v_"+idNew, 30, nil), file("v_"+idMid, 20, nil), file("v_"+idOld, 10, nil)},
		}, []row{{idMid, true, false}, {idNew, false, false}, {idOld, false, false}}, nil},
		{"delete marker latest, null noncurrent", objectParts{
			bare:     file("k", 5, nil),
			versions: dir("k.versions", map[string]string{extLatestVersionID: idNew}),
			files:    []*filer_pb.Entry{file("v_"+idNew, 30, map[string]string{extDeleteMarker: "true"})},
		}, []row{{idNew, true, true}, {"null", false, false}}, nil},
		{"null is latest by signal", objectParts{
			bare:     file("k", 5, nil),
			versions: dir("k.versions", map[string]string{extNullVersionIsLatest: "true"}),
			files:    []*filer_pb.Entry{file("v_"+idNew, 30, nil)},
		}, []row{{"null", true, false}, {idNew, false, false}}, nil},
		{"no pointer: newest version unless null is strictly newer", objectParts{
			bare:     file("k", 5, nil),
			versions: dir("k.versions", nil),
			files:    []*filer_pb.Entry{file("v_"+idOld, 30, nil), file("v_"+idNew, 31, nil)},
		}, []row{{idNew, true, false}, {idOld, false, false}, {"null", false, false}}, nil},
		{"empty versions dir", objectParts{versions: dir("k.versions", nil)}, nil, nil},
		{"dangling pointer", objectParts{
			versions: dir("k.versions", map[string]string{extLatestVersionID: idMid}),
			files:    []*filer_pb.Entry{file("v_"+idNew, 30, nil)},
		}, nil, ErrDanglingLatest},
		{"stray file in versions dir", objectParts{
			versions: dir("k.versions", nil),
			files:    []*filer_pb.Entry{file("tmp", 30, nil)},
		}, nil, ErrBadEntry},
		{"bad retention", objectParts{bare: file("k", 5, map[string]string{extRetainUntil: "soon"})}, nil, ErrBadEntry},
		{"bad legal hold", objectParts{bare: file("k", 5, map[string]string{extLegalHold: "on"})}, nil, ErrBadEntry},
		{"bad noncurrent stamp", objectParts{bare: file("k", 5, map[string]string{extNoncurrentSinceNs: "x"})}, nil, ErrBadEntry},
		// seaweedfs#10583: a null delete marker left in k.versions/ beside
		// the bare null object, the pointer naming "null". Either entry
		// could be "the" null version: no guess.
		{"null in both the bare entry and v_null", objectParts{
			bare:     file("k", 50, nil),
			versions: dir("k.versions", map[string]string{extLatestVersionID: "null"}),
			files:    []*filer_pb.Entry{file("v_null", 40, map[string]string{extDeleteMarker: "true"})},
		}, nil, filer.ErrAmbiguousLayout},
		{"null in both, no pointer", objectParts{
			bare:     file("k", 50, nil),
			versions: dir("k.versions", nil),
			files:    []*filer_pb.Entry{file("v_null", 40, nil), file("v_"+idNew, 30, nil)},
		}, nil, filer.ErrAmbiguousLayout},
		{"pointer and null-is-latest both set", objectParts{
			bare:     file("k", 50, nil),
			versions: dir("k.versions", map[string]string{extLatestVersionID: idNew, extNullVersionIsLatest: "true"}),
			files:    []*filer_pb.Entry{file("v_"+idNew, 30, nil)},
		}, nil, filer.ErrAmbiguousLayout},
		{"v_null alone is the null version", objectParts{
			versions: dir("k.versions", map[string]string{extLatestVersionID: "null"}),
			files:    []*filer_pb.Entry{file("v_null", 40, map[string]string{extDeleteMarker: "true"}), file("v_"+idOld, 10, nil)},
		}, []row{{"null", true, true}, {idOld, false, false}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.key = "k"
			obj, found, err := assemble(tc.p)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if found != (len(tc.want) > 0) {
				t.Fatalf("found %v", found)
			}
			var got []row
			for i, v := range obj.Versions {
				got = append(got, row{v.VersionID, v.IsLatest, v.DeleteMarker})
				if _, _, err := parseStoreToken(v.StoreToken); err != nil {
					t.Errorf("version %d (%s): %v", i, v.VersionID, err)
				}
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(row{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestVersionFromEntry(t *testing.T) {
	e := file("v_x", 100, map[string]string{
		"X-Amz-Tagging-env": "dev", extRetainUntil: "2000000000", extLegalHold: "ON",
		extNoncurrentSinceNs: "123", extETag: `"abc"`,
	})
	e.Attributes.MtimeNs = 7
	got, err := versionFromEntry(e, "x")
	if err != nil {
		t.Fatal(err)
	}
	want := filer.Version{
		VersionID: "x", MtimeNs: 100*int64(time.Second) + 7, Size: 3, ETag: "abc",
		Tags: map[string]string{"env": "dev"}, NoncurrentSinceNs: 123,
		RetainUntil: time.Unix(2000000000, 0).UTC(), LegalHold: true,
		StoreToken: hex.EncodeToString(s3lifecycle.HashExtended(e.Extended)) + "/",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestFinalBound(t *testing.T) {
	tests := []struct{ last, want string }{
		{"k", "k"},   // no name after "k" maps below it
		{"k-1", "k"}, // "k.versions" may still follow and holds key "k"
		{"k.a", "k"}, // likewise
		{"k.versions", "k.versions"},
		{"k0", "k0"}, // "k.versions" < "k0": already seen
		{"-x", "-x"},
	}
	for _, tc := range tests {
		if got := finalBound(tc.last); got != tc.want {
			t.Errorf("finalBound(%q) = %q, want %q", tc.last, got, tc.want)
		}
	}
}

func TestLevelStart(t *testing.T) {
	tests := []struct{ prefix, after, want string }{
		{"", "", ""},
		{"", "a/b", "a"},
		{"", "a.txt", "a"}, // directory "a" sorts as "a/", after "a.txt"
		{"", "ab", "ab"},
		{"a/", "a/b-c/d", "b"},
		{"x/", "a", ""}, // after is outside this level: list it all
	}
	for _, tc := range tests {
		if got := newLevel("/d", tc.prefix, tc.after, false).startAt; got != tc.want {
			t.Errorf("newLevel(%q, after %q).startAt = %q, want %q", tc.prefix, tc.after, got, tc.want)
		}
	}
}

// Two entries that carry one version ID (the bare null object and a v_null
// delete marker) never share a delete identity: a LifecycleDelete prepared
// for one is NOOP_RESOLVED against the other, whichever the server
// resolves "null" to.
func TestNullEntriesHaveDistinctIdentities(t *testing.T) {
	obj := file("k", 50, map[string]string{extETag: `"abc-2"`})
	obj.Attributes.FileSize = 6 << 20
	obj.Chunks = []*filer_pb.FileChunk{{FileId: "3,01637037d6"}}
	marker := file("v_null", 40, map[string]string{extDeleteMarker: "true", extVersionID: "null"})
	a, err := versionFromEntry(obj, filer.NullVersionID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := versionFromEntry(marker, filer.NullVersionID)
	if err != nil {
		t.Fatal(err)
	}
	if a.VersionID != b.VersionID {
		t.Fatalf("setup: version IDs %q and %q differ", a.VersionID, b.VersionID)
	}
	if a.Identity() == b.Identity() {
		t.Fatalf("identities are equal: %+v", a.Identity())
	}
	ha, fa, _ := parseStoreToken(a.StoreToken)
	hb, fb, _ := parseStoreToken(b.StoreToken)
	if a.MtimeNs == b.MtimeNs && a.Size == b.Size && fa == fb && hex.EncodeToString(ha) == hex.EncodeToString(hb) {
		t.Fatal("the wire identity (mtime, size, head fid, Extended hash) cannot tell the entries apart")
	}
}
