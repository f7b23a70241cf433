package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/recovery"
)

func TestRecoveryLabelsAreClosed(t *testing.T) {
	for in, want := range map[string]string{"v1": "v1", "v7": LabelUnknown, "rustfs-transition-transaction-v2": LabelUnsupported, "ilm/x.json": LabelUnknown} {
		if got := SchemaLabel(in); got != want {
			t.Errorf("SchemaLabel(%q) = %q, want %q", in, got, want)
		}
	}
	if ProtocolLabel("photos") != LabelUnknown || ClassificationLabel("weird") != LabelUnknown || ErrorCodeLabel("500 from s3.example") != LabelUnknown {
		t.Error("unknown input became a label value")
	}
	r := NewRecovery()
	r.RecordAction("bucket-name", "rm -rf", "boom")
	text, _ := r.Text()
	if strings.Contains(string(text), "bucket-name") || strings.Contains(string(text), "rm -rf") || strings.Contains(string(text), "boom") {
		t.Fatalf("free text reached a label:\n%s", text)
	}
}

// TestIncompleteScanPublishesNoCounts: an incomplete scan exports
// scan_complete 0 and no record counts, never a false zero.
func TestIncompleteScanPublishesNoCounts(t *testing.T) {
	c := &recovery.Control{Protocol: recovery.ProtoJournal, Classification: recovery.RetainedAmbiguous,
		Observed: recovery.Generation{SourceSchema: "v1", Copies: []recovery.Copy{{Pool: "pool:a"}, {Pool: "pool:b"}}}}
	for _, incomplete := range []bool{false, true} {
		r := NewRecovery()
		r.RecordScan(&recovery.ScanReport{Incomplete: incomplete, Controls: []*recovery.Control{c}}, time.Unix(3600, 0))
		text, _ := r.Text()
		hasCounts := strings.Contains(string(text), RecoveryRecords+"{")
		if hasCounts == incomplete || !strings.Contains(string(text), RecoveryScanComplete) {
			t.Fatalf("incomplete=%v:\n%s", incomplete, text)
		}
		// One generation counts once, whatever its copy count.
		if !incomplete && !strings.Contains(string(text), RecoveryRecords+`{classification="retained_ambiguous",protocol="tier_delete_journal",schema="v1"} 1`) {
			t.Fatalf("records:\n%s", text)
		}
		if !incomplete && !strings.Contains(string(text), RecoveryOldestAge+`{classification="retained_ambiguous",protocol="tier_delete_journal",schema="v1"} 3600`) {
			t.Fatalf("oldest age:\n%s", text)
		}
	}
}
