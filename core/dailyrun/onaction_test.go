package dailyrun

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// OnAction sees every recorded action exactly once, outcome included, one
// call at a time, in the order the pass logged them: a halted dispatch as
// well as completed ones, walker and replay alike.
func TestRunOnActionStreamsEveryAction(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	var keys []string
	for i := 0; i < 40; i++ {
		key := fmt.Sprintf("k%02d.log", i)
		keys = append(keys, key)
		st.put("logs", key, "v1", ts("2026-11-01T10:00:00Z"), 10)
	}
	halt := keys[7]
	st.script = func(r filer.DeleteRequest, _ int) (filer.Outcome, error, bool) {
		return filer.OutcomeRetryLater, nil, r.Key == halt
	}
	var inFlight, overlaps atomic.Int32
	var streamed []Action
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1)),
		ts("2026-11-30T00:00:00Z"), func(c *Config) {
			c.OnAction = func(a Action) {
				if inFlight.Add(1) != 1 {
					overlaps.Add(1)
				}
				streamed = append(streamed, a)
				inFlight.Add(-1)
			}
		})
	if overlaps.Load() != 0 {
		t.Fatalf("%d OnAction calls overlapped another", overlaps.Load())
	}
	if res.Status() != StatusHalted {
		t.Fatalf("status %s, want halted by %s", res.Status(), halt)
	}
	if len(streamed) != len(res.Actions) {
		t.Fatalf("streamed %d actions, result holds %d", len(streamed), len(res.Actions))
	}
	// Result.Actions is sorted by shard, stably: the stream in that order
	// is exactly the result.
	sorted := append([]Action(nil), streamed...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Shard < sorted[j].Shard })
	if diff := cmp.Diff(res.Actions, sorted); diff != "" {
		t.Fatalf("stream differs from Result.Actions (-result +stream):\n%s", diff)
	}
	outcomes := map[filer.Outcome]int{}
	for _, a := range streamed {
		outcomes[a.Outcome]++
		if a.Outcome == filer.OutcomeRetryLater && a.Key != halt {
			t.Errorf("RETRY_LATER streamed for %s", a.Key)
		}
	}
	haltShard := lifecycle.ShardID("logs", halt)
	if outcomes[filer.OutcomeRetryLater] != 1 || outcomes[filer.OutcomeDone] != len(res.Actions)-1 {
		t.Errorf("outcomes %v (shard %d halted)", outcomes, haltShard)
	}
}

// A nil OnAction is the default and records as before.
func TestRunOnActionNil(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	st.put("logs", "a.log", "v1", ts("2026-11-01T10:00:00Z"), 10)
	res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1)), ts("2026-11-30T00:00:00Z"), nil)
	if len(res.Actions) != 1 || res.Actions[0].Outcome != filer.OutcomeDone {
		t.Fatalf("actions %+v", res.Actions)
	}
}
