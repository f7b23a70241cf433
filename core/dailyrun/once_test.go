package dailyrun

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Over generated histories whose meta-log is sharded by filer path, as
// SeaweedFS's is (one version's put, demotion and noncurrent stamp reach
// different shards), every pass sends at most one delete per target and
// reports at most one action per target, and leaves what a walk of every
// rule leaves: a target seen by two shards is dispatched by one of them,
// never dropped.
func TestPathShardedReplayDispatchesEachTargetOnce(t *testing.T) {
	snap := diffSnapshot()
	for _, seed := range []uint64{21, 22, 23} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			start := ts("2026-03-01T06:00:00Z")
			replay, walk := newDiffWorld(seed, start), newDiffWorld(seed, start)
			replay.st.pathEvents = true
			deletes := 0
			sameDays(start, 30, replay, walk, func(d int, now time.Time) {
				mod := func(c *Config) { c.WalkerInterval, c.PageSize = 0, 7 }
				rr := runStore(t, replay.st, snap, now, mod)
				runStore(t, walkOnly{walk.st}, snap, now, mod)
				if rr.Status() != StatusOK {
					t.Fatalf("day %d: status %s", d, rr.Status())
				}
				sent := map[string]int{}
				for _, req := range replay.st.deletes {
					target := req.Bucket + "/" + req.Key + "@" + req.Expected.VersionID + "#" + req.Expected.UploadID
					if sent[target]++; sent[target] == 2 {
						t.Errorf("day %d: %s sent twice", d, target)
					}
				}
				reported := map[string]int{}
				for _, a := range rr.Actions {
					target := a.Bucket + "/" + a.Key + "@" + a.VersionID + "#" + a.UploadID
					if reported[target]++; reported[target] == 2 {
						t.Errorf("day %d: %s reported twice", d, target)
					}
				}
				deletes += len(replay.st.deletes)
				if diff := cmp.Diff(walk.st.remaining(), replay.st.remaining()); diff != "" {
					t.Fatalf("day %d: what a path-sharded replay left differs from a walk (-walk +replay):\n%s", d, diff)
				}
			})
			if deletes < 30 {
				t.Errorf("%d deletes over 30 days: the histories exercise too little", deletes)
			}
		})
	}
}
