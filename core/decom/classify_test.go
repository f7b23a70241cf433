package decom_test

import (
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/internal/decomfixture"
)

// TestClassify: a receipt or manifest classified on its own, as
// `ilmctl journal` shows the decommission namespace.
func TestClassify(t *testing.T) {
	run := decomfixture.Complete()
	src := run.Pools[decomfixture.Source]
	rk := run.ReceiptKey(decomfixture.TxUploaded)
	tk := run.ReceiptKey(decomfixture.TxTerminal)
	mk := decom.ManifestKey(run.Token)
	for _, c := range []struct {
		name   string
		got    decom.Classified
		status decom.Status
		reason decom.Reason
	}{
		{"receipt", decom.ClassifyReceipt(rk, src[rk]), decom.StatusValid, ""},
		{"terminal receipt", decom.ClassifyReceipt(tk, src[tk]), decom.StatusTerminal, ""},
		{"receipt under another key", decom.ClassifyReceipt(tk, src[rk]), decom.StatusCorrupt, decom.ReasonReceiptPathMismatch},
		{"receipt with a bad key", decom.ClassifyReceipt("decommission/ilm-receipts/x", src[rk]), decom.StatusCorrupt, decom.ReasonReceiptPathInvalid},
		{"receipt with a bad checksum", decom.ClassifyReceipt(rk, []byte(strings.Replace(string(src[rk]), `"revision":2`, `"revision":3`, 1))),
			decom.StatusCorrupt, decom.ReasonReceiptCorrupt},
		{"receipt of an unknown schema", decom.ClassifyReceipt(rk, []byte(strings.Replace(string(src[rk]), `"schema":"v2"`, `"schema":"v3"`, 1))),
			decom.StatusUnknownSchema, decom.ReasonReceiptUnknownSchema},
		{"manifest", decom.ClassifyManifest(mk, src[mk]), decom.StatusValid, ""},
		{"manifest under another run", decom.ClassifyManifest(decom.ManifestKey(decom.RunToken("x", 1)), src[mk]), decom.StatusCorrupt, decom.ReasonManifestRunToken},
		{"manifest of an unknown schema", decom.ClassifyManifest(mk, []byte(strings.Replace(string(src[mk]), `"v1"`, `"v0"`, 1))),
			decom.StatusUnknownSchema, decom.ReasonManifestUnknownSchema},
		{"corrupt manifest", decom.ClassifyManifest(mk, []byte(`{"schema":"v1"`)), decom.StatusCorrupt, decom.ReasonManifestCorrupt},
	} {
		if c.got.Status != c.status || c.got.Reason != c.reason {
			t.Errorf("%s: got %s/%s (%s), want %s/%s", c.name, c.got.Status, c.got.Reason, c.got.Detail, c.status, c.reason)
		}
	}
	if !decom.IsDecomKey(rk) || !decom.IsDecomKey(mk) || decom.IsDecomKey(decomfixture.TxUploaded) {
		t.Error("IsDecomKey")
	}
}
