package recovery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func (f *fixture) tryExport() (*ExportResult, error) {
	return CreateExport(context.Background(), f.pools(), f.ctl.ID, f.receipt, ExportOptions{Clock: f.clock, Actor: actor, Nonce: strings.Repeat("cd", 16)})
}

func exportKeys(m *memStore) []string {
	var ks []string
	for k := range m.m {
		if strings.HasPrefix(k, ExportPrefix) {
			ks = append(ks, k)
		}
	}
	return ks
}

func TestExportFixtures(t *testing.T) {
	t.Run("replay reuses the canonical export", func(t *testing.T) {
		f := newFixture(t, v1Path)
		first, err := f.tryExport()
		if err != nil || !first.Created {
			t.Fatalf("first export: %v", err)
		}
		f.a.Ops = nil
		again, err := f.tryExport()
		if err != nil || again.Created || again.SHA256 != first.SHA256 || again.Export.ExportID != first.Export.ExportID {
			t.Fatalf("replay: %+v, %v", again, err)
		}
		if n := len(exportKeys(f.memA)); n != 1 {
			t.Fatalf("%d exports after a replay, want 1", n)
		}
		f.noBackend()
	})
	t.Run("crash before candidate installation leaves no artifact", func(t *testing.T) {
		f := newFixture(t, v1Path)
		f.a.Mode, f.a.Kinds, f.a.KeyPart, f.a.At = faultFail, []string{"create"}, "recovery-exports", 1
		if _, err := f.tryExport(); err == nil {
			t.Fatal("a failed installation reported success")
		}
		if n := len(exportKeys(f.memA)); n != 0 {
			t.Fatalf("%d exports after a failed installation", n)
		}
		f.a.restart()
		if res, err := f.tryExport(); err != nil || !res.Created {
			t.Fatalf("retry after the crash: %v", err)
		}
		f.noBackend()
	})
	t.Run("lost create response is resolved by exact readback", func(t *testing.T) {
		f := newFixture(t, v1Path)
		f.a.Mode, f.a.Kinds, f.a.KeyPart, f.a.At = faultLoseResponse, []string{"create"}, "recovery-exports", 1
		res, err := f.tryExport()
		if err != nil || res.Export == nil {
			t.Fatalf("lost response: %v", err)
		}
		if n := len(exportKeys(f.memA)); n != 1 {
			t.Fatalf("%d exports", n)
		}
		f.noBackend()
	})
	t.Run("different bytes at the canonical ID are a conflict", func(t *testing.T) {
		f := newFixture(t, v1Path)
		first, _ := f.tryExport()
		f.memA.put(first.Key, []byte(`{"not":"the export"}`))
		if _, err := f.tryExport(); !errors.Is(err, ErrConflict) {
			t.Fatalf("err %v, want conflict", err)
		}
	})
	t.Run("a receipt is valid at its exact expiry instant", func(t *testing.T) {
		f := newFixture(t, v1Path)
		at := f.now.Add(ReceiptTTL)
		if _, err := CreateExport(context.Background(), f.pools(), f.ctl.ID, f.receipt, ExportOptions{Clock: func() time.Time { return at }, Actor: actor, Nonce: strings.Repeat("cd", 16)}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("stale receipt, other actor, changed ETag are refused", func(t *testing.T) {
		f := newFixture(t, v1Path)
		later := f.now.Add(ReceiptTTL + time.Nanosecond) // valid through its expiry instant only
		_, err := CreateExport(context.Background(), f.pools(), f.ctl.ID, f.receipt, ExportOptions{Clock: func() time.Time { return later }, Actor: actor, Nonce: strings.Repeat("cd", 16)})
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("expired: %v", err)
		}
		_, err = CreateExport(context.Background(), f.pools(), f.ctl.ID, f.receipt, ExportOptions{Clock: f.clock, Actor: "os-user:mallory", Nonce: strings.Repeat("cd", 16)})
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("other actor: %v", err)
		}
		b, _, _ := f.memB.Get(context.Background(), v1Path)
		f.memB.put(v1Path, append(b, ' '))
		if _, err := f.tryExport(); !errors.Is(err, ErrRefused) {
			t.Fatalf("changed ETag: %v", err)
		}
		if n := len(exportKeys(f.memA)); n != 0 {
			t.Fatalf("a refused export installed %d artifacts", n)
		}
	})
	t.Run("decoded export round-trips strictly", func(t *testing.T) {
		f := newFixture(t, v1Path)
		res, err := f.tryExport()
		if err != nil {
			t.Fatal(err)
		}
		got, err := GetExport(context.Background(), f.memA, res.Export.ExportID[:12])
		if err != nil || got.SHA256 != res.SHA256 || string(got.Export.Source) != string(res.Export.Source) {
			t.Fatalf("get by prefix: %v", err)
		}
		if strings.Contains(string(got.Bytes), "secret") || strings.Contains(string(got.Bytes), "dir:pool") {
			t.Fatal("export carries pool names")
		}
	})
}

// TestAdmission: a candidate over a count or byte limit is refused with a
// retryable capacity error before anything is written; a replay of an
// existing export consumes nothing and is admitted at the limit.
func TestAdmission(t *testing.T) {
	defer func(l Limits) { limits = l }(limits)
	f := newFixture(t, v1Path)
	limits = Limits{Exports: 0, Dispositions: 10, ExportBytes: 1 << 20, ControlDispoBytes: 1 << 20}
	if _, err := f.tryExport(); !errors.Is(err, ErrCapacity) {
		t.Fatalf("count limit: %v", err)
	}
	limits = Limits{Exports: 10, Dispositions: 10, ExportBytes: 100, ControlDispoBytes: 1 << 20}
	if _, err := f.tryExport(); !errors.Is(err, ErrCapacity) {
		t.Fatalf("byte limit: %v", err)
	}
	if n := len(exportKeys(f.memA)); n != 0 {
		t.Fatalf("a refused admission installed %d exports", n)
	}
	limits = Limits{Exports: 1, Dispositions: 0, ExportBytes: 1 << 20, ControlDispoBytes: 1 << 20}
	res, err := f.tryExport()
	if err != nil {
		t.Fatal(err)
	}
	f.export = res
	if again, err := f.tryExport(); err != nil || again.Created {
		t.Fatalf("replay at the limit: %v", err)
	}
	// The disposition is refused at its own limit, before any source copy
	// is touched.
	if _, err := f.abandon(true); !errors.Is(err, ErrCapacity) {
		t.Fatalf("disposition limit: %v", err)
	}
	if !f.memA.has(v1Path) || !f.memB.has(v1Path) || f.disposition() != nil {
		t.Fatal("a refused admission changed source evidence")
	}
	f.noBackend()
}
