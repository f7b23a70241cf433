package decom

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/tierdelete"
)

// TestRecordCheckpointFixtures derives the receipt identity of every
// record in the journal fixtures: the id kind and id RustFS's receipt
// path uses, a checkpoint that decodes back, and a typed error for the
// rest.
func TestRecordCheckpointFixtures(t *testing.T) {
	root := "../../testdata/ilm/pool-a"
	kinds := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		key := filepath.ToSlash(rel)
		v, err := RecordCheckpoint(key, b)
		if err != nil {
			var de *envelope.DecodeError
			if !errors.Is(err, ilmpath.ErrUnregistered) && !errors.Is(err, ErrUnsupportedRecord) && !errors.Is(err, ErrCheckpointNotDerivable) && !errors.As(err, &de) {
				t.Errorf("%s: untyped error %v", key, err)
			}
			kinds["error"]++
			return nil
		}
		kinds[string(v.Checkpoint.Kind)]++
		if v.Checkpoint.ContentSHA256 != envelope.SHA256Hex(b) {
			t.Errorf("%s: content digest", key)
		}
		loc, _ := ilmpath.Parse(key)
		switch {
		case loc.Kind == ilmpath.KindTierDeleteJournalV6 && v.ID != envelope.SHA256Hex([]byte(key)):
			t.Errorf("%s: v6 receipt id must be the SHA-256 of the path", key)
		case loc.Kind == ilmpath.KindTierDeleteJournal && v.ID != loc.Digest:
			t.Errorf("%s: legacy receipt id must be the path digest", key)
		case loc.Kind == ilmpath.KindTransition && v.ID != ilmpath.Hyphenate(loc.ID):
			t.Errorf("%s: transaction id %s", key, v.ID)
		}
		if _, err := ParseReceiptKey(v.ReceiptKey(RunToken("cmd", 1))); err != nil {
			t.Errorf("%s: receipt key does not parse: %v", key, err)
		}
		if v.Checkpoint.Kind == CkParent {
			// No identity digest is derived for a chunk parent, so its
			// checkpoint is compared by content and never encoded.
			if v.Checkpoint.IdentitySHA256 != "" {
				t.Errorf("%s: parent identity", key)
			}
			return nil
		}
		if d, err := DecodeCheckpoint(v.Checkpoint.Encode()); err != nil || !Equal(d, v.Checkpoint) {
			t.Errorf("%s: derived checkpoint does not decode back: %v", key, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []CheckpointKind{CkJournal, CkManifest, CkParent, CkTransition, CkManualJob, CkManualScope, CkManualTask, CkManualResult} {
		if kinds[string(k)] == 0 && k != CkManualJob {
			t.Errorf("no %s fixture derived (got %v)", k, kinds)
		}
	}
	if kinds["error"] == 0 {
		t.Errorf("corrupt fixtures must fail: %v", kinds)
	}
}

func TestRecordCheckpointIdentity(t *testing.T) {
	m := &tierdelete.Manifest{Version: 1, OperationID: "b0000000-0000-4000-8000-000000000001", Bucket: "photos",
		BucketIncarnation: "b0000000-0000-4000-8000-000000000002", Prefix: "logs/", JournalNames: []string{},
		JournalSetSHA256: ilmpath.JournalSetSHA256(nil), TopologyGeneration: strings.Repeat("a", 64), State: tierdelete.Preparing}
	v, err := RecordCheckpoint(m.RootKey(), m.Encode())
	if err != nil {
		t.Fatal(err)
	}
	// The manifest receipt id is the SHA-256 of the operation UUID's 16
	// bytes; its identity covers the immutable members (a serde tuple):
	//   printf '\xb0\0\0\0\0\0\x40\0\x80\0\0\0\0\0\0\x01' | sha256sum
	if v.ID != "590548327d3fc0ec5f3ad9f9e09e3e2fa4d204f9cecfdd5cf4c27fd58860522e" {
		t.Errorf("id %s", v.ID)
	}
	wantIdentity := envelope.SHA256Hex([]byte(`[1,"b0000000-0000-4000-8000-000000000001","photos","b0000000-0000-4000-8000-000000000002","logs/",[],"` +
		ilmpath.JournalSetSHA256(nil) + `",0,"` + strings.Repeat("a", 64) + `"]`))
	if v.Checkpoint.IdentitySHA256 != wantIdentity {
		t.Errorf("identity %s, want %s", v.Checkpoint.IdentitySHA256, wantIdentity)
	}
	moved := *m
	moved.State = tierdelete.DispatchAuthorized
	w, _ := RecordCheckpoint(m.RootKey(), moved.Encode())
	if err := Successor(v.Checkpoint, w.Checkpoint); err != nil {
		t.Errorf("manifest Preparing → DispatchAuthorized: %v", err)
	}
	if _, err := RecordCheckpoint("ilm/tier-probe-intents/records/01/23/0123"+strings.Repeat("0", 28)+".json", []byte(`{}`)); !errors.Is(err, ErrUnsupportedRecord) {
		t.Errorf("probe intent: %v", err)
	}
	if _, err := RecordCheckpoint("ilm/future/x.json", []byte(`{}`)); !errors.Is(err, ilmpath.ErrUnregistered) {
		t.Errorf("unregistered: %v", err)
	}
}

// TestRecordCheckpointRustFSRecords: records byte for byte as RustFS
// writes them (testdata/rustfs-records) derive a checkpoint, including the
// manual jobs whose reports leave zero counters out.
func TestRecordCheckpointRustFSRecords(t *testing.T) {
	root := "../../testdata/rustfs-records/store"
	var expect struct {
		Records []struct{ Path, Classification string }
	}
	raw, err := os.ReadFile("../../testdata/rustfs-records/expect.json")
	if err != nil || json.Unmarshal(raw, &expect) != nil {
		t.Fatalf("expect.json: %v", err)
	}
	corrupt := map[string]bool{}
	for _, r := range expect.Records {
		corrupt[r.Path] = r.Classification == "corrupt"
	}
	n := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		key := filepath.ToSlash(rel)
		v, err := RecordCheckpoint(key, b)
		if corrupt[key] != (err != nil) {
			t.Errorf("%s: corrupt %v, got %v", key, corrupt[key], err)
		}
		if err != nil {
			return nil
		}
		n++
		if v.Checkpoint.Kind == CkManualJob && (v.Checkpoint.Progress == nil || !v.Checkpoint.Progress.valid()) {
			t.Errorf("%s: no valid progress proof", key)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("%d records: %v", n, err)
	}
}
