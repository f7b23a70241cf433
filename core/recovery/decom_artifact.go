package recovery

import (
	"fmt"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// DecomArtifact is decommission's decoder for ilmctl's recovery artifacts
// (decom.VerifyOptions.Artifacts): it strictly decodes a control, export
// or disposition receipt at its canonical key and says how `decom verify`
// treats it (docs/design/decommission.md#recovery-artifacts). Live work
// (a control that is not abandoned or terminal, a disposition not yet
// Completed) blocks with its own reason; finished history is movable: it
// is kept, so the decommission must carry its exact bytes to a target.
// Any decode error is returned as is, so decom calls the record corrupt.
func DecomArtifact(kind ilmpath.Kind, key string, data []byte) (decom.Artifact, error) {
	switch kind {
	case ilmpath.KindRecoveryControl:
		c, err := DecodeControl(key, data)
		if err != nil {
			return decom.Artifact{}, err
		}
		if !c.Classification.Final() {
			return decom.Artifact{State: decom.ArtifactLive, Reason: decom.ReasonRecoveryControlLive,
				Detail: fmt.Sprintf("recovery control %s of %s is %s: resolve it ('ilmctl recovery inspect %s') until it is terminal or abandoned, then 'ilmctl recovery prune'",
					c.ID[:12], c.SourcePath, c.Classification, c.ID[:12])}, nil
		}
		return decom.Artifact{State: decom.ArtifactMovable,
			Detail: fmt.Sprintf("%s recovery control %s (retire it with 'ilmctl recovery prune')", c.Classification, c.ID[:12])}, nil
	case ilmpath.KindRecoveryExport:
		x, err := DecodeExport(key, data)
		if err != nil {
			return decom.Artifact{}, err
		}
		return decom.Artifact{State: decom.ArtifactMovable, Detail: "immutable recovery export " + x.ExportID[:12]}, nil
	case ilmpath.KindRecoveryDisposition:
		d, err := DecodeDisposition(key, data)
		if err != nil {
			return decom.Artifact{}, err
		}
		if d.State != Completed {
			return decom.Artifact{State: decom.ArtifactLive, Reason: decom.ReasonRecoveryDispositionInFlight,
				Detail: fmt.Sprintf("disposition %s of %s is %s: re-run the same 'ilmctl recovery abandon' to complete it", d.DispositionID[:12], d.SourcePath, d.State)}, nil
		}
		return decom.Artifact{State: decom.ArtifactMovable, Detail: "completed disposition receipt " + d.DispositionID[:12]}, nil
	}
	return decom.Artifact{}, fmt.Errorf("%s (%s): %w", key, kind, decom.ErrUnsupportedRecord)
}
