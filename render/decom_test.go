package render

import (
	"testing"

	"github.com/ilmctl/ilmctl/core/decom"
)

// The blocking reasons read most frequent first, ties by name, a count
// only where a reason repeats; none is "".
func TestDecomBlocking(t *testing.T) {
	for _, c := range []struct {
		b    map[decom.Reason]int
		want string
	}{
		{nil, ""},
		{map[decom.Reason]int{"receipt_missing": 1}, "receipt_missing"},
		{map[decom.Reason]int{"b_reason": 1, "receipt_missing": 2, "a_reason": 1}, "receipt_missing×2, a_reason, b_reason"},
	} {
		if got := DecomBlocking(c.b); got != c.want {
			t.Errorf("DecomBlocking(%v) = %q, want %q", c.b, got, c.want)
		}
	}
}

// A manifest lists its expected receipt count; a receipt key that does
// not parse lists no record.
func TestNewDecomEntry(t *testing.T) {
	n := uint64(7)
	m := NewDecomEntry("pool-a", decom.Classified{Key: "decommission/ilm-manifests/t.json", Kind: "manifest", Status: decom.StatusValid,
		Manifest: &decom.Manifest{ReceiptCount: n}})
	if m.Kind != "manifest" || m.Count == nil || *m.Count != n || m.Pool != "pool-a" || m.SourcePath != "" {
		t.Errorf("manifest entry = %+v", m)
	}
	r := NewDecomEntry("pool-b", decom.Classified{Key: "decommission/ilm-receipts/x", Kind: "receipt", Status: decom.StatusCorrupt,
		Reason: decom.ReasonReceiptPathInvalid, Detail: "bad key"})
	if r.Kind != "receipt" || r.Count != nil || r.SourcePath != "" || r.Checkpoint != "" || r.Reason != decom.ReasonReceiptPathInvalid {
		t.Errorf("receipt entry = %+v", r)
	}
}
