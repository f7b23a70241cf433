package decom

import (
	"errors"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// Status is what a receipt or manifest is on its own, before any
// comparison with other records. Its string is the JSON spelling.
type Status string

// Standalone statuses.
const (
	StatusValid         Status = "valid"          // decodes; a receipt without a terminal checkpoint
	StatusTerminal      Status = "terminal"       // a valid receipt with a terminal checkpoint
	StatusCorrupt       Status = "corrupt"        // malformed, bad checksum, bad path, illegal checkpoint
	StatusUnknownSchema Status = "unknown_schema" // a schema or checkpoint kind this reader does not know
)

// IsDecomKey reports whether key lies in the decommission namespace
// (receipts or expected-receipt manifests).
func IsDecomKey(key string) bool {
	return strings.HasPrefix(key, ReceiptRoot) || strings.HasPrefix(key, ManifestRoot)
}

// Classified is one decommission-namespace object classified on its own.
type Classified struct {
	Key      string
	Kind     string // "receipt" or "manifest"
	Status   Status
	Reason   Reason // "" when valid or terminal
	Detail   string
	Locator  *Locator  // receipts with a parseable key
	Receipt  *Receipt  // decoded receipt
	Manifest *Manifest // decoded manifest
}

// ClassifyReceipt decodes the receipt stored at key and checks that its
// key is the canonical key of its own contents. It does not look at the
// manifest, other pools or the covered record: Verify does.
func ClassifyReceipt(key string, data []byte) Classified {
	c := Classified{Key: key, Kind: "receipt"}
	loc, err := ParseReceiptKey(key)
	if err != nil {
		c.Status, c.Reason, c.Detail = StatusCorrupt, ReasonReceiptPathInvalid, err.Error()
		return c
	}
	c.Locator = &loc
	r, err := Decode(data)
	if err != nil {
		c.Status, c.Reason, c.Detail = decodeStatus(err, ReasonReceiptCorrupt, ReasonReceiptUnknownSchema)
		return c
	}
	c.Receipt = r
	if r.Path(loc.RunToken) != key {
		c.Status, c.Reason, c.Detail = StatusCorrupt, ReasonReceiptPathMismatch, "receipt contents belong at "+r.Path(loc.RunToken)
		return c
	}
	c.Status = StatusValid
	if r.Terminal() {
		c.Status = StatusTerminal
	}
	return c
}

// ClassifyManifest decodes the expected-receipt manifest stored at key and
// checks that the key names the manifest's own run token.
func ClassifyManifest(key string, data []byte) Classified {
	c := Classified{Key: key, Kind: "manifest"}
	m, err := DecodeManifest(data)
	if err != nil {
		c.Status, c.Reason, c.Detail = decodeStatus(err, ReasonManifestCorrupt, ReasonManifestUnknownSchema)
		return c
	}
	c.Manifest = m
	if ManifestKey(m.RunToken) != key {
		c.Status, c.Reason, c.Detail = StatusCorrupt, ReasonManifestRunToken, "manifest contents belong at "+ManifestKey(m.RunToken)
		return c
	}
	c.Status = StatusValid
	return c
}

func decodeStatus(err error, corrupt, unknown Reason) (Status, Reason, string) {
	if errors.Is(err, envelope.ErrSchema) || errors.Is(err, envelope.ErrUnsupportedVersion) {
		return StatusUnknownSchema, unknown, err.Error()
	}
	if errors.Is(err, ilmpath.ErrUnregistered) {
		return StatusCorrupt, ReasonUnregisteredPath, err.Error()
	}
	return StatusCorrupt, corrupt, err.Error()
}
