package metastore_test

import (
	"errors"
	"testing"

	"github.com/ilmctl/ilmctl/client/metastore"
	core "github.com/ilmctl/ilmctl/core/metastore"
)

// writeContract is the metadata-store write contract every Store keeps
// (docs/design/recovery.md#metadata-store-write-contract): one table of
// write cases, each run on a fresh key, each naming the typed error it
// must return and the bytes the key must hold afterwards. It runs against
// the dir: store here and against the s3:// store on a real SeaweedFS in
// integration_test.go.
func writeContract(t *testing.T, s core.Store) {
	v1, v2 := []byte(`{"v":1}`), []byte(`{"v":2}`)
	type setup int
	const (
		missing setup = iota // the key does not exist
		present              // the key holds v1
		deleted              // the key held v1 and was deleted
	)
	cases := []struct {
		name  string
		setup setup
		// op runs the write; cur is the ETag of v1 when the setup wrote it.
		op      func(key, cur string) error
		wantErr error // nil: must succeed
		want    []byte
	}{
		{"create-only on a missing key", missing,
			func(k, _ string) error { _, err := s.PutIfAbsent(t.Context(), k, v1); return err }, nil, v1},
		{"create-only on an existing key", present,
			func(k, _ string) error { _, err := s.PutIfAbsent(t.Context(), k, v2); return err }, core.ErrExists, v1},
		{"create-only after delete", deleted,
			func(k, _ string) error { _, err := s.PutIfAbsent(t.Context(), k, v2); return err }, nil, v2},
		{"CAS with the current ETag", present,
			func(k, cur string) error { _, err := s.PutIfMatch(t.Context(), k, v2, cur); return err }, nil, v2},
		{"CAS with a changed ETag", present,
			func(k, _ string) error {
				_, err := s.PutIfMatch(t.Context(), k, v2, "0123456789abcdef0123456789abcdef")
				return err
			}, core.ErrPreconditionFailed, v1},
		{"CAS on a missing key", missing,
			func(k, _ string) error {
				_, err := s.PutIfMatch(t.Context(), k, v2, "0123456789abcdef0123456789abcdef")
				return err
			}, core.ErrNotFound, nil},
		{"CAS on a deleted key with its last ETag", deleted,
			func(k, cur string) error { _, err := s.PutIfMatch(t.Context(), k, v2, cur); return err }, core.ErrNotFound, nil},
		{"conditional delete with the current ETag", present,
			func(k, cur string) error { return s.DeleteIfMatch(t.Context(), k, cur) }, nil, nil},
		{"conditional delete with a changed ETag", present,
			func(k, _ string) error { return s.DeleteIfMatch(t.Context(), k, "0123456789abcdef0123456789abcdef") },
			core.ErrPreconditionFailed, v1},
		{"conditional delete on a missing key", missing,
			func(k, _ string) error { return s.DeleteIfMatch(t.Context(), k, "0123456789abcdef0123456789abcdef") },
			core.ErrNotFound, nil},
		{"conditional delete on a deleted key with its last ETag", deleted,
			func(k, cur string) error { return s.DeleteIfMatch(t.Context(), k, cur) }, core.ErrNotFound, nil},
	}
	all := []error{core.ErrNotFound, core.ErrExists, core.ErrPreconditionFailed}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			key := "ilm/recovery-controls/contract/" + string(rune('a'+i)) + ".json"
			cur := ""
			if tc.setup != missing {
				e, err := s.PutIfAbsent(ctx, key, v1)
				if err != nil {
					t.Fatalf("setup PutIfAbsent: %v", err)
				}
				cur = e
			}
			if tc.setup == deleted {
				if err := s.DeleteIfMatch(ctx, key, cur); err != nil {
					t.Fatalf("setup DeleteIfMatch: %v", err)
				}
			}
			err := tc.op(key, cur)
			if tc.wantErr == nil && err != nil {
				t.Fatalf("%s: %v, want success", tc.name, err)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("%s: %v, want %v", tc.name, err, tc.wantErr)
				}
				for _, other := range all {
					if other != tc.wantErr && errors.Is(err, other) {
						t.Fatalf("%s: %v also matches %v; the three write errors must be distinct", tc.name, err, other)
					}
				}
			}
			b, _, gerr := s.Get(ctx, key)
			switch {
			case tc.want == nil && !errors.Is(gerr, core.ErrNotFound):
				t.Fatalf("after %s: Get = %q, %v; want ErrNotFound", tc.name, b, gerr)
			case tc.want != nil && (gerr != nil || string(b) != string(tc.want)):
				t.Fatalf("after %s: Get = %q, %v; want %q", tc.name, b, gerr, tc.want)
			}
		})
	}
}

func TestDirWriteContract(t *testing.T) {
	d, err := metastore.NewDir(t.TempDir(), "dir:test")
	if err != nil {
		t.Fatal(err)
	}
	writeContract(t, d)
}
