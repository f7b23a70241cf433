// Package decom decodes RustFS decommission durable-namespace receipts
// (schema "v2"), following DecommissionDurableIlmReceipt in
// crates/ecstore/src/core/pools.rs (docs/design/ilm-records.md#decommission-receipt). Codec only: verification of receipts
// against target records is later work.
package decom

import (
	"encoding/json"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// Schema is the receipt envelope schema.
const Schema = "v2"

// MaxSize is the encoded receipt bound, bytes.
const MaxSize = 16 << 10

const proto = "decommission_receipt"

// checkpointKinds are the DurableIlmRecordCheckpoint tags.
var checkpointKinds = map[string]bool{
	"tier_delete_journal": true, "tier_delete_dispatch_manifest": true, "tier_delete_dispatch_parent": true,
	"transition_transaction": true, "tier_probe_intent": true, "manual_transition_job": true,
	"manual_transition_scope": true, "manual_transition_task": true, "manual_transition_worker_result": true,
	"recovery_control": true, "recovery_export": true, "recovery_disposition": true,
}

// Receipt is DecommissionDurableIlmReceipt. Checkpoints are kept as their
// compact JSON (internally tagged by "kind"); ilmctl validates the tag and
// content_sha256 but does not yet interpret per-kind fields.
type Receipt struct {
	SourcePath         string
	Namespace          string
	IDKind             string // operation_id | transaction_id | job_id
	ID                 string
	Checkpoint         json.RawMessage
	TerminalCheckpoint json.RawMessage // nil when null
}

func rerr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(proto, field, sentinel, format, args...)
}

// Decode opens and verifies a receipt envelope.
func Decode(data []byte) (*Receipt, error) {
	env, err := envelope.Open(proto, data, Schema, "receipt", MaxSize)
	if err != nil {
		return nil, err
	}
	o := env.Inner
	if err := o.Allow("source_path", "namespace", "id_kind", "id", "checkpoint", "terminal_checkpoint"); err != nil {
		return nil, err
	}
	r := &Receipt{}
	if r.SourcePath, err = o.String("source_path"); err != nil {
		return nil, err
	}
	if r.Namespace, err = o.String("namespace"); err != nil {
		return nil, err
	}
	if r.IDKind, err = o.String("id_kind"); err != nil {
		return nil, err
	}
	if r.ID, err = o.String("id"); err != nil {
		return nil, err
	}
	if r.Checkpoint, err = checkpoint(o, "checkpoint"); err != nil {
		return nil, err
	}
	if !o.Has("terminal_checkpoint") {
		return nil, rerr("terminal_checkpoint", envelope.ErrMissingField, "")
	}
	if !o.IsNull("terminal_checkpoint") {
		if r.TerminalCheckpoint, err = checkpoint(o, "terminal_checkpoint"); err != nil {
			return nil, err
		}
	}
	if err := env.Verify(proto, r.EncodeInner()); err != nil {
		return nil, err
	}
	ns, err := ilmpath.Lookup(r.SourcePath)
	if err != nil {
		return nil, rerr("source_path", envelope.ErrPath, "%v", err)
	}
	if ns.Name != r.Namespace {
		return nil, rerr("namespace", envelope.ErrIdentity, "namespace %q does not match source path namespace %q", r.Namespace, ns.Name)
	}
	switch r.IDKind {
	case "operation_id":
		if !envelope.IsSHA256Hex(r.ID) {
			return nil, rerr("id", envelope.ErrIdentity, "operation_id must be a SHA-256 digest")
		}
	case "transaction_id", "job_id":
		if !envelope.IsCanonicalUUID(r.ID) && !(len(r.ID) == 32 && envelope.IsCanonicalUUID(ilmpath.Hyphenate(r.ID))) {
			return nil, rerr("id", envelope.ErrIdentity, "%s must be a UUID", r.IDKind)
		}
	default:
		return nil, rerr("id_kind", envelope.ErrIdentity, "unknown id kind %q", r.IDKind)
	}
	return r, nil
}

func checkpoint(o *envelope.Object, key string) (json.RawMessage, error) {
	c, err := o.Object(key)
	if err != nil {
		return nil, err
	}
	kind, err := c.String("kind")
	if err != nil {
		return nil, err
	}
	if !checkpointKinds[kind] {
		return nil, rerr(key+".kind", envelope.ErrSchema, "unknown checkpoint kind %q", kind)
	}
	sum, err := c.String("content_sha256")
	if err != nil {
		return nil, err
	}
	if !envelope.IsSHA256Hex(sum) {
		return nil, rerr(key+".content_sha256", envelope.ErrChecksum, "want a SHA-256 digest")
	}
	return o.Raw(key), nil
}

// EncodeInner is serde_json::to_vec(&DecommissionDurableIlmReceipt).
func (r *Receipt) EncodeInner() []byte {
	o := envelope.NewObj().Str("source_path", r.SourcePath).Str("namespace", r.Namespace).
		Str("id_kind", r.IDKind).Str("id", r.ID).Raw("checkpoint", r.Checkpoint)
	if r.TerminalCheckpoint != nil {
		o.Raw("terminal_checkpoint", r.TerminalCheckpoint)
	} else {
		o.Null("terminal_checkpoint")
	}
	return o.Bytes()
}

// Encode seals the receipt.
func (r *Receipt) Encode() []byte { return envelope.Seal(Schema, "receipt", r.EncodeInner()) }

// Path is the receipt key for run token and record.
func (r *Receipt) Path(runToken string) string {
	return ilmpath.ReceiptKey(runToken, strings.TrimSuffix(r.SourcePath, ""), r.IDKind, r.ID)
}
