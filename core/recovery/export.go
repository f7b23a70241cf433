package recovery

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// ExportSchema is the export envelope's schema.
const ExportSchema = "rustfs-ilm-recovery-export-v1"

const protoExport = "recovery_export"

// manifestAllowance is what an export may add to its source record's own
// size bound: the copy manifest and the envelope.
const manifestAllowance = 64 << 10

// Export is one immutable rustfs-ilm-recovery-export-v1 envelope
// (docs/design/recovery.md#canonical-export): the raw source bytes once,
// with the sorted copy manifest they were observed in. Its bytes are a
// function of its ID's inputs only, so replaying an export rebuilds the
// same bytes and a replay is recognized by exact comparison.
type Export struct {
	ExportID      string
	ControlID     string
	Protocol      Protocol
	SourcePath    string
	SourceSchema  string
	ContentSHA256 string
	CopySetSHA256 string
	Copies        []Copy
	Source        []byte
}

// Key is the export's canonical key.
func (x *Export) Key() string { return ExportKey(x.Protocol, x.ExportID) }

// EncodeInner is the canonical inner object.
func (x *Export) EncodeInner() []byte {
	return envelope.NewObj().Str("export_id", x.ExportID).Str("control_id", x.ControlID).Str("protocol", string(x.Protocol)).
		Str("source_path", x.SourcePath).Str("source_schema", x.SourceSchema).Str("content_sha256", x.ContentSHA256).
		Str("copy_set_sha256", x.CopySetSHA256).Raw("copies", encodeCopies(x.Copies)).
		Str("source_base64", base64.StdEncoding.EncodeToString(x.Source)).Bytes()
}

// Encode seals the export.
func (x *Export) Encode() []byte { return envelope.Seal(ExportSchema, "export", x.EncodeInner()) }

// maxExportSize bounds an export of a record at path.
func maxExportSize(path string) int {
	src := ilmpath.MaxJournalSize
	if ns, err := ilmpath.Lookup(path); err == nil {
		src = ns.MaxSize
	}
	return base64.StdEncoding.EncodedLen(src) + manifestAllowance
}

func xerr(field string, sentinel error, format string, args ...any) error {
	return envelope.Errf(protoExport, field, sentinel, format, args...)
}

// DecodeExport strictly decodes an export stored at key.
func DecodeExport(key string, data []byte) (*Export, error) {
	proto, id, err := ParseArtifactKey(ExportPrefix, key)
	if err != nil {
		return nil, xerr("", envelope.ErrPath, "%v", err)
	}
	env, err := envelope.Open(protoExport, data, ExportSchema, "export", base64.StdEncoding.EncodedLen(32<<20)+manifestAllowance)
	if err != nil {
		return nil, err
	}
	o := env.Inner
	if err := o.Allow("export_id", "control_id", "protocol", "source_path", "source_schema", "content_sha256", "copy_set_sha256", "copies", "source_base64"); err != nil {
		return nil, err
	}
	x := &Export{}
	var p, src string
	for _, f := range []struct {
		k string
		d *string
	}{{"export_id", &x.ExportID}, {"control_id", &x.ControlID}, {"protocol", &p}, {"source_path", &x.SourcePath},
		{"source_schema", &x.SourceSchema}, {"content_sha256", &x.ContentSHA256}, {"copy_set_sha256", &x.CopySetSHA256}, {"source_base64", &src}} {
		if *f.d, err = o.String(f.k); err != nil {
			return nil, err
		}
	}
	if x.Protocol, err = ParseProtocol(p); err != nil || x.Protocol != proto {
		return nil, xerr("protocol", envelope.ErrIdentity, "protocol %q does not match its key", p)
	}
	if x.Copies, err = decodeCopies(protoExport, o, "copies"); err != nil {
		return nil, err
	}
	if x.Source, err = base64.StdEncoding.Strict().DecodeString(src); err != nil {
		return nil, xerr("source_base64", envelope.ErrMalformed, "%v", err)
	}
	if err := env.Verify(protoExport, x.EncodeInner()); err != nil {
		return nil, err
	}
	switch {
	case len(data) > maxExportSize(x.SourcePath):
		return nil, xerr("", envelope.ErrTooLarge, "%d bytes > %d", len(data), maxExportSize(x.SourcePath))
	case x.ExportID != id || ExportID(x.ControlID, x.ContentSHA256, x.CopySetSHA256) != id:
		return nil, xerr("export_id", envelope.ErrIdentity, "export_id is not the digest of control, content and copy set")
	case envelope.SHA256Hex(x.Source) != x.ContentSHA256:
		return nil, xerr("content_sha256", envelope.ErrChecksum, "source bytes do not hash to content_sha256")
	case CopySetSHA256(x.Copies) != x.CopySetSHA256:
		return nil, xerr("copy_set_sha256", envelope.ErrChecksum, "copies do not hash to copy_set_sha256")
	case len(x.Copies) == 0:
		return nil, xerr("copies", envelope.ErrIdentity, "an export binds at least one copy")
	}
	for _, c := range x.Copies {
		if c.Path != x.SourcePath || c.SHA256 != x.ContentSHA256 {
			return nil, xerr("copies", envelope.ErrIdentity, "every copy must be the exported bytes at the source path")
		}
	}
	return x, nil
}

// ExportOptions configure CreateExport.
type ExportOptions struct {
	Clock func() time.Time
	Actor string
	Nonce string // for the fresh inspection's (unused) receipt
}

// ExportResult is an installed (or replayed) export.
type ExportResult struct {
	Export   *Export
	Key      string
	Bytes    []byte // the envelope as strongly read back
	SHA256   string // of Bytes: what abandon's --export-sha256 names
	Created  bool   // false: an identical export already existed
	Control  *Control
	CtlETag  string
	Coverage Coverage
}

// CreateExport repeats inspect's live proofs, checks the observation
// receipt against them, installs the export create-only in the control
// pool and strongly reads it back. A crash before installation leaves no
// artifact; a lost create response or a replay is resolved by exact
// readback; different bytes at the ID are ErrConflict.
func CreateExport(ctx context.Context, pools []metastore.Store, controlID string, r *Receipt, opt ExportOptions) (*ExportResult, error) {
	ctl, etag, err := FindControl(ctx, pools[0], controlID)
	if err != nil {
		return nil, err
	}
	// Once the control is read, a refusal still returns it (Control,
	// CtlETag), so the audit line names the generation refused.
	partial := &ExportResult{Control: ctl, CtlETag: etag}
	res, err := createExport(ctx, pools, ctl, etag, r, opt)
	if err != nil {
		return partial, err
	}
	return res, nil
}

func createExport(ctx context.Context, pools []metastore.Store, ctl *Control, etag string, r *Receipt, opt ExportOptions) (*ExportResult, error) {
	in, err := inspectControl(ctx, pools, ctl, etag, InspectOptions(opt))
	if err != nil {
		return nil, err
	}
	if err := CheckReceipt(r, "export", opt.Actor, opt.Clock(), ctl, etag, Topology(pools), in.Copies); err != nil {
		return nil, err
	}
	if !in.Ready {
		return nil, fmt.Errorf("export of %s: %s: %w", ctl.ID, strings.Join(in.NotReady, "; "), refusalKind(in))
	}
	x := &Export{
		ExportID: ExportID(ctl.ID, in.ContentSHA256, in.CopySetSHA256), ControlID: ctl.ID, Protocol: ctl.Protocol,
		SourcePath: ctl.SourcePath, SourceSchema: ctl.Observed.SourceSchema, ContentSHA256: in.ContentSHA256,
		CopySetSHA256: in.CopySetSHA256, Copies: in.Copies, Source: in.data,
	}
	data := x.Encode()
	if len(data) > maxExportSize(x.SourcePath) {
		return nil, fmt.Errorf("export of %s would be %d bytes, over its bound %d: %w", ctl.ID, len(data), maxExportSize(x.SourcePath), ErrRefused)
	}
	if err := admit(ctx, pools[0], ExportPrefix, x.Key(), len(data)); err != nil {
		return nil, err
	}
	_, created, err := createExact(ctx, pools[0], x.Key(), data)
	if err != nil {
		return nil, err
	}
	got, err := GetExport(ctx, pools[0], x.ExportID)
	if err != nil {
		return nil, fmt.Errorf("export %s readback: %w", x.ExportID, err)
	}
	if !bytes.Equal(got.Bytes, data) {
		return nil, fmt.Errorf("export %s readback differs from what was installed: %w", x.ExportID, ErrConflict)
	}
	got.Created, got.Control, got.CtlETag = created, ctl, etag
	return got, nil
}

// refusalKind is ErrIncomplete when the only obstacle is discovery,
// ErrRefused otherwise.
func refusalKind(in *Inspection) error {
	if len(in.Unreadable) > 0 || in.ScanIncomplete {
		return ErrIncomplete
	}
	return ErrRefused
}

// GetExport strongly reads and strictly decodes an existing export by ID
// (or an unambiguous prefix of at least 8 digits).
func GetExport(ctx context.Context, s metastore.Store, id string) (*ExportResult, error) {
	id = strings.ToLower(id)
	if len(id) != 64 {
		var found []string
		err := metastore.ListAll(ctx, s, ExportPrefix, 1000, func(objs []metastore.Object) error {
			for _, o := range objs {
				if _, xid, err := ParseArtifactKey(ExportPrefix, o.Key); err == nil && strings.HasPrefix(xid, id) && len(id) >= 8 {
					found = append(found, xid)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) != 1 {
			return nil, fmt.Errorf("export ID %q matches %d exports: give the full ID: %w", id, len(found), metastore.ErrNotFound)
		}
		id = found[0]
	}
	for _, p := range Protocols {
		key := ExportKey(p, id)
		b, _, err := s.Get(ctx, key)
		if errors.Is(err, metastore.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		x, err := DecodeExport(key, b)
		if err != nil {
			return nil, fmt.Errorf("export %s is unreadable (%v): %w", id, err, ErrConflict)
		}
		return &ExportResult{Export: x, Key: key, Bytes: b, SHA256: envelope.SHA256Hex(b)}, nil
	}
	return nil, fmt.Errorf("no recovery export %s: %w", id, metastore.ErrNotFound)
}
