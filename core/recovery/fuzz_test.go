package recovery

import (
	"bytes"
	"testing"
)

// FuzzDecodeArtifacts: whatever the bytes, the recovery decoders never
// panic, and whatever they accept re-encodes to the same bytes (strict
// decoding leaves no field to default).
func FuzzDecodeArtifacts(f *testing.F) {
	c := sampleControl()
	f.Add(c.Key(), c.Encode())
	x := &Export{ControlID: c.ID, Protocol: ProtoJournal, SourcePath: v1Path, SourceSchema: "v1", Source: []byte(`{"version":1}`)}
	x.ContentSHA256 = sha(x.Source)
	x.Copies = []Copy{{Pool: "pool:a", Path: v1Path, ETag: "e", Size: int64(len(x.Source)), SHA256: x.ContentSHA256}}
	x.CopySetSHA256 = CopySetSHA256(x.Copies)
	x.ExportID = ExportID(x.ControlID, x.ContentSHA256, x.CopySetSHA256)
	f.Add(x.Key(), x.Encode())
	d := &Disposition{Action: ActionAbandonRemoteCleanup, ExportID: x.ExportID, ControlID: c.ID, Protocol: ProtoJournal,
		SourcePath: v1Path, ReasonCode: ReasonLegacyRemoteCleanupAbandoned, Manifest: x.Copies, Revision: 2, State: Applying, ConfirmedAbsent: []string{"pool:a"}}
	d.DispositionID = DispositionID(d.ExportID, d.Action)
	f.Add(d.Key(), d.Encode())
	f.Fuzz(func(t *testing.T, key string, b []byte) {
		if c, err := DecodeControl(key, b); err == nil && !bytes.Equal(c.Encode(), b) {
			t.Fatal("control re-encodes differently")
		}
		if x, err := DecodeExport(key, b); err == nil && !bytes.Equal(x.Encode(), b) {
			t.Fatal("export re-encodes differently")
		}
		if d, err := DecodeDisposition(key, b); err == nil && !bytes.Equal(d.Encode(), b) {
			t.Fatal("disposition re-encodes differently")
		}
		_, _ = DecodeReceipt(b)
	})
}
