package recovery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

const otherActor = "os-user:second-operator"

// TestDispositionOwnership pauses operator A at one step of its abandon
// and runs operator B's whole abandon (B's own inspect and receipt) right
// there, deterministically: B is refused while A's lease is live; after
// it expires (plus the clock-skew allowance) B takes over as a new owner,
// A deletes nothing more, and the records name B as who applied it.
func TestDispositionOwnership(t *testing.T) {
	cases := []struct {
		name      string
		kind      string // A's operation B runs in front of
		keyPart   string
		at        int  // the at-th such operation of A
		expire    bool // let A's lease expire before B runs
		bErr      error
		aErr      error
		completer string
		aDeletes  int // deletions A issues
	}{
		{"B while A holds the lease, before A's first delete", "delete", "tier-delete-journal", 1, false, ErrRefused, nil, actor, 2},
		{"B while A holds the lease, between A's deletes", "cas", "recovery-dispositions", 4, false, ErrRefused, nil, actor, 2},
		{"B after A's lease expired, A paused at its renewal", "cas", "recovery-dispositions", 2, true, nil, ErrConflict, otherActor, 0},
		{"B after A's lease expired, A paused after one delete", "cas", "recovery-dispositions", 4, true, nil, ErrConflict, otherActor, 1},
		{"B first, A's Prepared loses the create-only race", "create", "recovery-dispositions", 1, false, nil, ErrConflict, otherActor, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, v1Path)
			f.doExport()
			aReceipt := f.receipt
			var bRes *AbandonResult
			bErr := errors.New("B never ran")
			n := 0
			var bWindow [2][2]int // [pool][start,end) of B's ops inside A's
			f.a.Ops, f.b.Ops = nil, nil
			f.a.Pause = func(kind, key string) {
				if kind != tc.kind || !strings.Contains(key, tc.keyPart) {
					return
				}
				if n++; n != tc.at {
					return
				}
				f.a.Pause = nil
				if tc.expire {
					d := f.disposition()
					f.now = time.Unix(0, d.LeaseExpiresAtUnixNanos).Add(ClockSkew + time.Second)
				}
				in, err := Inspect(context.Background(), f.pools(), f.ctl.ID, InspectOptions{Clock: f.clock, Actor: otherActor, Nonce: strings.Repeat("ef", 16)})
				if err != nil {
					t.Fatal(err)
				}
				bWindow[0][0], bWindow[1][0] = len(f.a.Ops), len(f.b.Ops)
				bRes, bErr = f.abandonAs(otherActor, in.Receipt, true)
				bWindow[0][1], bWindow[1][1] = len(f.a.Ops), len(f.b.Ops)
			}
			_, aErr := f.abandonAs(actor, aReceipt, true)
			if (tc.bErr == nil) != (bErr == nil) || (tc.bErr != nil && !errors.Is(bErr, tc.bErr)) {
				t.Fatalf("B: %v, want %v", bErr, tc.bErr)
			}
			if (tc.aErr == nil) != (aErr == nil) || (tc.aErr != nil && !errors.Is(aErr, tc.aErr)) {
				t.Fatalf("A: %v, want %v", aErr, tc.aErr)
			}
			var held *LeaseHeldError
			if errors.As(bErr, &held) && (held.Owner != actor || !strings.Contains(bErr.Error(), actor) || !strings.Contains(bErr.Error(), "until")) {
				t.Fatalf("B's refusal does not name the holder and its expiry: %v", bErr)
			}
			if tc.bErr == nil && tc.expire && !strings.Contains(bRes.TookOverFrom, actor) {
				t.Fatalf("B's takeover does not name A: %+v", bRes)
			}
			if tc.aErr != nil && tc.expire && !strings.Contains(aErr.Error(), otherActor) {
				t.Fatalf("A's error does not name who took over: %v", aErr)
			}
			f.completed()
			if got := f.control().Disposition.Actor; got != tc.completer {
				t.Fatalf("control records %s as the applier, want %s", got, tc.completer)
			}
			if d := f.disposition(); d.OwnerID != tc.completer {
				t.Fatalf("disposition owner %s, want %s", d.OwnerID, tc.completer)
			}
			aDel := 0
			for p, fs := range []*faultStore{f.a, f.b} {
				for i, o := range fs.Ops {
					if o.Kind == "delete" && (i < bWindow[p][0] || i >= bWindow[p][1]) {
						aDel++
					}
				}
			}
			if aDel != tc.aDeletes {
				t.Fatalf("A issued %d deletions, want %d", aDel, tc.aDeletes)
			}
			f.noBackend()
		})
	}
}

// TestAbandonRefusalMatchesInspect: inspect reports exactly what abandon
// will refuse (one decision, AbandonRefusal): a live retry lease and a
// disposition owned by another live claim.
func TestAbandonRefusalMatchesInspect(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		setup func(f *fixture)
	}{
		{"live retry lease", func(f *fixture) {
			if _, err := RequestRetry(ctx, f.a, RetryRequest{ControlID: f.ctl.ID, Actor: otherActor, OwnerEpoch: "7f1c0000-0000-4000-8000-0000000000ff", Clock: f.clock, Execute: true}); err != nil {
				t.Fatal(err)
			}
		}},
		{"disposition owned by another live claim", func(f *fixture) {
			// B's run crashes right after its Prepared install.
			f.a.Mode, f.a.Kinds, f.a.KeyPart, f.a.At = faultCrashAfter, []string{"create"}, "recovery-dispositions", 1
			if _, err := f.abandonAs(otherActor, mustInspect(t, f, otherActor).Receipt, true); err == nil {
				t.Fatal("crash not reported")
			}
			f.a.restart()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, v1Path)
			f.doExport()
			tc.setup(f)
			in := mustInspect(t, f, actor)
			_, err := f.abandonAs(actor, in.Receipt, true)
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("abandon: %v, want refused", err)
			}
			if in.Ready || in.AbandonRefusal != err.Error() {
				t.Fatalf("inspect says ready=%v abandon_refused=%q; abandon says %q", in.Ready, in.AbandonRefusal, err)
			}
		})
	}
}

func mustInspect(t *testing.T, f *fixture, who string) *Inspection {
	t.Helper()
	in, err := Inspect(context.Background(), f.pools(), f.ctl.ID, InspectOptions{Clock: f.clock, Actor: who, Nonce: strings.Repeat("ab", 16)})
	if err != nil {
		t.Fatal(err)
	}
	return in
}
