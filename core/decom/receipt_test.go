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
