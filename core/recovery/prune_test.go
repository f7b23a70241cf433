package recovery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// abandoned returns a fixture whose control was abandoned after export:
// the control and its export are finished history, the source is gone
// and the disposition receipt is Completed.
func abandoned(t *testing.T) *fixture {
	f := newFixture(t, v1Path)
	f.doExport()
	if _, err := f.abandon(true); err != nil {
		t.Fatal(err)
	}
	f.completed()
	return f
}

func (f *fixture) prune(execute bool, ids ...string) (*PruneResult, error) {
	f.a.Ops, f.b.Ops = nil, nil
	return Prune(context.Background(), f.pools(), PruneRequest{ControlIDs: ids, Execute: execute})
}

// setClass rewrites the stored control with another classification.
func (f *fixture) setClass(c Classification) {
	ctl := f.control()
	ctl.Revision++
	ctl.Classification = c
	f.memA.put(ctl.Key(), ctl.Encode())
}

// TestPruneRetiresFinishedControls: dry run first, then the control and
// its export go, the disposition receipt stays, and a second run finds
// nothing to do and writes nothing. Decommission then treats the kept
// receipt as movable history, not as live work.
func TestPruneRetiresFinishedControls(t *testing.T) {
	f := abandoned(t)
	key, xkey, dkey := f.ctl.Key(), f.export.Key, f.disposition().Key()
	res, err := f.prune(false)
	if err != nil || len(res.Items) != 1 || res.Items[0].Action != PruneRemove || !res.DryRun {
		t.Fatalf("dry run: %v %+v", err, res)
	}
	if it := res.Items[0]; len(it.Exports) != 1 || it.Exports[0] != xkey || len(it.KeptDispositions) != 1 || it.KeptDispositions[0] != dkey {
		t.Fatalf("dry run plan %+v", it)
	}
	if writes(f.a)+writes(f.b) != 0 {
		t.Fatal("the dry run wrote")
	}
	res, err = f.prune(true)
	if err != nil || res.Items[0].Action != PruneRemoved {
		t.Fatalf("execute: %v %+v", err, res)
	}
	if f.memA.has(key) || f.memA.has(xkey) || !f.memA.has(dkey) {
		t.Fatalf("after prune: control %v export %v disposition %v", f.memA.has(key), f.memA.has(xkey), f.memA.has(dkey))
	}
	res, err = f.prune(true)
	if err != nil || len(res.Items) != 0 || writes(f.a)+writes(f.b) != 0 {
		t.Fatalf("second run: %v %+v, %d writes", err, res, writes(f.a))
	}
	b, _, _ := f.memA.Get(context.Background(), dkey)
	a, err := DecomArtifact(ilmpath.KindRecoveryDisposition, dkey, b)
	if err != nil || a.State != decom.ArtifactMovable {
		t.Fatalf("kept receipt as decom sees it: %+v %v", a, err)
	}
	f.noBackend()
}

// TestPruneCrashAfterExports: a run cut after the exports were deleted
// leaves a terminal control; running again retires it.
func TestPruneCrashAfterExports(t *testing.T) {
	f := abandoned(t)
	if err := f.memA.DeleteIfMatch(context.Background(), f.export.Key, mustETag(t, f.memA, f.export.Key)); err != nil {
		t.Fatal(err)
	}
	res, err := f.prune(true)
	if err != nil || len(res.Items) != 1 || res.Items[0].Action != PruneRemoved || len(res.Items[0].Exports) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	if f.memA.has(f.ctl.Key()) {
		t.Fatal("control survived")
	}
}

func mustETag(t *testing.T, s *memStore, key string) string {
	t.Helper()
	_, etag, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return etag
}

// TestPruneRefusals: what prune keeps, and that naming a control it must
// keep refuses the run with a one-line reason and writes nothing.
func TestPruneRefusals(t *testing.T) {
	for _, c := range []struct {
		name    string
		setup   func(f *fixture)
		named   bool
		want    error  // nil: kept without an error when not named
		because string // in the reason
	}{
		{"live control", func(f *fixture) {}, true, ErrRefused, "prune removes only terminal or abandoned controls"},
		{"live control, not named", func(f *fixture) {}, false, nil, ""},
		{"terminal, source still present", func(f *fixture) { f.setClass(Terminal) }, true, ErrRefused, "source record is still present"},
		{"terminal, source still present, not named", func(f *fixture) { f.setClass(Terminal) }, false, nil, "source record is still present"},
		{"decommission coverage unknown", func(f *fixture) {
			_ = f.memA.DeleteIfMatch(context.Background(), f.ctl.SourcePath, mustETag(t, f.memA, f.ctl.SourcePath))
			_ = f.memB.DeleteIfMatch(context.Background(), f.ctl.SourcePath, mustETag(t, f.memB, f.ctl.SourcePath))
			f.setClass(Terminal)
			f.memB.put(decom.ReceiptRoot+strings.Repeat("a", 64)+"/"+f.ctl.Key()+"/garbage", []byte("x"))
		}, true, ErrIncomplete, "decommission coverage cannot be ruled out"},
		{"corrupt export", func(f *fixture) {
			f.memA.put(ExportKey(ProtoJournal, strings.Repeat("b", 64)), []byte("{}"))
		}, false, ErrConflict, "fails strict decoding"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, v1Path)
			c.setup(f)
			var ids []string
			if c.named {
				ids = []string{f.ctl.ID[:12]}
			}
			res, err := f.prune(true, ids...)
			if writes(f.a)+writes(f.b) != 0 {
				t.Fatalf("%d writes", writes(f.a)+writes(f.b))
			}
			if c.want != nil {
				if !errors.Is(err, c.want) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.because) {
					t.Fatalf("got %v, want %v saying %q", err, c.want, c.because)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range res.Items {
				if it.Action != PruneKeep || !strings.Contains(it.Reason, c.because) {
					t.Fatalf("%+v", it)
				}
			}
			if !f.memA.has(f.ctl.Key()) {
				t.Fatal("control removed")
			}
		})
	}
}

func (f *fixture) pruneAt(execute bool, now time.Time, minAge time.Duration, ids ...string) (*PruneResult, error) {
	f.a.Ops, f.b.Ops = nil, nil
	return Prune(context.Background(), f.pools(), PruneRequest{ControlIDs: ids, Execute: execute, Now: now, MinAge: minAge})
}

// TestPruneRetentionFloor: a control is retired only once it has been
// final for the floor (--older-than), measured from its last write as the
// control pool reports it; one finished moments ago, one whose finishing
// time the store cannot tell, and one the store dates after this
// machine's clock are kept, and naming such a control refuses the run.
// Nothing is written for a kept control.
func TestPruneRetentionFloor(t *testing.T) {
	const floor = 90 * 24 * time.Hour
	for _, c := range []struct {
		name    string
		stamped bool          // the store reports modification times
		after   time.Duration // prune runs this long after the control became final
		named   bool
		remove  bool
		says    string
	}{
		{"finished moments ago", true, time.Minute, false, false, "final for 1m, under the 90d retention floor (--older-than): kept until 2025-09-13T15:06:40Z"},
		{"finished moments ago, named", true, time.Minute, true, false, "under the 90d retention floor"},
		{"a second short of the floor", true, floor - time.Second, false, false, "final for 89d23h, under the 90d retention floor"},
		{"exactly the floor", true, floor, false, true, ""},
		{"past the floor, named", true, floor + time.Hour, true, true, ""},
		{"finishing time unknown", false, 2 * floor, false, false, "cannot be told"},
		{"store clock ahead", true, -time.Hour, false, false, "puts its finish 1h after this machine's"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, v1Path)
			if c.stamped {
				f.memA.clock = f.clock
			}
			f.doExport()
			if _, err := f.abandon(true); err != nil {
				t.Fatal(err)
			}
			f.completed()
			var ids []string
			if c.named {
				ids = []string{f.ctl.ID[:12]}
			}
			res, err := f.pruneAt(true, f.now.Add(c.after), floor, ids...)
			if c.remove {
				if err != nil || len(res.Items) != 1 || res.Items[0].Action != PruneRemoved || f.memA.has(f.ctl.Key()) {
					t.Fatalf("want removed: %v %+v", err, res)
				}
				if want := f.now.UTC().Format(time.RFC3339); res.Items[0].FinishedAt != want {
					t.Errorf("finished_at %q, want %q", res.Items[0].FinishedAt, want)
				}
				return
			}
			if writes(f.a)+writes(f.b) != 0 || !f.memA.has(f.ctl.Key()) || !f.memA.has(f.export.Key) {
				t.Fatalf("a kept control was written: %d writes", writes(f.a)+writes(f.b))
			}
			if c.named {
				if !errors.Is(err, ErrRefused) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.says) {
					t.Fatalf("named: got %v, want a refusal saying %q", err, c.says)
				}
				return
			}
			if err != nil || len(res.Items) != 1 || res.Items[0].Action != PruneKeep || !strings.Contains(res.Items[0].Reason, c.says) {
				t.Fatalf("got %v %+v, want kept saying %q", err, res, c.says)
			}
		})
	}
}
