package journal

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/internal/decomfixture"
)

// TestDecomRecordsLeaveToOwner: every decommission receipt (with or
// without a terminal checkpoint) and expected-receipt manifest that
// decodes is active / leave_to_owner, and docs/journal.md says
// so in its decision table.
func TestDecomRecordsLeaveToOwner(t *testing.T) {
	run := decomfixture.Complete()
	a := &mem{name: "source", objs: run.Pools[decomfixture.Source]}
	b := &mem{name: "target", objs: run.Pools[decomfixture.TargetA]}
	rep, err := Scan(context.Background(), []metastore.Store{a, b}, Options{Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, r := range rep.Records {
		if r.Protocol != ProtoDecom {
			continue
		}
		states[r.State]++
		if r.Classification != Active || r.Decision != LeaveToOwner {
			t.Errorf("%s (%s): %s / %s, want active / leave_to_owner", r.Path, r.State, r.Classification, r.Decision)
		}
	}
	if states["terminal_checkpoint"] == 0 || states["checkpoint"] == 0 || len(states) < 3 {
		t.Fatalf("fixture lacks a receipt kind: %v", states)
	}
	for _, doc := range []string{"../../docs/journal.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		var row string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "| `leave_to_owner` |") {
				row = l
			}
		}
		if !strings.Contains(row, "decommission receipt") || !strings.Contains(row, "expected-receipt manifest") {
			t.Errorf("%s: the leave_to_owner row does not name decommission receipts and manifests: %q", doc, row)
		}
	}
}
