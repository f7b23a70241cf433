package recovery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// fixture is two pools each holding a copy of one journal v1, its control
// (from a recovery scan), an observation receipt and an export.
type fixture struct {
	t       *testing.T
	a, b    *faultStore
	memA    *memStore
	memB    *memStore
	now     time.Time
	ctl     *Control
	receipt *Receipt
	export  *ExportResult
	epochs  int
}

const actor = "os-user:operator"

func (f *fixture) clock() time.Time { return f.now }

func (f *fixture) pools() []metastore.Store { return []metastore.Store{f.a, f.b} }

func newFixture(t *testing.T, path string) *fixture {
	t.Helper()
	ctx := context.Background()
	src := loadPool(t, "../../testdata/ilm/pool-a", "x")
	data, _, err := src.Get(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, memA: newMem("dir:pool-a"), memB: newMem("dir:pool-b"), now: fixtureNow}
	f.memA.put(path, data)
	f.memB.put(path, data)
	f.a, f.b = &faultStore{Store: f.memA}, &faultStore{Store: f.memB}
	rep, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Items) != 1 || rep.Items[0].Outcome != OutcomeCreated {
		t.Fatalf("scan: %+v", rep.Items)
	}
	f.ctl, _, err = FindControl(ctx, f.a, rep.Items[0].ControlID)
	if err != nil {
		t.Fatal(err)
	}
	f.inspect()
	return f
}

func (f *fixture) inspect() {
	f.t.Helper()
	in, err := Inspect(context.Background(), f.pools(), f.ctl.ID, InspectOptions{Clock: f.clock, Actor: actor, Nonce: strings.Repeat("ab", 16)})
	if err != nil {
		f.t.Fatal(err)
	}
	f.receipt = in.Receipt
}

func (f *fixture) doExport() {
	f.t.Helper()
	res, err := CreateExport(context.Background(), f.pools(), f.ctl.ID, f.receipt, ExportOptions{Clock: f.clock, Actor: actor, Nonce: strings.Repeat("cd", 16)})
	if err != nil {
		f.t.Fatal(err)
	}
	f.export = res
}

func (f *fixture) abandon(execute bool) (*AbandonResult, error) {
	return f.abandonAs(actor, f.receipt, execute)
}

// abandonAs is one abandon process of who: every call is a new claim
// with a fresh owner epoch.
func (f *fixture) abandonAs(who string, r *Receipt, execute bool) (*AbandonResult, error) {
	f.epochs++
	return Abandon(context.Background(), f.pools(), AbandonRequest{
		ControlID: f.ctl.ID, ExportID: f.export.Export.ExportID, ExportSHA256: f.export.SHA256,
		Reason: ReasonLegacyRemoteCleanupAbandoned, Receipt: r, Actor: who, Clock: f.clock, Execute: execute,
		OwnerEpoch: fmt.Sprintf("7f1c0000-0000-4000-8000-%012d", f.epochs),
	})
}

// afterCrash models the operator coming back after a killed run: a lease
// the dead process still holds must expire (plus the clock-skew
// allowance) first, and by then the old receipt has expired too.
func (f *fixture) afterCrash() {
	f.t.Helper()
	if d := f.disposition(); d != nil && d.State != Completed && d.LeaseExpiresAtUnixNanos != 0 {
		f.now = time.Unix(0, d.LeaseExpiresAtUnixNanos).Add(ClockSkew + time.Second)
		f.inspect()
	}
}

func (f *fixture) disposition() *Disposition {
	f.t.Helper()
	key := DispositionKey(ProtoJournal, DispositionID(f.export.Export.ExportID, ActionAbandonRemoteCleanup))
	b, _, err := f.memA.Get(context.Background(), key)
	if errors.Is(err, metastore.ErrNotFound) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	d, err := DecodeDisposition(key, b)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

func (f *fixture) control() *Control {
	f.t.Helper()
	c, _, err := FindControl(context.Background(), f.memA, f.ctl.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f *fixture) noBackend() {
	f.t.Helper()
	if n := f.a.backendCalls() + f.b.backendCalls(); n != 0 {
		f.t.Fatalf("%d operations outside the metadata namespaces", n)
	}
}

// progress returns (state, confirmed count) of the disposition, "" when none.
func (f *fixture) progress() (DispositionState, int) {
	d := f.disposition()
	if d == nil {
		return "", 0
	}
	return d.State, len(d.ConfirmedAbsent)
}

func stateRank(s DispositionState) int {
	return map[DispositionState]int{"": 0, Prepared: 1, Applying: 2, Completed: 3}[s]
}

// monotonic asserts progress never went back.
func (f *fixture) monotonic(prevState DispositionState, prevN int) {
	f.t.Helper()
	s, n := f.progress()
	if stateRank(s) < stateRank(prevState) || (s == prevState && n < prevN) {
		f.t.Fatalf("progress went back: %s/%d -> %s/%d", prevState, prevN, s, n)
	}
}

func (f *fixture) completed() {
	f.t.Helper()
	if s, n := f.progress(); s != Completed || n != 2 {
		f.t.Fatalf("disposition %s with %d confirmed, want Completed with 2", s, n)
	}
	if f.memA.has(f.ctl.SourcePath) || f.memB.has(f.ctl.SourcePath) {
		f.t.Fatal("a source copy survived a completed disposition")
	}
	c := f.control()
	if c.Classification != Abandoned || c.Disposition == nil || c.Disposition.Actor != f.disposition().OwnerID || c.Disposition.ExportSHA256 != f.export.SHA256 {
		f.t.Fatalf("control after completion: %+v", c)
	}
	if c.AttemptCount != f.ctl.AttemptCount || c.FirstSeenAtUnixNanos != f.ctl.FirstSeenAtUnixNanos {
		f.t.Fatal("abandon changed the control's lineage or counters")
	}
}

func TestAbandonDryRunWritesNothing(t *testing.T) {
	f := newFixture(t, v1Path)
	f.doExport()
	f.a.Ops, f.b.Ops = nil, nil
	res, err := f.abandon(false)
	if err != nil || !res.DryRun {
		t.Fatalf("dry run: %v", err)
	}
	if writes(f.a)+writes(f.b) != 0 || f.disposition() != nil {
		t.Fatal("a dry run wrote")
	}
	f.noBackend()
}

func TestAbandonCompletes(t *testing.T) {
	for _, path := range []string{v1Path, v2Path} {
		f := newFixture(t, path)
		f.doExport()
		res, err := f.abandon(true)
		if err != nil {
			t.Fatalf("%s: %v (steps %+v)", path, err, res.Steps)
		}
		f.completed()
		// Re-running a completed disposition is a no-op.
		f.a.Ops = nil
		if _, err := f.abandon(true); err != nil || writes(f.a) != 0 {
			t.Fatalf("re-run after completion: %v, %d writes", err, writes(f.a))
		}
		f.noBackend()
	}
}

// TestAbandonCrashAndLoss covers the crash and lost-response fixtures:
// each run is cut at one operation, then re-run unmodified; the result
// must converge to Completed, never going back.
func TestAbandonCrashAndLoss(t *testing.T) {
	cases := []struct {
		name    string
		pool    string // "a" or "b": which store injects
		mode    faultMode
		kinds   []string
		keyPart string
		at      int
	}{
		{"crash after the first per-copy delete", "a", faultCrashAfter, []string{"delete"}, "tier-delete-journal", 1},
		{"crash after the second per-copy delete", "b", faultCrashAfter, []string{"delete"}, "tier-delete-journal", 1},
		{"lost delete response", "a", faultLoseResponse, []string{"delete"}, "tier-delete-journal", 1},
		{"lost progress CAS response", "a", faultLoseResponse, []string{"cas"}, "recovery-dispositions", 2},
		{"crash after the progress CAS", "a", faultCrashAfter, []string{"cas"}, "recovery-dispositions", 2},
		{"lost Prepared create response", "a", faultLoseResponse, []string{"create"}, "recovery-dispositions", 1},
		{"crash after the Prepared create", "a", faultCrashAfter, []string{"create"}, "recovery-dispositions", 1},
		{"crash after Applying", "a", faultCrashAfter, []string{"cas"}, "recovery-dispositions", 1},
		{"lost Completed response", "a", faultLoseResponse, []string{"cas"}, "recovery-dispositions", 4},
		{"crash before marking the control", "a", faultCrashAfter, []string{"cas"}, "recovery-dispositions", 4},
		{"lost control CAS response", "a", faultLoseResponse, []string{"cas"}, "recovery-controls", 1},
		{"failed delete", "b", faultFail, []string{"delete"}, "tier-delete-journal", 1},
		{"lost strong read mid-run", "a", faultLoseResponse, []string{"get"}, "tier-delete-journal", 4},
		{"crash after a strong read", "b", faultCrashAfter, []string{"get"}, "tier-delete-journal", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, v1Path)
			f.doExport()
			fs := f.a
			if tc.pool == "b" {
				fs = f.b
			}
			fs.Mode, fs.Kinds, fs.KeyPart, fs.At = tc.mode, tc.kinds, tc.keyPart, tc.at
			_, err := f.abandon(true)
			if fs.n < tc.at {
				t.Fatalf("the fault never fired (%d matching ops)", fs.n)
			}
			s1, n1 := f.progress()
			f.a.restart()
			f.b.restart()
			f.afterCrash()
			if err == nil && tc.mode == faultCrashAfter {
				t.Fatal("a run cut by a crash reported success")
			}
			res, err := f.abandon(true)
			if err != nil {
				t.Fatalf("re-run: %v (steps %+v)", err, res.Steps)
			}
			f.monotonic(s1, n1)
			f.completed()
			f.noBackend()
		})
	}
}

// TestAbandonUnsafeKeepsEvidence: every unsafe case stops without
// deleting what it must not, keeps its progress, and can be re-run.
func TestAbandonUnsafeKeepsEvidence(t *testing.T) {
	ctx := context.Background()
	t.Run("replacement ETag before Applying", func(t *testing.T) {
		f := newFixture(t, v1Path)
		f.doExport()
		repl := append(append([]byte(nil), f.export.Export.Source...), ' ')
		f.memB.put(v1Path, repl)
		_, err := f.abandon(true)
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("err %v, want conflict", err)
		}
		if got, _, _ := f.memB.Get(ctx, v1Path); string(got) != string(repl) || !f.memA.has(v1Path) {
			t.Fatal("a copy was deleted although the copy set changed")
		}
		f.noBackend()
	})
	t.Run("replacement after the first delete", func(t *testing.T) {
		f := newFixture(t, v1Path)
		f.doExport()
		f.a.Mode, f.a.Kinds, f.a.KeyPart, f.a.At = faultCrashAfter, []string{"delete"}, "tier-delete-journal", 1
		if _, err := f.abandon(true); err == nil {
			t.Fatal("crash not reported")
		}
		f.a.restart()
		f.afterCrash()
		s1, n1 := f.progress()
		repl := []byte(`{"replacement":true}`)
		f.memA.put(v1Path, repl) // a writer recreates the path in pool A
		_, err := f.abandon(true)
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("err %v, want conflict", err)
		}
		f.monotonic(s1, n1)
		if got, _, _ := f.memA.Get(ctx, v1Path); string(got) != string(repl) {
			t.Fatal("the replacement did not survive")
		}
		if !f.memB.has(v1Path) {
			t.Fatal("copy B was deleted after a conflict")
		}
		f.noBackend()
	})
	t.Run("incomplete topology", func(t *testing.T) {
		f := newFixture(t, v1Path)
		f.doExport()
		f.b.Mode, f.b.Kinds, f.b.At = faultFail, []string{"get"}, 1
		f.b.KeyPart = "tier-delete-journal"
		_, err := f.abandon(true)
		if !errors.Is(err, ErrIncomplete) {
			t.Fatalf("err %v, want incomplete", err)
		}
		if f.disposition() != nil || !f.memA.has(v1Path) || !f.memB.has(v1Path) {
			t.Fatal("an incomplete discovery wrote or deleted")
		}
		f.noBackend()
	})
	t.Run("active decommission", func(t *testing.T) {
		f := newFixture(t, v1Path)
		f.doExport()
		key, r := receiptFor(t, f, "1")
		f.memB.put(key, r.Encode())
		_, err := f.abandon(true)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "decommission") {
			t.Fatalf("err %v, want refused for decommission", err)
		}
		if f.disposition() != nil || !f.memA.has(v1Path) || !f.memB.has(v1Path) {
			t.Fatal("abandon wrote under an active decommission")
		}
		// A terminal receipt no longer covers it.
		r.TerminalCheckpoint = r.Checkpoint
		f.memB.put(key, r.Encode())
		if _, err := f.abandon(true); err != nil {
			t.Fatalf("after the terminal receipt: %v", err)
		}
		f.completed()
		f.noBackend()
	})
	t.Run("active decommission appearing mid-way", func(t *testing.T) {
		f := newFixture(t, v1Path)
		f.doExport()
		f.a.Mode, f.a.Kinds, f.a.KeyPart, f.a.At = faultCrashAfter, []string{"delete"}, "tier-delete-journal", 1
		_, _ = f.abandon(true)
		f.a.restart()
		f.afterCrash()
		s1, n1 := f.progress()
		key, r := receiptFor(t, f, "2")
		f.memA.put(key, r.Encode())
		if _, err := f.abandon(true); !errors.Is(err, ErrRefused) {
			t.Fatalf("err %v, want refused", err)
		}
		f.monotonic(s1, n1)
		if !f.memB.has(v1Path) {
			t.Fatal("copy B deleted under an active decommission")
		}
		f.noBackend()
	})
	for _, path := range []string{v5Path, v4Amb, v4Bad, txOpReq} {
		t.Run("refused for "+path[len(path)-12:], func(t *testing.T) {
			f := newFixture(t, path)
			res, err := CreateExport(ctx, f.pools(), f.ctl.ID, f.receipt, ExportOptions{Clock: f.clock, Actor: actor, Nonce: strings.Repeat("cd", 16)})
			if err != nil {
				if !errors.Is(err, ErrRefused) {
					t.Fatalf("export: %v", err)
				}
				return // corrupt bytes: inspect only, no export either
			}
			f.export = res
			if _, err := f.abandon(true); !errors.Is(err, ErrRefused) {
				t.Fatalf("abandon of %s: %v, want refused", path, err)
			}
			if !f.memA.has(path) || !f.memB.has(path) || f.disposition() != nil {
				t.Fatal("refused abandon changed something")
			}
			f.noBackend()
		})
	}
}

// TestAbandonReceiptBindings: a different actor, an expired receipt or a
// changed control are refused.
func TestAbandonReceiptBindings(t *testing.T) {
	f := newFixture(t, v1Path)
	f.doExport()
	req := func() AbandonRequest {
		return AbandonRequest{ControlID: f.ctl.ID, ExportID: f.export.Export.ExportID, ExportSHA256: f.export.SHA256,
			Reason: ReasonLegacyRemoteCleanupAbandoned, Receipt: f.receipt, Actor: actor, Clock: f.clock, Execute: true,
			OwnerEpoch: "7f1c0000-0000-4000-8000-00000000abcd"}
	}
	r := req()
	r.Actor = "os-user:someone-else"
	if _, err := Abandon(context.Background(), f.pools(), r); !errors.Is(err, ErrRefused) {
		t.Fatalf("other actor: %v", err)
	}
	r = req()
	r.Clock = func() time.Time { return f.now.Add(ReceiptTTL + time.Nanosecond) } // valid through its expiry instant only
	if _, err := Abandon(context.Background(), f.pools(), r); !errors.Is(err, ErrRefused) {
		t.Fatalf("expired receipt: %v", err)
	}
	r = req()
	r.ExportSHA256 = strings.Repeat("0", 64)
	if _, err := Abandon(context.Background(), f.pools(), r); !errors.Is(err, ErrRefused) {
		t.Fatalf("wrong export digest: %v", err)
	}
	r = req()
	r.Reason = "because"
	if _, err := Abandon(context.Background(), f.pools(), r); !errors.Is(err, ErrRefused) {
		t.Fatalf("unknown reason: %v", err)
	}
	if f.disposition() != nil || !f.memA.has(v1Path) {
		t.Fatal("a refused request wrote")
	}
	f.noBackend()
}

// receiptFor is a decommission receipt for the fixture's journal, built
// with core/decom from the record itself, in run token sha256(run).
func receiptFor(t *testing.T, f *fixture, run string) (string, *decom.Receipt) {
	t.Helper()
	v, err := decom.RecordCheckpoint(v1Path, f.export.Export.Source)
	if err != nil {
		t.Fatal(err)
	}
	r := &decom.Receipt{SourcePath: v.Path, Namespace: v.Namespace, IDKind: v.IDKind, ID: v.ID, Checkpoint: v.Checkpoint.Encode()}
	if _, err := decom.Decode(r.Encode()); err != nil {
		t.Fatalf("fixture receipt: %v", err)
	}
	return v.ReceiptKey(envelope.SHA256Hex([]byte(run))), r
}
