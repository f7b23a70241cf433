package decom

import (
	"bytes"

	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// ArtifactState is how a decommission treats one of ilmctl's own recovery
// artifacts (docs/design/decommission.md#recovery-artifacts). Its string
// is the JSON spelling.
type ArtifactState string

// Artifact states.
const (
	// ArtifactMovable: terminal, immutable history (a terminal or
	// abandoned control, an export, a Completed disposition). It has no
	// legal successor, so its terminal checkpoint is its exact bytes: it
	// is covered when a target pool holds a byte-identical copy at the
	// same key, and blocks until one does.
	ArtifactMovable ArtifactState = "movable"
	// ArtifactLive: work in flight (a control that is not terminal, a
	// disposition not yet Completed). Its generation binds the copies of
	// the pool being removed, so it blocks with its own reason until it
	// is resolved.
	ArtifactLive ArtifactState = "live"
)

// Artifact is a recovery artifact as a decommission sees it.
type Artifact struct {
	State ArtifactState
	// Reason is the blocking reason of a live artifact: one of
	// ReasonRecoveryControlLive, ReasonRecoveryDispositionInFlight.
	Reason Reason
	// Detail says, on one line, what the artifact is and what to do.
	Detail string
}

// ArtifactClassifier strictly decodes the recovery artifact of kind stored
// at key and says how a decommission treats it. core/recovery provides it
// (recovery.DecomArtifact): that package builds on this one, so the
// decoder is passed in rather than imported. A decode error is returned as
// is and blocks as record_corrupt or record_unknown_schema.
type ArtifactClassifier func(kind ilmpath.Kind, key string, data []byte) (Artifact, error)

// VerifyOptions configure VerifyWith.
type VerifyOptions struct {
	// Artifacts decodes ilmctl's recovery artifacts. Without it they are
	// record_unsupported: nothing that cannot be decoded is ever covered.
	Artifacts ArtifactClassifier
}

// IsRecoveryKind reports whether k is one of ilmctl's recovery artifact
// namespaces (ilm/recovery-controls/, -exports/, -dispositions/).
func IsRecoveryKind(k ilmpath.Kind) bool {
	return k == ilmpath.KindRecoveryControl || k == ilmpath.KindRecoveryExport || k == ilmpath.KindRecoveryDisposition
}

// checkArtifact decides one recovery artifact on the source pool: a live
// one blocks with its own reason; a movable one is covered only by a
// byte-identical copy on the target pools. Anything the classifier does
// not decode, or a state or reason it should not give, blocks.
func (v *verifier) checkArtifact(row Row, loc ilmpath.Location, data []byte) {
	row.SourcePath = row.Path
	a, err := v.opt.Artifacts(loc.Kind, row.Path, data)
	switch {
	case err != nil:
		row.Reason, row.Detail = recordReason(err), err.Error()
	case len(data) > loc.Namespace.MaxSize:
		row.Reason, row.Detail = ReasonRecordCorrupt, "larger than its namespace's size bound"
	case a.State == ArtifactLive && (a.Reason == ReasonRecoveryControlLive || a.Reason == ReasonRecoveryDispositionInFlight):
		row.Reason, row.Detail = a.Reason, a.Detail
	case a.State == ArtifactMovable:
		c := v.copyOf(row.Path)
		switch {
		case c.failed:
			row.Reason, row.Detail = ReasonRecoveryArtifactNotMoved, "a target pool could not be read (see read errors)"
		case c.reason != "":
			row.Reason, row.Detail = c.reason, c.detail
		case c.data == nil:
			row.Reason, row.Detail = ReasonRecoveryArtifactNotMoved, a.Detail+"; no target pool holds a copy"
		case !bytes.Equal(c.data, data):
			row.Reason, row.Detail = ReasonRecoveryArtifactDiffers, "the copy in "+c.pool+" is other bytes; a terminal artifact has no successor"
		default:
			v.rep.Predicate.CoveredRecords++
			return
		}
	default:
		row.Reason, row.Detail = ReasonRecordUnsupported, "recovery artifact classified "+string(a.State)+"/"+string(a.Reason)
	}
	v.add(row)
}
