package dailyrun

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// killingStore is a store whose pass is killed (its context cancelled)
// right after the store applied its after-th delete, as kill -9 would stop
// a process between a delete and its cursor save.
type killingStore struct {
	*loggedStore
	after int32
	n     atomic.Int32
	kill  context.CancelFunc
}

func (k *killingStore) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	out, err := k.loggedStore.LifecycleDelete(ctx, req)
	if k.n.Add(1) == k.after {
		k.kill()
	}
	return out, err
}

// Over generated histories whose meta-log carries SeaweedFS's filer paths
// (one version's put, demotion and noncurrent stamp have paths in
// different shards), every target has one owner shard, the shard of its
// key, whichever host runs it: each day the sixteen shards are split
// between one to three hosts running side by side, and some days one host
// is killed right after a delete and its shards are left until the next
// day. Over the whole history no delete of a target is ever sent twice
// while the first completed (DONE), every action is its key's shard's,
// and every day with no kill leaves what a walk of every rule leaves:
// nothing dropped, no second delete marker.
func TestEachTargetHasOneOwner(t *testing.T) {
	snap := diffSnapshot()
	for _, seed := range []uint64{21, 22, 23, 24, 25, 26} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			start := ts("2026-03-01T06:00:00Z")
			replay, walk := newDiffWorld(seed, start), newDiffWorld(seed, start)
			replay.st.pathEvents = true
			rng := rand.New(rand.NewPCG(seed, 23))
			deletes, kills := 0, 0
			sameDays(start, 30, replay, walk, func(d int, now time.Time) {
				// A target DONE twice in one day was deleted twice (on
				// other days a version can be latest again).
				done := map[string]int{}
				mod := func(c *Config) { c.WalkerInterval, c.PageSize = 0, 7 }
				runStore(t, walkOnly{walk.st}, snap, now, mod)

				hosts := make([][]int, 1+rng.IntN(3))
				for _, shard := range rng.Perm(lifecycle.ShardCount) {
					h := rng.IntN(len(hosts))
					hosts[h] = append(hosts[h], shard)
				}
				killed := -1
				if d > 0 && d < 29 && rng.IntN(3) == 0 {
					killed = rng.IntN(len(hosts))
				}
				results := make([]*Result, len(hosts))
				errs := make([]error, len(hosts))
				var wg sync.WaitGroup
				for h, shards := range hosts {
					if len(shards) == 0 {
						continue
					}
					var st filer.Store = replay.st
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					if h == killed {
						st = &killingStore{loggedStore: replay.st, after: int32(1 + rng.IntN(4)), kill: cancel}
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						cfg := Config{Store: st, Snapshot: snap, RunNow: now, Clock: func() time.Time { return now },
							Retry: RetryPolicy{Sleep: (&noSleep{}).sleep}, Shards: shards}
						mod(&cfg)
						results[h], errs[h] = Run(ctx, cfg)
					}()
				}
				wg.Wait()
				for h, r := range results {
					if r == nil {
						continue
					}
					if errs[h] != nil {
						t.Fatalf("day %d host %d: %v", d, h, errs[h])
					}
					if h != killed && r.Status() != StatusOK {
						t.Fatalf("day %d host %d: status %s", d, h, r.Status())
					}
					for _, a := range r.Actions {
						target := a.Bucket + "/" + a.Key + "@" + a.VersionID + "#" + a.UploadID + " " + string(a.Kind)
						if owner := lifecycle.ShardID(a.Bucket, a.Key); a.Shard != owner {
							t.Errorf("day %d: %s dispatched by shard %d, its owner is %d", d, target, a.Shard, owner)
						}
						if a.Outcome != filer.OutcomeDone {
							continue
						}
						if first, ok := done[target]; ok {
							t.Errorf("day %d: %s DONE again (first on day %d)", d, target, first)
						}
						done[target] = d
					}
				}
				sent := map[string]int{}
				for _, req := range replay.st.deletes {
					target := req.Bucket + "/" + req.Key + "@" + req.Expected.VersionID + "#" + req.Expected.UploadID + " " + string(req.Kind)
					if sent[target]++; sent[target] == 2 {
						t.Errorf("day %d: %s sent twice", d, target)
					}
				}
				deletes += len(replay.st.deletes)
				if killed >= 0 {
					// Run again, on one host: it finishes what the killed
					// host left, and sends nothing the killed host's
					// deletes completed. Then both worlds pass again until
					// a pass finds nothing due: the kill and the rerun
					// are two passes of one day, which can do what the
					// next day's pass would (an object delete marker left
					// alone by a delete of the first is expired now).
					kills++
					replay.st.deletes = nil
					r := runStore(t, replay.st, snap, now, mod)
					if r.Status() != StatusOK {
						t.Fatalf("day %d: the run after the kill: status %s", d, r.Status())
					}
					for _, a := range r.Actions {
						target := a.Bucket + "/" + a.Key + "@" + a.VersionID + "#" + a.UploadID + " " + string(a.Kind)
						if _, ok := done[target]; ok && a.Outcome == filer.OutcomeDone {
							t.Errorf("day %d: %s DONE again after the kill", d, target)
						}
					}
					for range 4 {
						rw, rr := runStore(t, walkOnly{walk.st}, snap, now, mod), runStore(t, replay.st, snap, now, mod)
						if len(rw.Actions)+len(rr.Actions) == 0 {
							break
						}
					}
				}
				if diff := cmp.Diff(walk.st.remaining(), replay.st.remaining()); diff != "" {
					t.Fatalf("day %d (%d hosts): what replay left differs from a walk (-walk +replay):\n%s", d, len(hosts), diff)
				}
			})
			if deletes < 30 || kills == 0 {
				t.Errorf("%d deletes and %d kills over 30 days: the histories exercise too little", deletes, kills)
			}
		})
	}
}
