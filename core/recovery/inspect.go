package recovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/tierdelete"
)

// InspectOptions configure Inspect.
type InspectOptions struct {
	Clock func() time.Time // required
	Actor string           // required: who the receipt is issued to
	Nonce string           // required: 32 random hex digits for the receipt
}

// Inspection is what inspect reports: redacted (digests, ETags, version,
// classification), never the record's bucket, object, tier or version
// fields.
type Inspection struct {
	Control               *Control               `json:"-"`
	ControlETag           string                 `json:"control_etag"`
	SourceSchema          string                 `json:"source_schema"`
	JournalVersion        int                    `json:"journal_version,omitempty"`
	SourceState           string                 `json:"source_state"`
	JournalClassification journal.Classification `json:"record_classification"`
	QuarantineReason      string                 `json:"quarantine_reason"`
	Present               bool                   `json:"present"`
	Copies                []Copy                 `json:"copies"`
	ContentSHA256         string                 `json:"content_sha256"`
	CopySetSHA256         string                 `json:"copy_set_sha256"`
	CopiesAgree           bool                   `json:"copies_agree"`
	Unreadable            []string               `json:"unreadable_pools"`
	ScanIncomplete        bool                   `json:"scan_incomplete"`
	GenerationMatches     bool                   `json:"generation_matches_control"`
	Decommission          Coverage               `json:"decommission"`
	ActionClass           ActionClass            `json:"action_class"`
	Ready                 bool                   `json:"ready_for_mutation"`
	// AbandonRefusal is what 'recovery abandon' would refuse with now
	// (AbandonRefusal, the same decision), "" when it would not; only for
	// the legacy_disposition action class.
	AbandonRefusal string   `json:"abandon_refused,omitempty"`
	NotReady       []string `json:"not_ready,omitempty"`
	Receipt        *Receipt `json:"-"`
	// data is the agreed source bytes (export uses them; never printed).
	data []byte
}

// Inspect strictly decodes the control's source record from its canonical
// path, strongly reads every copy in every pool and reports what an
// operator needs to decide; it writes nothing. When the record is present
// it issues a 15-minute observation receipt.
func Inspect(ctx context.Context, pools []metastore.Store, controlID string, opt InspectOptions) (*Inspection, error) {
	if opt.Clock == nil || opt.Actor == "" || len(opt.Nonce) < 32 {
		return nil, errors.New("recovery.Inspect: clock, actor and a 32-digit nonce are required")
	}
	ctl, etag, err := FindControl(ctx, pools[0], controlID)
	if err != nil {
		return nil, err
	}
	return inspectControl(ctx, pools, ctl, etag, opt)
}

func inspectControl(ctx context.Context, pools []metastore.Store, ctl *Control, etag string, opt InspectOptions) (*Inspection, error) {
	now := opt.Clock()
	in := &Inspection{Control: ctl, ControlETag: etag, Copies: []Copy{}, Unreadable: []string{}}
	notReady := func(format string, args ...any) { in.NotReady = append(in.NotReady, fmt.Sprintf(format, args...)) }

	rec, rep, err := journal.Show(ctx, pools, ctl.SourcePath, journal.Options{Clock: opt.Clock, Artifacts: DescribeArtifact})
	switch {
	case errors.Is(err, metastore.ErrNotFound):
		in.ScanIncomplete = rep != nil && rep.Incomplete
	case err != nil:
		return nil, err
	default:
		in.ScanIncomplete = rep.Incomplete
		in.SourceSchema, in.SourceState = rec.Schema, rec.State
		in.JournalClassification, in.QuarantineReason = rec.Classification, rec.Reason
	}
	in.ActionClass = ClassInspectOnly
	switch {
	case rec == nil && ctl.Protocol == ProtoJournal && (ctl.Observed.SourceSchema == "v1" || ctl.Observed.SourceSchema == "v2"):
		// Gone from every pool, e.g. mid-abandon: a resumed abandon binds
		// its disposition's manifest, not this (empty) observation.
		in.ActionClass = ClassLegacyDisposition
	case rec == nil:
		in.ActionClass = ClassExportRetry
	}
	if rec != nil && rec.Classification != journal.Corrupt {
		in.ActionClass = ClassExportRetry
		if j, ok := rec.Decoded.(*tierdelete.Journal); ok {
			in.JournalVersion = int(j.Version)
			if (j.Version == 1 || j.Version == 2) && j.CheckPath(ctl.SourcePath) == nil {
				in.ActionClass = ClassLegacyDisposition
			}
		}
	}

	obs := Observe(ctx, pools, ctl.SourcePath)
	in.Copies, in.Unreadable = append(in.Copies, obs.Copies...), append(in.Unreadable, obs.Unreadable...)
	in.Present = len(obs.Copies) > 0
	in.CopiesAgree = obs.Agree()
	if in.Present {
		in.data = obs.Data[0]
		in.ContentSHA256 = envelope.SHA256Hex(obs.Data[0])
		in.CopySetSHA256 = CopySetSHA256(obs.Copies)
		g := NewGeneration(ctl.Observed.SourceSchema, ctl.Observed.SourceState, in.ContentSHA256, obs.Copies)
		in.GenerationMatches = g.Equal(ctl.Observed)
	}
	in.Decommission = DecomCoverage(ctx, pools, ctl.SourcePath, ctl.Key())

	switch {
	case !in.Present:
		notReady("the source record is in no pool")
	case !obs.Complete():
		notReady("copy discovery is incomplete: %d pool(s) unreadable", len(obs.Unreadable))
	case !in.CopiesAgree:
		notReady("pools hold divergent copies")
	}
	if in.ScanIncomplete {
		notReady("the classifying scan could not read every pool")
	}
	if in.Present && !in.GenerationMatches {
		notReady("the record changed since the control observed it; run 'recovery scan'")
	}
	if ctl.Classification.Final() {
		notReady("the control is %s", ctl.Classification)
	}
	if in.Decommission.Covered() {
		notReady("a decommission receipt covers the record or its control")
	}
	if in.ActionClass == ClassInspectOnly {
		notReady("the record's identity cannot be proven (corrupt bytes): inspect only")
	}
	if in.ActionClass == ClassLegacyDisposition {
		cur, err := inFlightDisposition(ctx, pools[0], ctl)
		switch {
		case err != nil:
			notReady("in-flight dispositions cannot be read: %v", err)
		default:
			if rerr := AbandonRefusal(ctl, cur, now); rerr != nil {
				in.AbandonRefusal = rerr.Error()
			}
			var held *LeaseHeldError
			if rerr := AbandonRefusal(ctl, cur, now); errors.As(rerr, &held) {
				notReady("%v", rerr)
			}
		}
	} else if err := controlHeld(ctl, now); err != nil {
		notReady("%v", err)
	}
	in.Ready = len(in.NotReady) == 0
	if obs.Complete() {
		r := &Receipt{
			Schema: ReceiptSchema, Actor: opt.Actor, ControlID: ctl.ID, ControlETag: etag, ControlRevision: ctl.Revision,
			Classification: ctl.Classification, Protocol: ctl.Protocol, SourcePath: ctl.SourcePath, SourceSchema: in.SourceSchema,
			ContentSHA256: in.ContentSHA256, CopySetSHA256: in.CopySetSHA256, Copies: obs.Copies, Topology: Topology(pools),
			ActionClass: in.ActionClass, IssuedAt: now.UTC(), ExpiresAt: now.Add(ReceiptTTL).UTC(), Nonce: opt.Nonce,
		}
		r.Seal()
		in.Receipt = r
	}
	return in, nil
}
