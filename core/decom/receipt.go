// Package decom decides whether a RustFS pool being decommissioned may be
// removed: it decodes the run's durable-namespace receipts (schema "v2",
// DecommissionDurableIlmReceipt in RustFS's
// crates/ecstore/src/core/pools.rs) and expected-receipt manifest (schema
// "v1"), derives the checkpoint of each live durable ILM record, checks
// checkpoint successors, and evaluates the completion predicate. No I/O:
// pools come in as metastore.Reader. docs/design/decommission.md is the
// account of the contract.
package decom

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// Schema is the receipt envelope schema.
const Schema = "v2"

// MaxSize is the encoded receipt bound, bytes.
const MaxSize = 16 << 10

const proto = "decommission_receipt"

// Receipt is DecommissionDurableIlmReceipt. Checkpoints are kept as their
// compact JSON (internally tagged by "kind"), which the checksum covers,
// and decoded into Ck and TerminalCk.
type Receipt struct {
	SourcePath         string
	Namespace          string
	IDKind             string // operation_id | transaction_id | job_id
	ID                 string
	Checkpoint         json.RawMessage
	TerminalCheckpoint json.RawMessage // nil when null

	Ck         *Checkpoint // decoded Checkpoint
	TerminalCk *Checkpoint // decoded TerminalCheckpoint; nil when null
}

// Terminal reports whether the receipt carries a terminal checkpoint.
func (r *Receipt) Terminal() bool { return r.TerminalCk != nil }

func rerr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(proto, field, sentinel, format, args...)
}

// Decode opens and verifies a receipt envelope on its own: size, schema
// (envelope.ErrSchema for anything but "v2"), checksum, strict
// checkpoints, registered source path and namespace, id kind and id, and
// that a terminal checkpoint is a successor of the checkpoint.
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
	if r.Checkpoint, r.Ck, err = checkpoint(o, "checkpoint"); err != nil {
		return nil, err
	}
	if !o.Has("terminal_checkpoint") {
		return nil, rerr("terminal_checkpoint", envelope.ErrMissingField, "")
	}
	if !o.IsNull("terminal_checkpoint") {
		if r.TerminalCheckpoint, r.TerminalCk, err = checkpoint(o, "terminal_checkpoint"); err != nil {
			return nil, err
		}
	}
	if err := env.Verify(proto, r.EncodeInner()); err != nil {
		return nil, err
	}
	loc, err := ilmpath.Parse(r.SourcePath)
	if err != nil {
		return nil, rerr("source_path", envelope.ErrPath, "%v", err)
	}
	if loc.Namespace.Name != r.Namespace {
		return nil, rerr("namespace", envelope.ErrIdentity, "namespace %q does not match source path namespace %q", r.Namespace, loc.Namespace.Name)
	}
	if err := checkIdentity(loc, r); err != nil {
		return nil, err
	}
	if r.TerminalCk != nil {
		if err := Successor(r.Ck, r.TerminalCk); err != nil {
			return nil, rerr("terminal_checkpoint", envelope.ErrIllegalState, "terminal checkpoint does not follow the checkpoint: %v", err)
		}
	}
	return r, nil
}

func checkpoint(o *envelope.Object, key string) (json.RawMessage, *Checkpoint, error) {
	if _, err := o.Object(key); err != nil {
		return nil, nil, err
	}
	c, err := DecodeCheckpoint(o.Raw(key))
	if err != nil {
		var de *envelope.DecodeError
		if errors.As(err, &de) {
			return nil, nil, rerr(key+"."+de.Field, de.Err, "%s", de.Detail)
		}
		return nil, nil, err
	}
	return o.Raw(key), c, nil
}

// namespaceKinds are the checkpoint kinds a record of each namespace
// produces.
var namespaceKinds = map[ilmpath.Kind][]CheckpointKind{
	ilmpath.KindTierDeleteJournal:   {CkJournal},
	ilmpath.KindTierDeleteJournalV6: {CkJournal},
	ilmpath.KindDispatchRoot:        {CkManifest, CkParent},
	ilmpath.KindDispatchChunk:       {CkManifest},
	ilmpath.KindTransition:          {CkTransition},
	ilmpath.KindProbeIntent:         {CkProbe},
	ilmpath.KindManualJob:           {CkManualJob},
	ilmpath.KindManualScope:         {CkManualScope},
	ilmpath.KindManualTask:          {CkManualTask},
	ilmpath.KindManualResult:        {CkManualResult},
}

// checkIdentity binds a receipt's id kind, id and checkpoint kinds to its
// canonical source path: the id RustFS derives for that path (see
// docs/design/decommission.md#receipts) wherever the path determines it.
func checkIdentity(loc ilmpath.Location, r *Receipt) error {
	want := map[ilmpath.Kind]string{
		ilmpath.KindTierDeleteJournal: "operation_id", ilmpath.KindTierDeleteJournalV6: "operation_id",
		ilmpath.KindDispatchRoot: "operation_id", ilmpath.KindDispatchChunk: "operation_id",
		ilmpath.KindTransition: "transaction_id", ilmpath.KindManualJob: "job_id", ilmpath.KindManualScope: "job_id",
		ilmpath.KindManualTask: "job_id", ilmpath.KindManualResult: "job_id",
	}[loc.Kind]
	if want == "" {
		return rerr("source_path", envelope.ErrIdentity, "no receipt id kind is defined for namespace %q", loc.Namespace.Name)
	}
	if r.IDKind != want {
		return rerr("id_kind", envelope.ErrIdentity, "a %s record is identified by %s, not %s", loc.Kind, want, r.IDKind)
	}
	if r.IDKind == "operation_id" && !envelope.IsSHA256Hex(r.ID) {
		return rerr("id", envelope.ErrIdentity, "operation_id must be a SHA-256 digest")
	}
	if r.IDKind != "operation_id" && !validUUIDText(r.ID) {
		return rerr("id", envelope.ErrIdentity, "%s must be a UUID", r.IDKind)
	}
	simple := strings.ReplaceAll(r.ID, "-", "")
	var ok bool
	switch loc.Kind {
	case ilmpath.KindTierDeleteJournal:
		ok = r.ID == loc.Digest
	case ilmpath.KindTierDeleteJournalV6:
		ok = r.ID == envelope.SHA256Hex([]byte(r.SourcePath))
	case ilmpath.KindDispatchChunk:
		ok = r.ID == uuidDigest(ilmpath.Hyphenate(loc.Operation))
	case ilmpath.KindTransition, ilmpath.KindManualJob, ilmpath.KindManualTask, ilmpath.KindManualResult:
		ok = simple == loc.ID
	default: // root manifest or parent, scope: the id is not in the path
		ok = true
	}
	if !ok {
		return rerr("id", envelope.ErrIdentity, "%s %s is not the id of %s", r.IDKind, r.ID, r.SourcePath)
	}
	for _, ck := range []*Checkpoint{r.Ck, r.TerminalCk} {
		if ck == nil {
			continue
		}
		if !slices.Contains(namespaceKinds[loc.Kind], ck.Kind) {
			return rerr("checkpoint.kind", envelope.ErrIdentity, "a %s checkpoint for a %s record", ck.Kind, loc.Kind)
		}
	}
	return nil
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
	return ilmpath.ReceiptKey(runToken, r.SourcePath, r.IDKind, r.ID)
}
