package dailyrun

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// An ambiguous key is reported by every pass until it resolves, not only
// by the passes that meet it: the shard's list keeps it, each later pass
// reads it again and reports it (heartbeat ambiguous=1) though no event or
// walk reaches it, a dry run reports it and writes nothing, and once the
// key reads cleanly it leaves the list.
func TestAmbiguousKeyReportedUntilResolved(t *testing.T) {
	st := newFakeStore()
	st.addBucket("b", filer.VersioningSuspended)
	snap := snapshotOf("b", filer.VersioningSuspended, expireDays("r1", 1))
	first := ts("2026-11-30T12:00:00Z")
	st.put("b", "k", "null", first.Add(-3*day), 1)
	st.keyErrs = map[string]error{"b/k": fmt.Errorf("%w: k and k.versions/v_null both carry version ID \"null\"", filer.ErrAmbiguousLayout)}
	mod := func(c *Config) { c.WalkerInterval = 30 * day }

	pass := func(now time.Time, dry bool) *Result {
		t.Helper()
		res := runPass(t, context.Background(), st, snap, now, func(c *Config) { mod(c); c.DryRun = dry })
		if res.Status() != StatusOK {
			t.Fatalf("%s: status %s", now.Format(time.RFC3339), res.Status())
		}
		return res
	}
	if res := pass(first, false); res.AmbiguousKeys() != 1 || !strings.Contains(res.Heartbeat(), " ambiguous=1 ") {
		t.Fatalf("first pass: ambiguous %d, heartbeat %s", res.AmbiguousKeys(), res.Heartbeat())
	}
	shard := lifecycle.ShardID("b", "k")
	listed, err := LoadAmbiguous(context.Background(), st, shard)
	if err != nil || len(listed) != 1 || listed[0].Key != "k" || listed[0].FirstSeenNs != first.UnixNano() {
		t.Fatalf("list after the first pass: %+v, %v", listed, err)
	}

	// The next passes replay nothing of k and do not walk: only the list
	// brings it back.
	for d := 1; d <= 2; d++ {
		now := first.Add(time.Duration(d) * day)
		res := pass(now, d == 2)
		if res.AmbiguousKeys() != 1 || res.AmbiguousSinceNs != first.UnixNano() {
			t.Errorf("day %d: ambiguous %d since %d, want 1 since the first pass", d, res.AmbiguousKeys(), res.AmbiguousSinceNs)
		}
		listed, _ = LoadAmbiguous(context.Background(), st, shard)
		if want := first.Add(day).UnixNano(); len(listed) != 1 || listed[0].LastSeenNs != want {
			t.Errorf("day %d: list %+v, want k last seen on day 1 (a dry run writes nothing)", d, listed)
		}
	}

	// An operator fixes the key: the next pass finds it readable and
	// drops it.
	st.keyErrs = nil
	res := pass(first.Add(3*day), false)
	if res.AmbiguousKeys() != 0 || res.AmbiguousSinceNs != 0 {
		t.Errorf("after the fix: ambiguous %d since %d", res.AmbiguousKeys(), res.AmbiguousSinceNs)
	}
	if listed, err = LoadAmbiguous(context.Background(), st, shard); err != nil || len(listed) != 0 {
		t.Errorf("list after the fix: %+v, %v", listed, err)
	}
}

// A list that cannot be trusted is left as it is and reported; the pass
// goes on.
func TestCorruptAmbiguousListIsKept(t *testing.T) {
	st := newFakeStore()
	st.addBucket("b", filer.VersioningEnabled)
	snap := snapshotOf("b", filer.VersioningEnabled, expireDays("r1", 1))
	bad := []byte(`{"version":1,"shard_id":3,"keys":[],"extra":1}`)
	st.files[AmbiguousPath(3)] = bad
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T12:00:00Z"), nil)
	if res.Status() != StatusOK {
		t.Errorf("status %s", res.Status())
	}
	found := false
	for _, n := range res.Notices {
		found = found || n.Kind == NoticeAmbiguousListUnreadable && n.Shard == 3
	}
	if !found || string(st.files[AmbiguousPath(3)]) != string(bad) {
		t.Errorf("notices %+v; file %s", res.Notices, st.files[AmbiguousPath(3)])
	}
}
