package transition

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/internal/codectest"
)

func fixtures(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	root := "../../testdata/ilm/pool-a"
	_ = filepath.WalkDir(filepath.Join(root, "ilm/transition-transactions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatal("no transition fixtures; run go test ./core/journal -update")
	}
	return out
}

func TestDecodeFixtures(t *testing.T) {
	good := 0
	for k, b := range fixtures(t) {
		tx, err := Decode(k, b)
		if err != nil {
			continue // corrupt fixtures are asserted in core/journal
		}
		good++
		if string(tx.Encode()) != string(b) {
			t.Errorf("%s: re-encoding differs", k)
		}
	}
	if good != 9 {
		t.Fatalf("want 9 valid transactions, got %d", good)
	}
}

func TestDecodeRejects(t *testing.T) {
	var key string
	var base []byte
	key = ilmpath.TransitionKey("d0000000-0000-4000-8000-000000000008")
	base = fixtures(t)[key]
	tx, err := Decode(key, base)
	if err != nil {
		t.Fatal(err)
	}
	reseal := func(mut func(*Transaction)) []byte {
		c := *tx
		mut(&c)
		return c.Encode()
	}
	codectest.Run(t, []codectest.Case{
		{"bad checksum", key, []byte(strings.Replace(string(base), `"revision":5`, `"revision":4`, 1)), envelope.ErrChecksum},
		{"wrong schema", key, []byte(strings.Replace(string(base), Schema, "rustfs-transition-transaction-v2", 1)), envelope.ErrSchema},
		{"illegal revision", key, reseal(func(c *Transaction) { c.Revision = 6 }), envelope.ErrIllegalRevision},
		{"cleanup_pending@1", key, reseal(func(c *Transaction) { c.State, c.Revision = CleanupPending, 1 }), envelope.ErrIllegalRevision},
		{"unknown remote in committed", key, reseal(func(c *Transaction) { c.RemoteVersion = RemoteVersion{Kind: RemoteUnknown} }), envelope.ErrIdentity},
		{"nil remote version uuid", key, reseal(func(c *Transaction) { s := envelope.NilUUID; c.RemoteVersion.VersionID = &s }), envelope.ErrNilUUID},
		{"uppercase alias", strings.ToUpper(key[:0]) + strings.Replace(key, "d0000000000040008000000000000008", "D0000000000040008000000000000008", 1), base, envelope.ErrPath},
		{"wrong shard", strings.Replace(key, "/d0/00/", "/00/d0/", 1), base, envelope.ErrPath},
		{"extra component", strings.Replace(key, "/d0/00/", "/d0/00/x/", 1), base, envelope.ErrPath},
		{"too large", key, append(base, make([]byte, ilmpath.MaxTransitionSize)...), envelope.ErrTooLarge},
	}, func(k string, b []byte) ([]byte, error) {
		tx, err := Decode(k, b)
		if err != nil {
			return nil, err
		}
		return tx.Encode(), nil
	})
}

func TestStateEdges(t *testing.T) {
	if !UploadStarted.CanTransitionTo(Uploaded) || UploadStarted.CanTransitionTo(CleanupPending) || Committed.CanTransitionTo(CleanupPending) {
		t.Fatal("edge table wrong")
	}
}

func FuzzDecodeTransaction(f *testing.F) {
	for k, b := range fixtures(f) {
		f.Add(k, b)
	}
	f.Fuzz(func(t *testing.T, key string, b []byte) {
		if tx, err := Decode(key, b); err == nil {
			if _, err := Decode(key, tx.Encode()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSteps: every path length between two states is a legal revision
// gap, and only those.
func TestSteps(t *testing.T) {
	for _, tc := range []struct {
		from, to State
		n        uint64
		want     bool
	}{
		{UploadStarted, UploadStarted, 0, true},
		{UploadStarted, Uploaded, 1, true},
		{UploadStarted, CleanupPending, 2, true}, // via uploaded or upload_outcome_unknown
		{UploadStarted, CleanupPending, 3, true}, // via uploaded, local_commit_started
		{UploadStarted, CleanupPending, 4, true}, // via upload_outcome_unknown, uploaded, local_commit_started
		{UploadStarted, CleanupPending, 1, false},
		{UploadStarted, CleanupPending, 5, false},
		{UploadStarted, Committed, 3, true},
		{UploadStarted, Committed, 4, true},
		{UploadStarted, Committed, 2, false},
		{Committed, CleanupPending, 1, false},
		{AbortedNoRemote, Uploaded, 1, false},
		{Uploaded, UploadStarted, 1, false},
	} {
		if got := Steps(tc.from, tc.to, tc.n); got != tc.want {
			t.Errorf("%s → %s in %d: %v, want %v", tc.from, tc.to, tc.n, got, tc.want)
		}
	}
}
