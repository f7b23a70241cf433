package recovery

import (
	"fmt"

	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/journal"
)

// DescribeArtifact is the journal's decoder for ilmctl's recovery
// artifacts (journal.Options.Artifacts): it strictly decodes a control,
// export or disposition receipt at its canonical key and says who owns it.
// A control stays with the recovery tooling until its classification is
// final (terminal or abandoned: Classification.Final, the same line
// DecomArtifact draws); an export is immutable history; a disposition is
// the operator's until Completed (docs/journal.md#recovery-artifacts). Any decode error is returned as is, so the
// journal calls the record corrupt.
func DescribeArtifact(kind ilmpath.Kind, key string, data []byte) (journal.Artifact, error) {
	switch kind {
	case ilmpath.KindRecoveryControl:
		c, err := DecodeControl(key, data)
		if err != nil {
			return journal.Artifact{}, err
		}
		a := journal.Artifact{Schema: ControlSchema, State: fmt.Sprintf("%s@%d", c.Classification, c.Revision), Owner: "ilmctl recovery",
			Reason:  fmt.Sprintf("recovery control of %s: %s after %d attempts; 'ilmctl recovery inspect' shows it", c.SourcePath, c.Classification, c.AttemptCount),
			Decoded: c}
		switch c.Classification {
		case Abandoned:
			a.Terminal, a.Reason = true, "recovery control of an abandoned record: retained history; 'ilmctl recovery prune' retires it"
		case Terminal:
			a.Terminal, a.Reason = true, "recovery control of a resolved record: retained history; 'ilmctl recovery prune' retires it once the record is gone"
		}
		return a, nil
	case ilmpath.KindRecoveryExport:
		x, err := DecodeExport(key, data)
		if err != nil {
			return journal.Artifact{}, err
		}
		return journal.Artifact{Schema: ExportSchema, State: "exported", Owner: "ilmctl recovery", Terminal: true,
			Reason: "immutable export of " + x.SourcePath + "; retained (no collector deletes exports)", Decoded: x}, nil
	case ilmpath.KindRecoveryDisposition:
		d, err := DecodeDisposition(key, data)
		if err != nil {
			return journal.Artifact{}, err
		}
		a := journal.Artifact{Schema: DispositionSchema, State: fmt.Sprintf("%s@%d", d.State, d.Revision), Owner: "operator " + d.Actor, Decoded: d,
			Reason: "abandon of " + d.SourcePath + " in progress; re-running the same 'ilmctl recovery abandon' continues it"}
		if d.State == Completed {
			a.Terminal, a.Reason = true, "completed abandon of "+d.SourcePath+": retained history"
		}
		return a, nil
	}
	return journal.Artifact{}, fmt.Errorf("%q: %s is not a recovery artifact kind", key, kind)
}
