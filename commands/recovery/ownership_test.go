package recovery

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/core/metastore"
	core "github.com/ilmctl/ilmctl/core/recovery"
)

// actorStore is a pool seen as a given operator, pausing before
// one chosen operation to run another operator's command there.
type actorStore struct {
	metastore.Store
	actor string
	pause func(kind, key string)
}

func (s actorStore) Actor(context.Context) (string, error) { return s.actor, nil }
func (s actorStore) PutIfMatch(ctx context.Context, k string, d []byte, e string) (string, error) {
	if s.pause != nil {
		s.pause("cas", k)
	}
	return s.Store.PutIfMatch(ctx, k, d, e)
}
func (s actorStore) DeleteIfMatch(ctx context.Context, k, e string) error {
	if s.pause != nil {
		s.pause("delete", k)
	}
	return s.Store.DeleteIfMatch(ctx, k, e)
}

// TestDispositionOwnershipDirPools: operator A (alice) is paused inside
// her abandon on dir: pools while operator B (bob) runs inspect and
// abandon with his own receipt. While A's lease is live B is refused,
// naming alice and the expiry; after it expired B takes over, A deletes
// nothing more and fails, and the control names bob.
func TestDispositionOwnershipDirPools(t *testing.T) {
	testDispositionOwnership(t, func(t *testing.T) (string, string) {
		a, b, _ := setup(t)
		return a, b
	})
}

// testDispositionOwnership runs the ownership cases on the pools pools
// makes (after setup's clock and hooks), as specs for --meta.
func testDispositionOwnership(t *testing.T, pools func(t *testing.T) (a, b string)) {
	cases := []struct {
		name      string
		kind      string
		at        int // the at-th such operation of A's on a disposition or journal
		expire    bool
		bCode     int
		bSays     string
		aCode     int
		aSays     string
		appliedBy string
	}{
		{"bob while alice holds the lease", "delete", 1, false, 1, "owned by os-user:alice", 0, "", "os-user:alice"},
		{"bob after alice's lease expired", "cas", 2, true, 0, "", 1, "taken over by os-user:bob", "os-user:bob"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := pools(t)
			metas := []string{"--meta", a, "--meta", b}
			if _, _, code := run(t, append([]string{"scan"}, metas...)...); code != 0 {
				t.Fatal("scan failed")
			}
			epochs := 0
			ownerEpoch = func() string { epochs++; return fmt.Sprintf("7f1c0000-0000-4000-8000-%012d", epochs) }
			t0 := now()
			var pause func(kind, key string)
			as := func(who string) {
				openStore = func(ctx context.Context, url string) (metastore.Store, error) {
					s, err := clientmeta.Open(ctx, url)
					if err != nil {
						return nil, err
					}
					p := pause
					if who != "os-user:alice" {
						p = nil
					}
					return actorStore{s, who, p}, nil
				}
			}
			work := t.TempDir()
			id := controlOf(t, a)
			flow := func(who string) (receipt, exportID, exportSHA string) {
				receipt = filepath.Join(work, who+".receipt.json")
				as(who)
				if _, errs, code := run(t, append([]string{"inspect", id, "--receipt-out", receipt, "--force"}, metas...)...); code != 0 {
					t.Fatalf("%s inspect: %s", who, errs)
				}
				out, errs, code := run(t, append([]string{"export", id, "--receipt", receipt, "-o", "json"}, metas...)...)
				if code != 0 {
					t.Fatalf("%s export: %s", who, errs)
				}
				x := mustJSON(t, out)
				return receipt, x["export_id"].(string), x["export_sha256"].(string)
			}
			abandon := func(who, receipt, exportID, exportSHA string) (string, int) {
				as(who)
				_, errs, code := run(t, append([]string{"abandon", id, "--receipt", receipt, "--export-id", exportID, "--export-sha256", exportSHA,
					"--reason", "legacy_remote_cleanup_abandoned", "--confirm", "--acknowledge-remote-cleanup-abandoned"}, metas...)...)
				return errs, code
			}
			aReceipt, exportID, exportSHA := flow("os-user:alice")
			var bErrs string
			bCode := -1
			n := 0
			pause = func(kind, key string) {
				if kind != tc.kind || !(strings.Contains(key, "recovery-dispositions") || strings.Contains(key, "tier-delete-journal")) {
					return
				}
				if n++; n != tc.at {
					return
				}
				pause = nil
				if tc.expire {
					now = func() time.Time { return t0.Add(core.DispositionLease + core.ClockSkew + time.Minute) }
				}
				bReceipt := filepath.Join(work, "bob.receipt.json")
				as("os-user:bob")
				if _, errs, code := run(t, append([]string{"inspect", id, "--receipt-out", bReceipt, "--force"}, metas...)...); code != 0 {
					t.Fatalf("bob inspect: %s", errs)
				}
				bErrs, bCode = abandon("os-user:bob", bReceipt, exportID, exportSHA)
				as("os-user:alice")
			}
			aErrs, aCode := abandon("os-user:alice", aReceipt, exportID, exportSHA)
			if bCode != tc.bCode || !strings.Contains(bErrs, tc.bSays) || (tc.bCode != 0 && !strings.Contains(bErrs, "until")) {
				t.Fatalf("bob: exit %d, want %d saying %q:\n%s", bCode, tc.bCode, tc.bSays, bErrs)
			}
			if aCode != tc.aCode || !strings.Contains(aErrs, tc.aSays) {
				t.Fatalf("alice: exit %d, want %d saying %q:\n%s", aCode, tc.aCode, tc.aSays, aErrs)
			}
			if tc.expire && !strings.Contains(bErrs, `"took_over_from":"os-user:alice`) {
				t.Fatalf("bob's audit line does not name whom he took over from:\n%s", bErrs)
			}
			ctx := context.Background()
			st, err := clientmeta.Open(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			ctl, _, err := core.FindControl(ctx, st, id)
			if err != nil {
				t.Fatal(err)
			}
			if ctl.Classification != core.Abandoned || ctl.Disposition.Actor != tc.appliedBy {
				t.Fatalf("control %s applied by %v, want abandoned by %s", ctl.Classification, ctl.Disposition, tc.appliedBy)
			}
			for _, p := range []string{a, b} {
				s, err := clientmeta.Open(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := s.Get(ctx, v1Path); !errors.Is(err, metastore.ErrNotFound) {
					t.Fatalf("the journal survived in %s: %v", p, err)
				}
			}
		})
	}
}

// controlOf is the v1 journal's control ID (after a scan) in pool, a
// --meta spec.
func controlOf(t *testing.T, pool string) string {
	t.Helper()
	st, err := clientmeta.Open(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	err = metastore.ListAll(context.Background(), st, core.ControlPrefix, 100, func(objs []metastore.Object) error {
		for _, o := range objs {
			b, _, _ := st.Get(context.Background(), o.Key)
			if c, err := core.DecodeControl(o.Key, b); err == nil && c.SourcePath == v1Path {
				id = c.ID
			}
		}
		return nil
	})
	if err != nil || id == "" {
		t.Fatalf("no control for the v1 journal: %v", err)
	}
	return id
}

// TestReceiptSizeBound: a receipt file over core.MaxReceiptSize is a
// usage error before it is read into memory or decoded.
func TestReceiptSizeBound(t *testing.T) {
	a, b, _ := setup(t)
	big := filepath.Join(t.TempDir(), "receipt.json")
	if err := os.WriteFile(big, []byte("{"+strings.Repeat(" ", core.MaxReceiptSize)+"}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"export", "160f3effd967", "--receipt", big},
		{"abandon", "160f3effd967", "--receipt", big, "--export-id", strings.Repeat("a", 64), "--export-sha256", strings.Repeat("b", 64), "--reason", "legacy_remote_cleanup_abandoned"},
	} {
		_, errs, code := run(t, append(args, "--meta", a, "--meta", b)...)
		if code != 2 || !strings.Contains(errs, "larger than") {
			t.Fatalf("%s: exit %d\n%s", args[0], code, errs)
		}
	}
}
