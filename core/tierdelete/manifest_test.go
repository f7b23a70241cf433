package tierdelete

import (
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/internal/codectest"
)

const (
	testOp   = "a0000000-0000-4000-8000-000000000001"
	testInc  = "0f0f0f0f-0000-4000-8000-000000000001"
	testTopo = "abababababababababababababababababababababababababababababababab"
)

func memberNames(op string, n int) []string {
	var names []string
	for i := 0; i < n; i++ {
		names = append(names, "ilm/tier-delete-journal-v6/"+ilmpath.Simple(op)+"/"+strings.Repeat(string("0123456789abcdef"[i%16]), 64)+".json")
	}
	return names
}

func sampleManifest() *Manifest {
	names := memberNames(testOp, 3)
	return &Manifest{Version: 1, OperationID: testOp, Bucket: "photos", BucketIncarnation: testInc, Prefix: "logs/",
		JournalNames: names, JournalSetSHA256: ilmpath.JournalSetSHA256(names), JournalCount: 3, TopologyGeneration: testTopo, State: DispatchAuthorized}
}

func TestDecodeManifest(t *testing.T) {
	m := sampleManifest()
	root, chunk := m.RootKey(), m.ChunkKey()
	good := string(m.Encode())
	mut := func(f func(*Manifest)) []byte { c := *m; f(&c); return c.Encode() }
	edit := func(old, new string) []byte { return []byte(strings.Replace(good, old, new, 1)) }
	other := memberNames("a0000000-0000-4000-8000-000000000002", 1)
	cases := []codectest.Case{
		{"valid single dispatch", root, []byte(good), nil},
		{"valid chunk child", chunk, []byte(good), nil},
		{"valid empty set", root, mut(func(c *Manifest) {
			c.JournalNames, c.JournalCount, c.JournalSetSHA256, c.State = []string{}, 0, ilmpath.JournalSetSHA256(nil), Aborted
		}), nil},
		{"malformed", root, []byte(good[:20]), envelope.ErrMalformed},
		{"chunk parent bytes", root, sampleParent().Encode(), envelope.ErrSchema},
		{"unknown field", root, edit(`{"version":1`, `{"version":1,"x":1`), envelope.ErrUnknownField},
		{"duplicate field", root, edit(`"bucket":"photos"`, `"bucket":"photos","bucket":"photos"`), envelope.ErrDuplicateField},
		{"missing state", root, edit(`,"state":"DispatchAuthorized"`, ``), envelope.ErrMissingField},
		{"names not an array", root, []byte(strings.Replace(string(mut(func(c *Manifest) {
			c.JournalNames, c.JournalCount, c.JournalSetSHA256 = []string{}, 0, ilmpath.JournalSetSHA256(nil)
		})), `"journal_names":[]`, `"journal_names":{}`, 1)), envelope.ErrWrongType},
		{"count not an integer", root, edit(`"journal_count":3`, `"journal_count":"3"`), envelope.ErrWrongType},
		{"version 2", root, mut(func(c *Manifest) { c.Version = 2 }), envelope.ErrUnsupportedVersion},
		{"nil operation", root, mut(func(c *Manifest) { c.OperationID = envelope.NilUUID }), envelope.ErrNilUUID},
		{"nil incarnation", root, mut(func(c *Manifest) { c.BucketIncarnation = envelope.NilUUID }), envelope.ErrNilUUID},
		{"empty bucket", root, mut(func(c *Manifest) { c.Bucket = "" }), envelope.ErrIdentity},
		{"unknown state", root, mut(func(c *Manifest) { c.State = "Paused" }), envelope.ErrIllegalState},
		{"count disagrees", root, mut(func(c *Manifest) { c.JournalCount = 2 }), envelope.ErrIdentity},
		{"names unsorted", root, mut(func(c *Manifest) {
			c.JournalNames = []string{m.JournalNames[1], m.JournalNames[0], m.JournalNames[2]}
			c.JournalSetSHA256 = ilmpath.JournalSetSHA256(c.JournalNames)
		}), envelope.ErrIdentity},
		{"duplicate name", root, mut(func(c *Manifest) {
			c.JournalNames = []string{m.JournalNames[0], m.JournalNames[0], m.JournalNames[2]}
			c.JournalSetSHA256 = ilmpath.JournalSetSHA256(c.JournalNames)
		}), envelope.ErrIdentity},
		{"member of another operation", root, mut(func(c *Manifest) {
			c.JournalNames, c.JournalCount, c.JournalSetSHA256 = other, 1, ilmpath.JournalSetSHA256(other)
		}), envelope.ErrIdentity},
		{"set digest disagrees", root, mut(func(c *Manifest) { c.JournalSetSHA256 = strings.Repeat("0", 64) }), envelope.ErrIdentity},
		{"topology not 64 hex", root, mut(func(c *Manifest) { c.TopologyGeneration = "abab" }), envelope.ErrIdentity},
		{"stored at another scope", ilmpath.ManifestRootKey("photos", testInc, "other/"), []byte(good), envelope.ErrPath},
		{"uppercase alias", root[:strings.LastIndex(root, "/")+1] + strings.ToUpper(root[strings.LastIndex(root, "/")+1:len(root)-5]) + ".json", []byte(good), envelope.ErrPath},
		{"too large", root, append([]byte(good), make([]byte, ilmpath.MaxManifestSize)...), envelope.ErrTooLarge},
	}
	if !testing.Short() {
		big := memberNames(testOp, 0)
		for i := 0; i <= ilmpath.MaxManifestJournals; i++ {
			big = append(big, "ilm/tier-delete-journal-v6/"+ilmpath.Simple(testOp)+"/"+envelope.SHA256Hex([]byte{byte(i), byte(i >> 8), byte(i >> 16)})+".json")
		}
		cases = append(cases, codectest.Case{"over 200,000 names", root, mut(func(c *Manifest) { c.JournalNames, c.JournalCount = big, uint64(len(big)) }), envelope.ErrTooLarge})
	}
	codectest.Run(t, cases, func(k string, b []byte) ([]byte, error) {
		d, err := DecodeManifest(k, b)
		if err != nil {
			return nil, err
		}
		return d.Encode(), nil
	})
}

func sampleParent() *Parent {
	return &Parent{Version: 1, OperationID: "b0000000-0000-4000-8000-000000000001", Bucket: "photos", BucketIncarnation: testInc, Prefix: "logs/",
		TopologyGeneration: testTopo, Revision: 3, NextChunkSequence: 2, CompletedJournalCount: 10, State: ParentActive}
}

func TestDecodeParent(t *testing.T) {
	p := sampleParent()
	key := p.RootKey()
	child := &ChildBinding{Sequence: 1, OperationID: testOp, ManifestObject: ilmpath.ManifestChunkKey("photos", testInc, "logs/", testOp),
		JournalSetSHA256: ilmpath.JournalSetSHA256(nil), JournalCount: 0}
	bound := *p
	bound.ActiveChunk = child
	good := string(p.Encode())
	goodBound := string(bound.Encode())
	mut := func(f func(*Parent)) []byte { c := bound; cc := *child; c.ActiveChunk = &cc; f(&c); return c.Encode() }
	codectest.Run(t, []codectest.Case{
		{"valid active, no child", key, []byte(good), nil},
		{"valid active, bound child", key, []byte(goodBound), nil},
		{"valid completed", key, mut(func(c *Parent) { c.State, c.ActiveChunk = ParentCompleted, nil }), nil},
		{"malformed", key, []byte(good[:30]), envelope.ErrMalformed},
		{"manifest bytes", key, sampleManifest().Encode(), envelope.ErrUnknownField},
		{"record_type other", key, []byte(strings.Replace(good, `"chunked_parent"`, `"chunked_child"`, 1)), envelope.ErrSchema},
		{"missing active_chunk", key, []byte(strings.Replace(good, `"active_chunk":null,`, ``, 1)), envelope.ErrMissingField},
		{"unknown child field", key, []byte(strings.Replace(goodBound, `{"sequence"`, `{"x":1,"sequence"`, 1)), envelope.ErrUnknownField},
		{"version 2", key, mut(func(c *Parent) { c.Version = 2 }), envelope.ErrUnsupportedVersion},
		{"nil operation", key, mut(func(c *Parent) { c.OperationID = envelope.NilUUID }), envelope.ErrNilUUID},
		{"nil child operation", key, mut(func(c *Parent) { c.ActiveChunk.OperationID = envelope.NilUUID }), envelope.ErrNilUUID},
		{"empty bucket", key, mut(func(c *Parent) { c.Bucket = "" }), envelope.ErrIdentity},
		{"topology not 64 hex", key, mut(func(c *Parent) { c.TopologyGeneration = "zz" }), envelope.ErrIdentity},
		{"revision zero", key, mut(func(c *Parent) { c.Revision = 0 }), envelope.ErrIllegalRevision},
		{"bound sequence not below next", key, mut(func(c *Parent) { c.ActiveChunk.Sequence = 2 }), envelope.ErrIllegalRevision},
		{"child key not canonical", key, mut(func(c *Parent) { c.ActiveChunk.ManifestObject = sampleManifest().RootKey() }), envelope.ErrIdentity},
		{"child set digest not hex", key, mut(func(c *Parent) { c.ActiveChunk.JournalSetSHA256 = "x" }), envelope.ErrIdentity},
		{"child count over the bound", key, mut(func(c *Parent) { c.ActiveChunk.JournalCount = ilmpath.MaxManifestJournals + 1 }), envelope.ErrWrongType},
		{"unknown state", key, mut(func(c *Parent) { c.State = "Paused" }), envelope.ErrIllegalState},
		{"completed with a bound child", key, mut(func(c *Parent) { c.State = ParentCompleted }), envelope.ErrIllegalState},
		{"stored at a chunk key", child.ManifestObject, []byte(good), envelope.ErrPath},
		{"too large", key, append([]byte(good), make([]byte, ilmpath.MaxManifestSize)...), envelope.ErrTooLarge},
	}, func(k string, b []byte) ([]byte, error) {
		d, err := DecodeParent(k, b)
		if err != nil {
			return nil, err
		}
		return d.Encode(), nil
	})
}

func TestManifestStateEdges(t *testing.T) {
	legal := map[[2]ManifestState]bool{
		{Preparing, DispatchAuthorized}: true, {Preparing, Aborting}: true,
		{DispatchAuthorized, ManifestCompleted}: true, {Aborting, Aborted}: true,
	}
	all := []ManifestState{Preparing, DispatchAuthorized, Aborting, Aborted, ManifestCompleted}
	for _, a := range all {
		for _, b := range all {
			if a.CanTransitionTo(b) != legal[[2]ManifestState{a, b}] {
				t.Errorf("%s → %s: got %v", a, b, a.CanTransitionTo(b))
			}
		}
	}
	if !ParentActive.CanTransitionTo(ParentCompleted) || ParentCompleted.CanTransitionTo(ParentActive) {
		t.Error("parent edges: only Active → Completed")
	}
}
