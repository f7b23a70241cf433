package tierdelete

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/internal/codectest"
)

func TestDecodeJournalStrict(t *testing.T) {
	bi := "[" + strings.TrimSuffix(strings.Repeat("1,", 32), ",") + "]"
	codectest.Run(t, []codectest.Case{
		{"v1 legacy no backend member", "", []byte(`{"version":1,"obj_name":"o","version_id":"v","tier_name":"T"}`), nil},
		{"v1 backend null", "", []byte(`{"version":1,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":null}`), nil},
		{"v2", "", []byte(`{"version":2,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":` + bi + `}`), nil},
		{"v2 missing backend", "", []byte(`{"version":2,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":null}`), envelope.ErrMissingField},
		{"v3 needs exact", "", []byte(`{"version":3,"obj_name":"o","version_id":"v","tier_name":"T","backend_identity":` + bi + `}`), envelope.ErrVersionState},
		{"v4 inconsistent", "", []byte(`{"version":4,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":` + bi + `,"version_state":"exact"}`), envelope.ErrVersionState},
		{"v4 suspended null", "", []byte(`{"version":4,"obj_name":"o","version_id":"null","tier_name":"T","backend_identity":` + bi + `,"version_id_exact":true,"version_state":"suspended-null"}`), nil},
		{"v5 missing source", "", []byte(`{"version":5,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":` + bi + `,"version_state":"known-disabled","state":"Prepared"}`), envelope.ErrMissingField},
		{"v5 bad state", "", []byte(`{"version":5,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":` + bi + `,"version_state":"known-disabled","state":"Done","source":{}}`), envelope.ErrIllegalState},
		{"v5 dispatch not allowed", "", []byte(`{"version":5,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":` + bi + `,"version_state":"known-disabled","state":"Prepared","source":{},"dispatch":{}}`), envelope.ErrFieldNotAllowed},
		{"unknown field", "", []byte(`{"version":1,"obj_name":"o","version_id":"","tier_name":"T","x":1}`), envelope.ErrUnknownField},
		{"case alias field", "", []byte(`{"VERSION":1,"obj_name":"o","version_id":"","tier_name":"T"}`), envelope.ErrUnknownField},
		{"duplicate field", "", []byte(`{"version":1,"version":1,"obj_name":"o","version_id":"","tier_name":"T"}`), envelope.ErrDuplicateField},
		{"v7", "", []byte(`{"version":7,"obj_name":"o","version_id":"","tier_name":"T"}`), envelope.ErrUnsupportedVersion},
		{"null string", "", []byte(`{"version":1,"obj_name":null,"version_id":"","tier_name":"T"}`), envelope.ErrWrongType},
		{"empty object", "", []byte(`{"version":1,"obj_name":"","version_id":"","tier_name":"T"}`), envelope.ErrIdentity},
		{"trailing", "", []byte(`{"version":1,"obj_name":"o","version_id":"","tier_name":"T"} x`), envelope.ErrMalformed},
	}, func(_ string, b []byte) ([]byte, error) {
		j, err := DecodeJournal(b)
		if err != nil {
			return nil, err
		}
		return j.Encode(), nil
	})
}

func TestSerdeStringEscaping(t *testing.T) {
	got := string(envelope.AppendString(nil, "a\"\\\b\f\n\r\t\x01<>&\u2028é"))
	want := `"a\"\\\b\f\n\r\t\u0001<>&` + "\u2028é" + `"`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func seedDir(f *testing.F, sub string) {
	_ = filepath.WalkDir(filepath.Join("../../testdata/ilm", sub), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
}

func FuzzDecodeJournal(f *testing.F) {
	seedDir(f, "pool-a/ilm/tier-delete-journal")
	seedDir(f, "pool-a/ilm/tier-delete-journal-v6")
	f.Fuzz(func(t *testing.T, b []byte) {
		j, err := DecodeJournal(b)
		if err == nil {
			if _, err := DecodeJournal(j.Encode()); err != nil {
				t.Fatalf("re-encoded journal does not decode: %v", err)
			}
		}
	})
}

func FuzzDecodeManifest(f *testing.F) {
	seedDir(f, "pool-a/ilm/tier-delete-dispatch-manifests")
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeManifest("ilm/tier-delete-dispatch-manifests/x.json", b)
		_, _ = DecodeParent("ilm/tier-delete-dispatch-manifests/x.json", b)
	})
}
