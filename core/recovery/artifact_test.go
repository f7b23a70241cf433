package recovery

import (
	"context"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/journal"
)

// TestJournalClassifiesArtifacts: with DescribeArtifact, the journal shows
// ilmctl's own control, export and disposition as owned records, from
// active through retained history, and a damaged artifact as corrupt;
// without it they are corrupt (never trusted undecoded).
func TestJournalClassifiesArtifacts(t *testing.T) {
	f := newFixture(t, v1Path)
	f.doExport()
	if _, err := f.abandon(true); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	scan := func(artifacts journal.ArtifactDescriber) map[ilmpath.Kind][]string {
		rep, err := journal.Scan(ctx, f.pools(), journal.Options{Clock: f.clock, Artifacts: artifacts})
		if err != nil {
			t.Fatal(err)
		}
		got := map[ilmpath.Kind][]string{}
		for _, r := range rep.Records {
			got[r.Kind] = append(got[r.Kind], string(r.Classification)+"/"+string(r.Decision))
		}
		return got
	}
	got := scan(DescribeArtifact)
	for kind, want := range map[ilmpath.Kind]string{
		ilmpath.KindRecoveryControl:     "terminal/retain_history", // abandoned
		ilmpath.KindRecoveryExport:      "terminal/retain_history",
		ilmpath.KindRecoveryDisposition: "terminal/retain_history", // completed
	} {
		if len(got[kind]) != 1 || got[kind][0] != want {
			t.Errorf("%s: got %v, want [%s]", kind, got[kind], want)
		}
	}
	for kind, cls := range scan(nil) {
		switch kind {
		case ilmpath.KindRecoveryControl, ilmpath.KindRecoveryExport, ilmpath.KindRecoveryDisposition:
			if len(cls) != 1 || cls[0] != "corrupt/retain" {
				t.Errorf("%s without a describer: %v, want corrupt", kind, cls)
			}
		}
	}
	// A control that is not yet abandoned is the recovery tooling's.
	g := newFixture(t, v1Path)
	rep, err := journal.Scan(ctx, g.pools(), journal.Options{Clock: g.clock, Artifacts: DescribeArtifact})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Records {
		if r.Kind == ilmpath.KindRecoveryControl && (r.Classification != journal.Active || r.Decision != journal.LeaveToOwner) {
			t.Errorf("live control: %s/%s (%s)", r.Classification, r.Decision, r.Reason)
		}
	}
}

// TestJournalControlFollowsFinal: 'journal ls' calls a control finished
// history (terminal / retain_history) exactly when its classification is
// final, the line decommission draws too (DecomArtifact): a terminal
// control, whose record resolved, is no longer shown as live work.
func TestJournalControlFollowsFinal(t *testing.T) {
	ctx := context.Background()
	for _, class := range Classifications {
		t.Run(string(class), func(t *testing.T) {
			var f *fixture
			if class == Abandoned {
				f = newFixture(t, v1Path)
				f.doExport()
				if _, err := f.abandon(true); err != nil {
					t.Fatal(err)
				}
			} else {
				f = newFixture(t, v1Path)
				if f.control().Classification != class {
					f.setClass(class)
				}
			}
			rep, err := journal.Scan(ctx, f.pools(), journal.Options{Clock: f.clock, Artifacts: DescribeArtifact})
			if err != nil {
				t.Fatal(err)
			}
			want := "active/leave_to_owner"
			if class.Final() {
				want = "terminal/retain_history"
			}
			n := 0
			for _, r := range rep.Records {
				if r.Kind != ilmpath.KindRecoveryControl {
					continue
				}
				n++
				if got := string(r.Classification) + "/" + string(r.Decision); got != want {
					t.Errorf("%s control: %s (%s), want %s", class, got, r.Reason, want)
				}
				if !strings.HasPrefix(r.State, string(class)+"@") {
					t.Errorf("state %q, want %s@revision", r.State, class)
				}
			}
			if n != 1 {
				t.Fatalf("%d controls listed, want 1", n)
			}
		})
	}
}
