package recovery

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
)

func sampleControl() *Control {
	copies := []Copy{{Pool: "pool:b", Path: v1Path, ETag: "e2", Size: 95, SHA256: strings.Repeat("a", 64)},
		{Pool: "pool:a", Path: v1Path, ETag: "e1", Size: 95, SHA256: strings.Repeat("a", 64)}}
	c := &Control{Protocol: ProtoJournal, SourcePath: v1Path, StableIdentity: "227870e5", RecordClass: "tier_delete_journal",
		FirstSeenAtUnixNanos: 1, Observed: NewGeneration("v1", "Committed", strings.Repeat("a", 64), copies), Revision: 3,
		Classification: RetainedAmbiguous, LastErrorCode: ErrCodeNone, AttemptCount: 4}
	c.ID = ControlID(c.Protocol, c.SourcePath, c.StableIdentity)
	return c
}

func TestControlRoundTripAndStrictness(t *testing.T) {
	c := sampleControl()
	b := c.Encode()
	got, err := DecodeControl(c.Key(), b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Encode(), b) || got.Observed.Copies[0].Pool != "pool:a" {
		t.Fatal("round trip changed the bytes or left copies unsorted")
	}
	if len(b) > MaxControlSize {
		t.Fatalf("%d bytes", len(b))
	}
	for name, tc := range map[string]struct {
		key  string
		data []byte
		want error
	}{
		"unknown field":                 {c.Key(), bytes.Replace(b, []byte(`"revision":3`), []byte(`"revision":3,"extra":1`), 1), envelope.ErrUnknownField},
		"bad checksum":                  {c.Key(), bytes.Replace(b, []byte(`"attempt_count":4`), []byte(`"attempt_count":5`), 1), envelope.ErrChecksum},
		"wrong key":                     {ControlKey(ProtoManifest, c.ID), b, envelope.ErrPath},
		"unknown class":                 {c.Key(), reseal(c, func(x *Control) { x.Classification = "maybe" }), envelope.ErrIllegalState},
		"identity digest":               {c.Key(), reseal(c, func(x *Control) { x.StableIdentity = "other" }), envelope.ErrIdentity},
		"revision zero":                 {c.Key(), reseal(c, func(x *Control) { x.Revision = 0 }), envelope.ErrIllegalRevision},
		"abandoned without disposition": {c.Key(), reseal(c, func(x *Control) { x.Classification = Abandoned }), envelope.ErrIdentity},
	} {
		if _, err := DecodeControl(tc.key, tc.data); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

func reseal(c *Control, mut func(*Control)) []byte {
	x := *c
	mut(&x)
	return x.Encode()
}

// TestVocabulary pins the JSON spelling scripts match on.
func TestVocabulary(t *testing.T) {
	got := joinStrings(Classifications) + "|" + joinStrings(ErrorCodes) + "|" + joinStrings(Protocols)
	want := "retrying,retained_ambiguous,corrupt,operator_required,abandoned,terminal|" +
		"none,source_proof_unavailable,metadata_unavailable,source_generation_conflict,retries_exhausted|" +
		"tier_delete_journal,tier_delete_manifest,transition_transaction,manual_transition"
	if got != want {
		t.Fatalf("vocabulary changed:\n got %s\nwant %s", got, want)
	}
}

func joinStrings[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ",")
}
