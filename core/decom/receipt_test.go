package decom

import (
	"errors"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
)

func sample() *Receipt {
	return &Receipt{SourcePath: "ilm/transition-transactions/records/01/23/0123456789abcdef0123456789abcdef.json", Namespace: "transition-transaction",
		IDKind: "transaction_id", ID: "01234567-89ab-cdef-0123-456789abcdef",
		Checkpoint: []byte(`{"kind":"transition_transaction","content_sha256":"` + strings.Repeat("a", 64) + `","identity_sha256":"` +
			strings.Repeat("b", 64) + `","remote_version_sha256":"` + strings.Repeat("c", 64) + `","remote_version_known":false,"revision":1,"state":"upload_started"}`)}
}

func TestReceiptRoundTrip(t *testing.T) {
	b := sample().Encode()
	r, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Encode()) != string(b) {
		t.Fatal("re-encoding differs")
	}
	bad := strings.Replace(string(b), `"namespace":"transition-transaction"`, `"namespace":"manual-transition-job"`, 1)
	if _, err := Decode([]byte(bad)); !errors.Is(err, envelope.ErrChecksum) {
		t.Fatalf("got %v", err)
	}
}

func FuzzDecodeReceipt(f *testing.F) {
	f.Add(sample().Encode())
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = Decode(b) })
}

// TestReceiptDecodeRejects: a receipt must bind the id RustFS derives for
// its canonical source path and a checkpoint of that record's kind.
func TestReceiptDecodeRejects(t *testing.T) {
	seal := func(mut func(*Receipt)) []byte {
		r := sample()
		mut(r)
		return r.Encode()
	}
	term := []byte(`{"kind":"transition_transaction","content_sha256":"` + strings.Repeat("d", 64) + `","identity_sha256":"` +
		strings.Repeat("b", 64) + `","remote_version_sha256":"` + strings.Repeat("c", 64) + `","remote_version_known":false,"revision":2,"state":"aborted_no_remote"}`)
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"terminal successor", seal(func(r *Receipt) { r.TerminalCheckpoint = term }), nil},
		{"terminal not a successor", seal(func(r *Receipt) {
			r.TerminalCheckpoint = []byte(strings.Replace(string(term), `"revision":2`, `"revision":3`, 1))
		}), envelope.ErrIllegalState},
		{"unknown schema", []byte(strings.Replace(string(sample().Encode()), `"v2"`, `"v3"`, 1)), envelope.ErrSchema},
		{"uppercase source path", seal(func(r *Receipt) { r.SourcePath = strings.ToUpper(r.SourcePath[:4]) + r.SourcePath[4:] }), envelope.ErrPath},
		{"wrong shard", seal(func(r *Receipt) { r.SourcePath = strings.Replace(r.SourcePath, "/01/23/", "/23/01/", 1) }), envelope.ErrPath},
		{"id of another transaction", seal(func(r *Receipt) { r.ID = "01234567-89ab-cdef-0123-456789abcdee" }), envelope.ErrIdentity},
		{"wrong id kind", seal(func(r *Receipt) { r.IDKind = "job_id" }), envelope.ErrIdentity},
		{"id not a uuid", seal(func(r *Receipt) { r.ID = "x" }), envelope.ErrIdentity},
		{"checkpoint of another kind", seal(func(r *Receipt) {
			r.Checkpoint = []byte(`{"kind":"manual_transition_task","content_sha256":"` + strings.Repeat("a", 64) + `"}`)
		}), envelope.ErrIdentity},
		{"namespace of another path", seal(func(r *Receipt) { r.Namespace = "manual-transition-job" }), envelope.ErrIdentity},
		{"unknown checkpoint member", seal(func(r *Receipt) {
			r.Checkpoint = []byte(strings.Replace(string(r.Checkpoint), `"state"`, `"x":1,"state"`, 1))
		}), envelope.ErrUnknownField},
	} {
		_, err := Decode(c.data)
		if !errors.Is(err, c.want) || c.want == nil && err != nil {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

func FuzzDecodeManifest(f *testing.F) {
	f.Add(NewManifest(RunToken("cmd", 1), []string{"a"}).Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeManifest(b)
		if err == nil && string(m.Encode()) != string(b) {
			// serde would accept whitespace and member order; ilmctl
			// only requires that a decoded manifest re-encodes to a valid one.
			if _, err := DecodeManifest(m.Encode()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzDecodeCheckpoint(f *testing.F) {
	f.Add([]byte(sample().Checkpoint))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCheckpoint(b)
		if err == nil {
			if _, err := DecodeCheckpoint(c.Encode()); err != nil {
				t.Fatalf("re-encoding of a decoded checkpoint does not decode: %v", err)
			}
		}
	})
}
