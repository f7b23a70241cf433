package recovery

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRequestRetry(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, v5Path) // needs_source_proof: retrying
	// Exhaust the automatic budget.
	for i := 0; i < 40; i++ {
		f.now = f.now.Add(2 * time.Hour)
		if _, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock}); err != nil {
			t.Fatal(err)
		}
	}
	before := f.control()
	if before.Classification != OperatorRequired {
		t.Fatalf("%s", before.Classification)
	}
	req := RetryRequest{ControlID: f.ctl.ID, Actor: actor, OwnerEpoch: "7f1c0000-0000-4000-8000-000000000001", Clock: f.clock}
	f.a.Ops = nil
	if _, err := RequestRetry(ctx, f.a, req); err != nil || writes(f.a) != 0 {
		t.Fatalf("dry run: %v, %d writes", err, writes(f.a))
	}
	req.Execute = true
	res, err := RequestRetry(ctx, f.a, req)
	if err != nil {
		t.Fatal(err)
	}
	after := f.control()
	if after.Classification != Retrying || after.OwnerID != actor || after.OwnerEpoch != req.OwnerEpoch ||
		after.LeaseExpiresAtUnixNanos != f.now.Add(RecoveryLease).UnixNano() || !after.Due(f.now) {
		t.Fatalf("after retry: %+v", after)
	}
	if after.AttemptCount != before.AttemptCount || after.FirstSeenAtUnixNanos != before.FirstSeenAtUnixNanos || res.After.Revision != before.Revision+1 {
		t.Fatal("retry changed the lifetime count or lineage")
	}
	// A second request while the lease is live is refused.
	if _, err := RequestRetry(ctx, f.a, req); !errors.Is(err, ErrRefused) {
		t.Fatalf("second retry under a live lease: %v", err)
	}
	// The next scan makes exactly one bounded attempt; it fails again and
	// goes straight back to operator_required.
	rep, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	if it := byPath(rep)[v5Path]; it.Attempt != AttemptEscalate {
		t.Fatalf("attempt after retry: %+v", it)
	}
	c := f.control()
	if c.Classification != OperatorRequired || c.AttemptCount != before.AttemptCount+1 || c.OwnerID != "" {
		t.Fatalf("after the bounded attempt: %+v", c)
	}
	f.noBackend()
}
