package decom

import (
	"errors"
	"strings"
	"testing"
)

func h(c byte) string { return strings.Repeat(string(c), 64) }

func strp(s string) *string { return &s }
func u64p(v uint64) *uint64 { return &v }

func proof(scanned uint64, mut func(*ProgressProof)) *ProgressProof {
	p := &ProgressProof{ScopeSHA256: h('5'), Counters: map[string]uint64{"scanned": scanned, "enqueued": 4, "transition_completed": 2},
		TierFailureByReason: map[string]uint64{}, Flags: map[string]bool{"lifecycle_config_found": true},
		Queue: QueueSnapshot{QueueCapacity: 8, Queued: 1, Workers: 2, Active: 1}}
	if mut != nil {
		mut(p)
	}
	return p
}

// TestSuccessor walks each record kind's legal edges and the edges
// RustFS refuses. prev and next differ in content unless noted.
func TestSuccessor(t *testing.T) {
	journal := func(content byte, state string) *Checkpoint {
		c := &Checkpoint{Kind: CkJournal, ContentSHA256: h(content), IdentitySHA256: h('i'), Committed: state == "Committed"}
		if state != "" && state != "legacy-uncommitted" && state != "Committed-legacy" {
			c.JournalState, c.DispatchIdentitySHA256 = strp(state), strp(h('d'))
		}
		if state == "Committed-legacy" {
			c.Committed = true
		}
		return c
	}
	manifest := func(content byte, st string) *Checkpoint {
		return &Checkpoint{Kind: CkManifest, ContentSHA256: h(content), IdentitySHA256: h('i'), ManifestState: st}
	}
	parent := func(content byte, rev, seq, done uint64, active *string, completed bool) *Checkpoint {
		return &Checkpoint{Kind: CkParent, ContentSHA256: h(content), IdentitySHA256: h('i'), Revision: rev, NextChunkSequence: seq,
			CompletedJournalCount: done, ActiveChunkIdentitySHA256: active, Completed: completed}
	}
	tx := func(content byte, st string, rev uint64, rv byte, known bool) *Checkpoint {
		return &Checkpoint{Kind: CkTransition, ContentSHA256: h(content), IdentitySHA256: h('i'), State: st, Revision: rev,
			RemoteVersionSHA256: h(rv), RemoteVersionKnown: known}
	}
	probe := func(content byte, st string, rev uint64, fence byte) *Checkpoint {
		return &Checkpoint{Kind: CkProbe, ContentSHA256: h(content), IdentitySHA256: h('i'), State: st, Revision: rev,
			RemoteVersionSHA256: h('r'), RemoteVersionKnown: true, OwnerFenceSHA256: h(fence)}
	}
	job := func(content byte, updated int64, st string, scan, cancel bool, p *ProgressProof) *Checkpoint {
		return &Checkpoint{Kind: CkManualJob, ContentSHA256: h(content), IdentitySHA256: h('i'), UpdatedAtUnixNanos: updated, State: st,
			ScanCompleted: scan, CancelRequested: cancel, Progress: p}
	}
	scope := func(content byte, updated int64) *Checkpoint {
		return &Checkpoint{Kind: CkManualScope, ContentSHA256: h(content), IdentitySHA256: h('i'), UpdatedAtUnixNanos: updated}
	}
	otherIdentity := tx('2', "uploaded", 2, 'r', true)
	otherIdentity.IdentitySHA256 = h('j')
	derivedParent := parent('2', 3, 1, 1, nil, false)
	derivedParent.IdentitySHA256 = ""
	sameContentDerived := parent('1', 2, 1, 1, nil, false)
	sameContentDerived.IdentitySHA256 = ""
	tok := func(p *ProgressProof) {
		p.ContinuationTokenSHA, p.CursorMarker, p.CursorRevision = strp(h('e')), strp("m1"), u64p(1)
	}
	tok2 := func(p *ProgressProof) {
		p.ContinuationTokenSHA, p.CursorMarker, p.CursorRevision = strp(h('f')), strp("m2"), u64p(2)
	}
	tokBack := func(p *ProgressProof) {
		p.ContinuationTokenSHA, p.CursorMarker, p.CursorRevision = strp(h('f')), strp("m0"), u64p(2)
	}

	for _, c := range []struct {
		name       string
		prev, next *Checkpoint
		want       error
	}{
		{"journal same generation", journal('1', "Prepared"), journal('1', "Prepared"), nil},
		{"journal Prepared → Dispatched", journal('1', "Prepared"), journal('2', "Dispatched"), nil},
		{"journal Dispatched → Committed", journal('1', "Dispatched"), journal('2', "Committed"), nil},
		{"journal Prepared → Committed skips", journal('1', "Prepared"), journal('2', "Committed"), ErrNotSuccessor},
		{"journal Committed → Prepared", journal('1', "Committed"), journal('2', "Prepared"), ErrNotSuccessor},
		{"legacy journal uncommitted → committed", journal('1', "legacy-uncommitted"), journal('2', "Committed-legacy"), nil},
		{"legacy journal committed → uncommitted", journal('1', "Committed-legacy"), journal('2', "legacy-uncommitted"), ErrNotSuccessor},
		{"journal state beside wrong committed bit", &Checkpoint{Kind: CkJournal, ContentSHA256: h('1'), IdentitySHA256: h('i'),
			JournalState: strp("Committed"), DispatchIdentitySHA256: strp(h('d'))}, journal('2', "Committed"), ErrInvalidCheckpoint},

		{"manifest Preparing → DispatchAuthorized", manifest('1', "Preparing"), manifest('2', "DispatchAuthorized"), nil},
		{"manifest Preparing → Aborting", manifest('1', "Preparing"), manifest('2', "Aborting"), nil},
		{"manifest Aborting → Aborted", manifest('1', "Aborting"), manifest('2', "Aborted"), nil},
		{"manifest DispatchAuthorized → Completed", manifest('1', "DispatchAuthorized"), manifest('2', "Completed"), nil},
		{"manifest Preparing → Completed skips", manifest('1', "Preparing"), manifest('2', "Completed"), ErrNotSuccessor},
		{"manifest DispatchAuthorized → Aborting", manifest('1', "DispatchAuthorized"), manifest('2', "Aborting"), ErrNotSuccessor},

		{"parent binds a child", parent('1', 1, 0, 0, nil, false), parent('2', 2, 0, 0, strp(h('c')), false), nil},
		{"parent releases a child", parent('1', 2, 0, 0, strp(h('c')), false), parent('2', 3, 0, 0, nil, false), nil},
		{"parent completes", parent('1', 3, 1, 5, nil, false), parent('2', 4, 1, 5, nil, true), nil},
		{"parent progresses one child", parent('1', 2, 0, 0, strp(h('c')), false), parent('2', 3, 1, 5, nil, false), nil},
		{"parent revision does not advance", parent('1', 2, 0, 0, nil, false), parent('2', 2, 0, 0, strp(h('c')), false), ErrNotSuccessor},
		{"parent sequence past count", parent('1', 2, 0, 0, nil, false), parent('2', 3, 2, 1, nil, false), ErrNotSuccessor},
		{"parent count backwards", parent('1', 2, 1, 5, nil, false), parent('2', 3, 2, 4, nil, false), ErrNotSuccessor},
		{"completed parent is final", parent('1', 4, 1, 5, nil, true), parent('2', 5, 1, 5, nil, true), ErrNotSuccessor},
		{"parent keeps the same child while progressing", parent('1', 2, 0, 0, strp(h('c')), false), parent('2', 3, 1, 5, strp(h('c')), false), ErrNotSuccessor},
		{"derived parent, same content", parent('1', 2, 1, 1, nil, false), sameContentDerived, nil},
		{"derived parent, other content", parent('1', 2, 1, 1, nil, false), derivedParent, ErrIdentityNotDerivable},

		{"transition uploaded@2 → local_commit_started@3", tx('1', "uploaded", 2, 'r', true), tx('2', "local_commit_started", 3, 'r', true), nil},
		{"transition upload_started@1 → committed@4", tx('1', "upload_started", 1, 'u', false), tx('2', "committed", 4, 'r', true), nil},
		{"transition revision off by one", tx('1', "uploaded", 2, 'r', true), tx('2', "local_commit_started", 4, 'r', true), ErrNotSuccessor},
		{"transition backwards", tx('1', "committed", 4, 'r', true), tx('2', "uploaded", 2, 'r', true), ErrNotSuccessor},
		{"transition known remote version changed", tx('1', "uploaded", 2, 'r', true), tx('2', "local_commit_started", 3, 's', true), ErrNotSuccessor},
		{"identity changed", tx('1', "uploaded", 2, 'r', true), otherIdentity, ErrNotSuccessor},
		{"kind changed", tx('1', "uploaded", 2, 'r', true), scope('2', 5), ErrNotSuccessor},

		{"probe uploaded → cleanup_pending", probe('1', "uploaded", 2, 'f'), probe('2', "cleanup_pending", 3, 'f'), nil},
		{"probe two steps at once", probe('1', "uploaded", 2, 'f'), probe('2', "completed", 4, 'f'), ErrNotSuccessor},
		{"probe owner fence changed", probe('1', "uploaded", 2, 'f'), probe('2', "cleanup_pending", 3, 'g'), ErrNotSuccessor},

		{"job gains progress", job('1', 10, "running", false, false, nil), job('2', 11, "running", false, false, proof(3, nil)), nil},
		{"job progresses", job('1', 10, "running", false, false, proof(3, nil)), job('2', 11, "running", false, false, proof(5, tok)), nil},
		{"job cursor advances", job('1', 10, "running", false, false, proof(5, tok)), job('2', 11, "running", false, false, proof(7, tok2)), nil},
		{"job cursor marker goes back", job('1', 10, "running", false, false, proof(5, tok)), job('2', 11, "running", false, false, proof(7, tokBack)), ErrNotSuccessor},
		{"job finishes scan", job('1', 10, "running", false, false, proof(5, tok)), job('2', 11, "completed", true, false, proof(9, nil)), nil},
		{"job counter goes back", job('1', 10, "running", false, false, proof(5, nil)), job('2', 11, "running", false, false, proof(4, nil)), ErrNotSuccessor},
		{"job updated_at does not advance", job('1', 10, "running", false, false, proof(3, nil)), job('2', 10, "running", false, false, proof(5, nil)), ErrNotSuccessor},
		{"terminal job changes state", job('1', 10, "failed", false, false, proof(3, nil)), job('2', 11, "completed", false, false, proof(3, nil)), ErrNotSuccessor},
		{"job cancel cleared", job('1', 10, "running", false, true, proof(3, nil)), job('2', 11, "running", false, false, proof(4, nil)), ErrNotSuccessor},
		{"job progress lost", job('1', 10, "running", false, false, proof(3, nil)), job('2', 11, "running", false, false, nil), ErrNotSuccessor},
		{"job progress proof invalid", job('1', 10, "running", false, false, proof(3, nil)),
			job('2', 11, "running", false, false, proof(5, func(p *ProgressProof) { p.Counters["transition_completed"] = 9 })), ErrNotSuccessor},
		{"job flag cleared", job('1', 10, "running", false, false, proof(3, nil)),
			job('2', 11, "running", false, false, proof(5, func(p *ProgressProof) { p.Flags["lifecycle_config_found"] = false })), ErrNotSuccessor},

		{"scope renewed", scope('1', 10), scope('2', 11), nil},
		{"scope not renewed", scope('1', 10), scope('2', 10), ErrNotSuccessor},
		{"task changed", &Checkpoint{Kind: CkManualTask, ContentSHA256: h('1')}, &Checkpoint{Kind: CkManualTask, ContentSHA256: h('2')}, ErrIdentityNotDerivable},
		{"task unchanged", &Checkpoint{Kind: CkManualTask, ContentSHA256: h('1')}, &Checkpoint{Kind: CkManualTask, ContentSHA256: h('1')}, nil},
	} {
		err := Successor(c.prev, c.next)
		if !errors.Is(err, c.want) || c.want == nil && err != nil {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

// TestCheckpointCodec: every kind round-trips through Encode and
// DecodeCheckpoint; unknown kinds and members are refused.
func TestCheckpointCodec(t *testing.T) {
	for _, c := range []*Checkpoint{
		{Kind: CkJournal, ContentSHA256: h('1'), IdentitySHA256: h('2'), Committed: true, DispatchIdentitySHA256: strp(h('3')), JournalState: strp("Committed")},
		{Kind: CkManifest, ContentSHA256: h('1'), IdentitySHA256: h('2'), ManifestState: "Aborting"},
		{Kind: CkParent, ContentSHA256: h('1'), IdentitySHA256: h('2'), Revision: 3, NextChunkSequence: 1, CompletedJournalCount: 9, ActiveChunkIdentitySHA256: strp(h('4'))},
		{Kind: CkTransition, ContentSHA256: h('1'), IdentitySHA256: h('2'), RemoteVersionSHA256: h('3'), RemoteVersionKnown: true, Revision: 2, State: "uploaded"},
		{Kind: CkProbe, ContentSHA256: h('1'), IdentitySHA256: h('2'), RemoteVersionSHA256: h('3'), OwnerFenceSHA256: h('4'), Revision: 1, State: "upload_outcome_unknown"},
		{Kind: CkManualJob, ContentSHA256: h('1'), IdentitySHA256: h('2'), UpdatedAtUnixNanos: -3, State: "running", Progress: proof(3, func(p *ProgressProof) {
			p.TierFailureByReason = map[string]uint64{"timeout": 0}
			p.ContinuationTokenSHA, p.CursorMarker, p.CursorRevision = strp(h('e')), strp("m"), u64p(2)
		})},
		{Kind: CkManualScope, ContentSHA256: h('1'), IdentitySHA256: h('2'), UpdatedAtUnixNanos: 5},
		{Kind: CkManualTask, ContentSHA256: h('1')},
		{Kind: CkManualResult, ContentSHA256: h('1')},
	} {
		b := c.Encode()
		d, err := DecodeCheckpoint(b)
		if err != nil {
			t.Errorf("%s: %v", c.Kind, err)
			continue
		}
		if string(d.Encode()) != string(b) || !Equal(c, d) {
			t.Errorf("%s: round trip differs:\n%s\n%s", c.Kind, b, d.Encode())
		}
	}
	for _, c := range []struct {
		name, raw string
	}{
		{"unknown kind", `{"kind":"recovery_control","content_sha256":"` + h('1') + `"}`},
		{"member of another kind", `{"kind":"manual_transition_task","content_sha256":"` + h('1') + `","revision":1}`},
		{"uncompacted progress", `{"kind":"manual_transition_job","content_sha256":"` + h('1') + `","progress":{}}`},
		{"uppercase digest", `{"kind":"manual_transition_task","content_sha256":"` + strings.ToUpper(h('a')) + `"}`},
		{"unknown transition state", strings.Replace(string((&Checkpoint{Kind: CkTransition, ContentSHA256: h('1'), IdentitySHA256: h('2'),
			RemoteVersionSHA256: h('3'), State: "uploaded"}).Encode()), `"uploaded"`, `"paused"`, 1)},
	} {
		if _, err := DecodeCheckpoint([]byte(c.raw)); err == nil {
			t.Errorf("%s: decoded", c.name)
		}
	}
}
