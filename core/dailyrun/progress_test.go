package dailyrun

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"golang.org/x/time/rate"
)

// keysInShard returns n keys "prefix<i>" that shard owns.
func keysInShard(bucket, prefix string, n, shard int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		k := fmt.Sprintf("%s%03d", prefix, i)
		if lifecycle.ShardID(bucket, k) == shard {
			out = append(out, k)
		}
	}
	return out
}

// stepClock returns t and moves it on by step at every call.
type stepClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

func progressSnapshot(p *Progress) [5]int64 {
	return [5]int64{p.EventsReplayed.Load(), p.EntriesWalked.Load(), p.Dispatched.Load(), p.Done.Load(), p.LimiterWaitNs.Load()}
}

// The live counters end at the pass's own figures. A cold start counts
// what its recovery walk listed (8 objects, 1 upload) and dispatched (5
// expirations, 1 abort) and the 3 put events inside the 3-day replay
// window (the old objects' events are older). The replay of the fresh
// objects' shard on the day they come due counts their 3 events and
// deletes; each delete's limiter wait reaches OnLimiterWait, and the
// shard's duration is measured with Config.Clock.
func TestProgressCountsThePass(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	now := ts("2026-11-30T12:00:00Z")
	const shard = 5
	for _, k := range keysAvoiding("logs", "old-", 5, shard) {
		st.put("logs", k, "v1", now.Add(-100*time.Hour), 10) // due 11-29T00:00
	}
	fresh := keysInShard("logs", "new-", 3, shard)
	for _, k := range fresh {
		st.put("logs", k, "v1", now.Add(-time.Hour), 10) // due 12-03T00:00
	}
	st.uploads["logs"] = []filer.Upload{{Key: "big.bin", UploadID: "u1", Initiated: now.Add(-72 * time.Hour)}}
	snap := engine.Compile([]engine.Bucket{{Name: "logs", Rules: []lifecycle.Rule{
		expireDays("exp", 2),
		{ID: "mpu", Enabled: true, AbortMPUDays: 1},
	}}}, lifecycle.RoundAWS).Snapshot()

	var p1 Progress
	res := runPass(t, context.Background(), st, snap, now, func(c *Config) { c.Progress = &p1 })
	if res.Status() != StatusOK {
		t.Fatalf("cold start: status %s", res.Status())
	}
	var scanned int64
	var wait time.Duration
	for _, s := range res.Shards {
		scanned += s.EventsScanned
		wait += s.LimiterWait
	}
	if got, want := progressSnapshot(&p1), [5]int64{3, 9, 6, 6, 0}; got != want {
		t.Errorf("cold start progress [replayed walked dispatched done waitNs] = %v, want %v", got, want)
	}
	if p1.EventsReplayed.Load() != scanned || p1.Dispatched.Load() != int64(len(res.Actions)) || p1.LimiterWait() != wait {
		t.Errorf("cold start progress %v disagrees with the result: scanned %d, %d actions, wait %v",
			progressSnapshot(&p1), scanned, len(res.Actions), wait)
	}

	clock := &stepClock{t: now, step: time.Second}
	var mu sync.Mutex
	var waits []time.Duration
	var p2 Progress
	next := ts("2026-12-03T00:00:00Z")
	res = runPass(t, context.Background(), st, snap, next, func(c *Config) {
		c.Shards = []int{shard}
		c.InFlight = 1 // one delete at a time: the step clock's calls come in order
		c.Progress = &p2
		c.Clock = clock.now
		c.Limiter = rate.NewLimiter(rate.Inf, 1)
		c.OnLimiterWait = func(d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
		}
	})
	if res.Status() != StatusOK || len(st.remaining()) != 0 {
		t.Fatalf("replay: status %s (%v), remaining %v", res.Status(), shardOf(res, shard).Err, st.remaining())
	}
	// One shard, so the clock's calls come in order: the pass start, two
	// per delete around the limiter wait (3 deletes), the shard's end.
	if got, want := progressSnapshot(&p2), [5]int64{3, 0, 3, 3, int64(3 * time.Second)}; got != want {
		t.Errorf("replay progress [replayed walked dispatched done waitNs] = %v, want %v", got, want)
	}
	if want := []time.Duration{time.Second, time.Second, time.Second}; fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("OnLimiterWait saw %v, want %v", waits, want)
	}
	s := shardOf(res, shard)
	if s.LimiterWait != 3*time.Second || s.Duration != 7*time.Second || res.Duration != 8*time.Second {
		t.Errorf("shard limiter wait %v duration %v, pass %v; want 3s, 7s, 8s", s.LimiterWait, s.Duration, res.Duration)
	}
}

// A pass without a Progress counts nothing and runs as before.
func TestProgressNilIsSafe(t *testing.T) {
	var p *Progress
	p.addEvent()
	p.addWalked(3)
	p.addAction(&Action{Outcome: filer.OutcomeDone})
	p.addLimiterWait(time.Second)
}
