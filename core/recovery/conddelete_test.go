package recovery

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/metastore"
)

// The answers a pool's conditional-delete probe gives.
var (
	errIgnored = fmt.Errorf("s3://127.0.0.1:9000/meta/pool-b: %w: a DELETE of the probe with a wrong If-Match removed it; ilmctl deletes nothing in this pool: keep it on a server that honours it",
		metastore.ErrConditionalDeleteUnsupported)
	errUnanswered = errors.New("s3://127.0.0.1:9000/meta/pool-b: conditional-delete probe: write .ilmctl-tmp/delete-probe-00: connection refused")
)

// TestAbandonRefusedWithoutConditionalDelete: before its first write,
// abandon asks every pool it would delete a copy from whether its
// conditional delete is conditional. A server that showed it is not
// refuses the run (exit 1), one that could not be asked leaves it
// incomplete (exit 3); either way nothing is written or deleted, and the
// pool's own line is the message. A dry run asks nothing.
func TestAbandonRefusedWithoutConditionalDelete(t *testing.T) {
	cases := []struct {
		name   string
		answer error
		want   error
	}{
		{"server ignores If-Match on DELETE", errIgnored, ErrRefused},
		{"probe cannot be run", errUnanswered, ErrIncomplete},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, v1Path)
			f.doExport()
			f.b.DeleteCheck = func() error { return tc.answer }
			if _, err := f.abandon(false); err != nil || f.b.Checks != 0 {
				t.Fatalf("dry run: %v, %d checks; want success and no check", err, f.b.Checks)
			}
			f.a.Ops, f.b.Ops = nil, nil
			_, err := f.abandon(true)
			if !errors.Is(err, tc.want) || errors.Is(err, metastore.ErrConditionalDeleteUnsupported) != (tc.want == ErrRefused) {
				t.Fatalf("abandon = %v, want %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.answer.Error()) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("abandon error %q: want the pool's one line", err)
			}
			if writes(f.a)+writes(f.b) != 0 || f.disposition() != nil {
				t.Fatalf("a refused abandon wrote: %d writes, disposition %+v", writes(f.a)+writes(f.b), f.disposition())
			}
			if !f.memA.has(f.ctl.SourcePath) || !f.memB.has(f.ctl.SourcePath) {
				t.Fatal("a refused abandon deleted a copy")
			}
			// The server fixed, the same command completes.
			f.b.DeleteCheck = nil
			if _, err := f.abandon(true); err != nil {
				t.Fatal(err)
			}
			f.completed()
		})
	}
}

// TestAbandonServerChangesMidRun: a pool that passed the check before the
// first write and fails it before its own delete (the server behind the
// endpoint changed; the s3:// store asks again after its probe expires)
// is refused there: its copy is kept, the progress made so far stays, and
// the same command completes once the server honours If-Match again.
func TestAbandonServerChangesMidRun(t *testing.T) {
	f := newFixture(t, v1Path)
	f.doExport()
	calls := 0
	f.b.DeleteCheck = func() error {
		if calls++; calls > 1 {
			return errIgnored
		}
		return nil
	}
	_, err := f.abandon(true)
	if !errors.Is(err, ErrRefused) || !errors.Is(err, metastore.ErrConditionalDeleteUnsupported) {
		t.Fatalf("abandon = %v, want the refusal", err)
	}
	if s, n := f.progress(); s != Applying || n != 1 || f.memA.has(f.ctl.SourcePath) || !f.memB.has(f.ctl.SourcePath) {
		t.Fatalf("after the refusal: %s with %d confirmed, copy in a %v, in b %v; want Applying, a's copy gone, b's kept",
			s, n, f.memA.has(f.ctl.SourcePath), f.memB.has(f.ctl.SourcePath))
	}
	f.b.DeleteCheck = nil
	if _, err := f.abandon(true); err != nil {
		t.Fatal(err)
	}
	f.completed()
}

// TestPruneRefusedWithoutConditionalDelete: prune deletes only from the
// control pool, so only its answer counts: refused there, nothing is
// removed; a refusal from another pool does not stop it. A dry run, and a
// run with nothing to remove, ask nothing.
func TestPruneRefusedWithoutConditionalDelete(t *testing.T) {
	f := abandoned(t)
	key, xkey := f.ctl.Key(), f.export.Key
	f.a.DeleteCheck = func() error { return errIgnored }
	f.b.DeleteCheck = func() error { return errIgnored }
	f.a.Checks, f.b.Checks = 0, 0 // the abandon before asked
	if _, err := f.prune(false); err != nil || f.a.Checks+f.b.Checks != 0 {
		t.Fatalf("dry run: %v, %d checks", err, f.a.Checks+f.b.Checks)
	}
	_, err := f.prune(true)
	if !errors.Is(err, ErrRefused) || !errors.Is(err, metastore.ErrConditionalDeleteUnsupported) || err.Error() != errIgnored.Error() {
		t.Fatalf("prune = %v, want the control pool's refusal", err)
	}
	if writes(f.a)+writes(f.b) != 0 || !f.memA.has(key) || !f.memA.has(xkey) || f.b.Checks != 0 {
		t.Fatalf("a refused prune wrote %d, control kept %v, export kept %v, other pool asked %d times",
			writes(f.a)+writes(f.b), f.memA.has(key), f.memA.has(xkey), f.b.Checks)
	}
	f.a.DeleteCheck = nil
	res, err := f.prune(true)
	if err != nil || res.Items[0].Action != PruneRemoved || f.memA.has(key) || f.memA.has(xkey) {
		t.Fatalf("prune on a conditional control pool: %v %+v", err, res)
	}
	f.a.Checks = 0
	if _, err := f.prune(true); err != nil || f.a.Checks != 0 {
		t.Fatalf("nothing to remove: %v, %d checks", err, f.a.Checks)
	}
}
