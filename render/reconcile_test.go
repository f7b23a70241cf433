package render

import (
	"bytes"
	"testing"

	"github.com/ilmctl/ilmctl/core/reconcile"
	goldenfile "github.com/ilmctl/ilmctl/internal/golden"
)

// The plan's JSON field names and outcome spellings are what scripts and
// 'reconcile post' read; the golden files pin them.
func TestReconcileGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dest := reconcile.Destination{Type: reconcile.TierS3, Endpoint: "https://s3.example.com", Bucket: "cold-tier", Prefix: "rustfs/", Region: "us-east-1"}
	src := &reconcile.Source{Bucket: "photos", Object: "2024/a.jpg", VersionID: "3f1c", ModTimeNs: 1767225600000000000, Size: 42, ETag: "etag-3f1c",
		TransitionStatus: "complete", Tier: "WARM", RemoteObject: "ab/cd/remote-1", RemoteKey: "rustfs/ab/cd/remote-1", Destination: dest, DestinationID: dest.ID()}
	sets := []reconcile.SetCopy{{Set: "./pool0", Generation: 1, State: reconcile.StateMissing, Keys: []reconcile.RawKey{
		{Key: "x-rustfs-internal-transitioned-version-state"}, {Key: "x-minio-internal-transitioned-version-state"},
		{Key: "x-rustfs-internal-transitioned-versionID"}, {Key: "x-minio-internal-transitioned-versionID", Present: true},
		{Key: "x-rustfs-internal-transition-tier-destination-id"}, {Key: "x-minio-internal-transition-tier-destination-id"},
	}}}
	target := &reconcile.Target{State: reconcile.StateExact, RemoteVersionID: "3HL4kqtJlcpXroDTDmJ", DestinationID: dest.ID()}
	rep := &reconcile.Report{
		Selector: reconcile.Selector{Bucket: "photos", Object: "2024/a.jpg", VersionID: "3f1c"},
		Outcome:  reconcile.ReadyToMigrate, Ready: true, Source: src, Sets: sets, Target: target,
		Probe: &reconcile.ProbeReport{Tier: "WARM", RemoteKey: src.RemoteKey, Observation: reconcile.Observation{
			Versioning: "Enabled", VersioningAfter: "Enabled", Versions: []reconcile.RemoteVersion{{VersionID: "3HL4kqtJlcpXroDTDmJ"}}}},
	}
	rep.Digest = reconcile.Digest(rep.Source, rep.Sets, rep.Target)
	for _, c := range []struct {
		name  string
		f     Format
		width int
	}{{"reconcile-get.txt", FormatTable, 80}, {"reconcile-get-120.txt", FormatTable, 120}, {"reconcile-get.json", FormatJSON, 80}} {
		var b bytes.Buffer
		if err := Reconcile(&b, c.f, rep, c.width); err != nil {
			t.Fatal(err)
		}
		if c.f == FormatTable {
			goldenfile.Fits(t, c.name, b.String(), c.width)
		}
		goldenfile.Check(t, c.name, b.String(), "")
	}
	ambiguous := &reconcile.Report{Selector: rep.Selector, Outcome: reconcile.RetainedAmbiguous,
		Reason: "the remote object has 2 versions or delete markers on the tier; which one is ours cannot be proven", Source: src, Sets: sets}
	for name, width := range map[string]int{"reconcile-ambiguous.txt": 80, "reconcile-ambiguous-120.txt": 120} {
		var b bytes.Buffer
		if err := Reconcile(&b, FormatTable, ambiguous, width); err != nil {
			t.Fatal(err)
		}
		goldenfile.Fits(t, name, b.String(), width)
		goldenfile.Check(t, name, b.String(), "")
	}
}
