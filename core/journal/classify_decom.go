package journal

import (
	"fmt"
	"strings"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// Decommission record kinds, as `journal ls` shows them.
const (
	KindDecomReceipt  ilmpath.Kind = "decommission_receipt"
	KindDecomManifest ilmpath.Kind = "decommission_manifest"
)

// decodeDecom classifies a key under decommission/ on its own with the
// same functions `ilmctl decom verify` uses (decom.ClassifyReceipt,
// decom.ClassifyManifest), so both tools agree on what each record is. A
// key under decommission/ that is neither a receipt nor a manifest is
// unregistered: it blocks, like an unregistered ilm/ key.
func decodeDecom(e *entry) {
	e.rec.Protocol = ProtoDecom
	var c decom.Classified
	switch {
	case decom.IsDecomKey(e.key) && strings.HasPrefix(e.key, decom.ManifestRoot):
		e.rec.Kind = KindDecomManifest
		c = decom.ClassifyManifest(e.key, e.data[0])
	case decom.IsDecomKey(e.key):
		e.rec.Kind = KindDecomReceipt
		c = decom.ClassifyReceipt(e.key, e.data[0])
	default:
		e.err = fmt.Errorf("%q: path under %s is not a decommission receipt or expected-receipt manifest: %w", e.key, DecommissionRoot, ilmpath.ErrUnregistered)
		return
	}
	switch c.Status {
	case decom.StatusValid, decom.StatusTerminal:
		e.payload = &c
		e.rec.Decoded = &c
	case decom.StatusUnknownSchema:
		e.rec.Schema = "unknown"
		e.err = fmt.Errorf("%s: %s", c.Reason, c.Detail)
	default:
		e.err = fmt.Errorf("%s: %s", c.Reason, c.Detail)
	}
}

// decommission classifies a valid receipt or expected-receipt manifest:
// the decommission coordinator of its run is its only owner and cleaner,
// so nothing else may act on it (docs/journal.md#decommission-records).
func (c *classifier) decommission(e *entry, d *decom.Classified) {
	run := ""
	if d.Manifest != nil {
		run = d.Manifest.RunToken
	} else if d.Locator != nil {
		run = d.Locator.RunToken
	}
	e.rec.Owner = "decommission run " + shortToken(run)
	switch {
	case d.Manifest != nil:
		e.rec.Schema = decom.ManifestSchema
		e.rec.State = fmt.Sprintf("expects %d receipts", d.Manifest.ReceiptCount)
	case d.Receipt != nil:
		e.rec.Schema = decom.Schema
		e.rec.State = "checkpoint"
		if d.Status == decom.StatusTerminal {
			e.rec.State = "terminal_checkpoint"
		}
	}
	setOut(e, Active, LeaveToOwner, "the decommission coordinator of this run owns it and is its only cleanup owner")
}

func shortToken(t string) string {
	if len(t) > 12 {
		return t[:12]
	}
	return t
}
