package recovery

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// ReceiptSchema names the observation receipt format.
const ReceiptSchema = "ilmctl-recovery-observation-receipt-v1"

// MaxReceiptSize bounds a receipt file, bytes: the control's own bound
// (MaxControlSize, which already bounds the copy set a receipt repeats)
// twice over, for the indentation and the receipt's own bindings. Every
// receipt read is bounded by it before decoding, as records are.
const MaxReceiptSize = 2 * MaxControlSize

// ErrReceiptTooLarge is a receipt file over MaxReceiptSize.
var ErrReceiptTooLarge = fmt.Errorf("observation receipt larger than %d bytes", MaxReceiptSize)

// ReceiptTTL is how long an observation receipt is accepted.
const ReceiptTTL = 15 * time.Minute

// ActionClass is what a receipt's observation may be used for.
type ActionClass string

// Action classes.
const (
	// ClassLegacyDisposition: a decodable journal v1/v2; export and
	// abandon-after-export may use the receipt.
	ClassLegacyDisposition ActionClass = "legacy_disposition"
	// ClassExportRetry: any other decodable record; export and retry only.
	ClassExportRetry ActionClass = "export_and_retry"
	// ClassInspectOnly: bytes whose identity cannot be proven (corrupt).
	ClassInspectOnly ActionClass = "inspect_only"
)

// Allows reports whether the class permits action.
func (a ActionClass) Allows(action string) bool {
	switch a {
	case ClassLegacyDisposition:
		return action == "export" || action == "abandon" || action == "retry"
	case ClassExportRetry:
		return action == "export" || action == "retry"
	}
	return false
}

// Receipt is an observation receipt (docs/design/recovery.md#observation-receipts):
// evidence of what inspect saw, bound to who looked, the exact control and
// copy generations, the pool topology, an action class, a 15-minute
// validity and a nonce. It authorizes nothing: every action repeats every
// live proof and refuses when any bound value changed.
type Receipt struct {
	Schema          string         `json:"schema"`
	Actor           string         `json:"actor"`
	ControlID       string         `json:"control_id"`
	ControlETag     string         `json:"control_etag"`
	ControlRevision uint64         `json:"control_revision"`
	Classification  Classification `json:"classification"`
	Protocol        Protocol       `json:"protocol"`
	SourcePath      string         `json:"source_path"`
	SourceSchema    string         `json:"source_schema"`
	ContentSHA256   string         `json:"content_sha256"`
	CopySetSHA256   string         `json:"copy_set_sha256"`
	Copies          []Copy         `json:"copies"`
	Topology        string         `json:"topology"`
	ActionClass     ActionClass    `json:"action_class"`
	IssuedAt        time.Time      `json:"issued_at"`
	ExpiresAt       time.Time      `json:"expires_at"`
	Nonce           string         `json:"nonce"`
	ReceiptSHA256   string         `json:"receipt_sha256"`
}

// Topology is the digest of the sorted pool identities a command was
// given: a receipt taken over other pools does not apply.
func Topology(pools []metastore.Store) string {
	ids := make([]string, len(pools))
	for i, p := range pools {
		ids[i] = PoolID(p.Name())
	}
	sort.Strings(ids)
	return lengthDelimited(append([]string{"topology"}, ids...)...)
}

func (r *Receipt) digest() string {
	parts := []string{r.Schema, r.Actor, r.ControlID, r.ControlETag, strconv.FormatUint(r.ControlRevision, 10), string(r.Classification),
		string(r.Protocol), r.SourcePath, r.SourceSchema, r.ContentSHA256, r.CopySetSHA256, r.Topology, string(r.ActionClass),
		strconv.FormatInt(r.IssuedAt.UnixNano(), 10), strconv.FormatInt(r.ExpiresAt.UnixNano(), 10), r.Nonce}
	for _, c := range r.Copies {
		parts = append(parts, c.Pool, c.Path, c.ETag, strconv.FormatInt(c.Size, 10), c.SHA256)
	}
	return lengthDelimited(parts...)
}

// Seal sets ReceiptSHA256.
func (r *Receipt) Seal() { r.ReceiptSHA256 = r.digest() }

// Encode is the receipt file's bytes.
func (r *Receipt) Encode() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}

// DecodeReceipt reads a receipt file strictly: unknown fields, a wrong
// schema or a digest that does not cover the content are errors.
func DecodeReceipt(b []byte) (*Receipt, error) {
	if len(b) > MaxReceiptSize {
		return nil, ErrReceiptTooLarge
	}
	if _, err := envelope.ParseObject("observation_receipt", b); err != nil {
		return nil, err
	}
	var r Receipt
	dec := json.NewDecoder(bytesReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("receipt: %w", err)
	}
	if r.Schema != ReceiptSchema {
		return nil, fmt.Errorf("receipt schema %q, want %s", r.Schema, ReceiptSchema)
	}
	if r.ReceiptSHA256 != r.digest() {
		return nil, fmt.Errorf("receipt digest does not match its content: the file was edited or damaged")
	}
	return &r, nil
}

// CheckReceipt repeats the receipt's bindings against the live state for
// action: the same actor, unexpired at now, the action class allowing
// action, the same control generation and ETag, the same pool topology,
// and (unless copies is nil) exactly the same copy set. Any mismatch is
// ErrRefused naming the binding that failed.
func CheckReceipt(r *Receipt, action, actor string, now time.Time, ctl *Control, ctlETag, topology string, copies []Copy) error {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("observation receipt: "+format+": %w", append(args, ErrRefused)...)
	}
	switch {
	case r.Actor != actor:
		return refuse("issued to %s, not to %s; run 'recovery inspect' as yourself", r.Actor, actor)
	case now.Before(r.IssuedAt.Add(-5 * time.Minute)):
		return refuse("issued in the future (%s)", r.IssuedAt.Format(time.RFC3339))
	case now.After(r.ExpiresAt): // valid through its expiry instant, as leases are
		return refuse("expired at %s; run 'recovery inspect' again", r.ExpiresAt.Format(time.RFC3339))
	case !r.ActionClass.Allows(action):
		return refuse("action class %s does not allow %s", r.ActionClass, action)
	case r.ControlID != ctl.ID:
		return refuse("is for control %s, not %s", r.ControlID, ctl.ID)
	case r.ControlETag != ctlETag || r.ControlRevision != ctl.Revision:
		return refuse("the control changed since inspect (revision %d, now %d)", r.ControlRevision, ctl.Revision)
	case r.Topology != topology:
		return refuse("taken over another set of --meta pools")
	}
	if copies != nil && CopySetSHA256(copies) != r.CopySetSHA256 {
		return refuse("the record's copies changed since inspect (an ETag, digest or pool differs)")
	}
	return nil
}
