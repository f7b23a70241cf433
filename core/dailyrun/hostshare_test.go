package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

func TestHostShareOrder(t *testing.T) {
	for _, tc := range []struct {
		h     HostShare
		first []int // the first Size shards of Order: the host's block
	}{
		{HostShare{0, 1}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{HostShare{0, 2}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{HostShare{1, 2}, []int{8, 9, 10, 11, 12, 13, 14, 15}},
		{HostShare{0, 3}, []int{0, 1, 2, 3, 4}},
		{HostShare{1, 3}, []int{5, 6, 7, 8, 9}},
		{HostShare{2, 3}, []int{10, 11, 12, 13, 14, 15}},
		{HostShare{3, 4}, []int{12, 13, 14, 15}},
		{HostShare{6, 16}, []int{6}},
	} {
		order := tc.h.Order()
		if got := order[:tc.h.Size()]; !cmp.Equal(got, tc.first) {
			t.Errorf("%d/%d block = %v, want %v", tc.h.Index, tc.h.Hosts, got, tc.first)
		}
		// Every shard once, wrapping from the block's first.
		for i, id := range order {
			if want := (tc.first[0] + i) % lifecycle.ShardCount; id != want {
				t.Fatalf("%d/%d order = %v: not every shard once from %d", tc.h.Index, tc.h.Hosts, order, tc.first[0])
			}
		}
	}
	// However many hosts, their blocks cover the 16 shards once, and
	// differ in size by at most one.
	for n := 1; n <= MaxHosts; n++ {
		seen := map[int]int{}
		lo, hi := lifecycle.ShardCount, 0
		for i := range n {
			h := HostShare{i, n}
			lo, hi = min(lo, h.Size()), max(hi, h.Size())
			for _, id := range h.Order()[:h.Size()] {
				seen[id]++
			}
		}
		if len(seen) != lifecycle.ShardCount || hi-lo > 1 {
			t.Errorf("%d hosts: blocks cover %d shards, sizes %d-%d", n, len(seen), lo, hi)
		}
		for id, c := range seen {
			if c != 1 {
				t.Errorf("%d hosts: shard %d in %d blocks", n, id, c)
			}
		}
	}
}

func TestHostShareCheck(t *testing.T) {
	for _, tc := range []struct {
		h       HostShare
		wantErr string
	}{
		{HostShare{0, 1}, ""},
		{HostShare{15, 16}, ""},
		{HostShare{0, 0}, "0 hosts: a fleet has 1 to 16"},
		{HostShare{0, 17}, "17 hosts"},
		{HostShare{2, 2}, "index 2 of 2 hosts: it must be 0 to 1"},
		{HostShare{-1, 4}, "index -1 of 4 hosts"},
	} {
		err := tc.h.Check()
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.h, err)
			}
			continue
		}
		if !errors.Is(err, ErrBadHostShare) || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%+v: err %v, want %q", tc.h, err, tc.wantErr)
		}
	}
	_, err := Run(context.Background(), Config{Store: newFakeStore(), Snapshot: snapshotOf("logs", filer.VersioningOff),
		RunNow: ts("2026-11-30T12:00:00Z"), Clock: func() time.Time { return ts("2026-11-30T12:00:00Z") },
		Shards: []int{1}, HostShare: HostShare{0, 2}})
	if !errors.Is(err, ErrBadHostShare) {
		t.Errorf("Shards and HostShare together: err %v, want ErrBadHostShare", err)
	}
}

// fleetFixture is a store whose 16 shards each hold two keys due at
// 2026-11-30, with cursors saved by an earlier pass, and the lease service
// the fleet's hosts share.
func fleetFixture(t *testing.T) (*leasingStore, map[int][]string, func(owner string, h HostShare) *Result) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1))
	runPass(t, context.Background(), st, snap, ts("2026-11-20T00:00:00Z"), nil)
	keys := map[int][]string{}
	for id := range lifecycle.ShardCount {
		keys[id] = keysInShard("logs", fmt.Sprintf("s%02d-", id), 2, id)
		for _, k := range keys[id] {
			st.put("logs", k, "v1", ts("2026-11-21T10:00:00Z"), 10)
		}
	}
	l := newLeasingStore(st)
	run := func(owner string, h HostShare) *Result {
		return runPass(t, context.Background(), st, snap, ts("2026-11-30T12:00:00Z"), func(c *Config) {
			leaseConfig(l)(c)
			c.LeaseOwner, c.HostShare = owner, h
		})
	}
	return l, keys, run
}

// ranBy maps each shard that ran (ok) to the hosts that ran it.
func ranBy(results map[string]*Result) map[int][]string {
	out := map[int][]string{}
	for host, res := range results {
		for _, s := range res.Shards {
			if s.Status == StatusOK {
				out[s.Shard] = append(out[s.Shard], host)
			}
		}
	}
	return out
}

// Two identical hosts, 0/2 and 1/2, started together against one lease
// service, run the 16 shards between them, each shard once: every due key
// is deleted by exactly one delete.
func TestTwoHostsRunEveryShardOnce(t *testing.T) {
	l, keys, run := fleetFixture(t)
	results := map[string]*Result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			host := fmt.Sprintf("host-%d", i)
			res := run(host, HostShare{i, 2})
			mu.Lock()
			results[host] = res
			mu.Unlock()
		}()
	}
	wg.Wait()

	ran := ranBy(results)
	for id := range lifecycle.ShardCount {
		if len(ran[id]) != 1 {
			t.Errorf("shard %d ran on %v, want one host", id, ran[id])
		}
	}
	for host, res := range results {
		if n := len(res.Shards) - countStatus(res, StatusLeased); n != 8 {
			t.Errorf("%s ran %d shards, want its 8", host, n)
		}
		if res.Unfinished() {
			t.Errorf("%s: pass %s", host, res.Status())
		}
	}
	tries := map[string]int{}
	for _, d := range l.deletes {
		tries[d.Key]++
	}
	for id, ks := range keys {
		for _, k := range ks {
			if tries[k] != 1 {
				t.Errorf("shard %d key %s: %d deletes, want 1", id, k, tries[k])
			}
		}
	}
	if rem := l.remaining(); len(rem) != 0 {
		t.Errorf("left: %v", rem)
	}
}

// One after the other, the second host still runs only its block: the
// first took its own 8 and no more, so a head start does not leave one
// host with every shard at 1/N of the rate.
func TestHostTakesOnlyItsShare(t *testing.T) {
	_, _, run := fleetFixture(t)
	a := run("host-0", HostShare{0, 2})
	b := run("host-1", HostShare{1, 2})
	if got := okShards(a); !cmp.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("host 0 ran %v", got)
	}
	if got := okShards(b); !cmp.Equal(got, []int{8, 9, 10, 11, 12, 13, 14, 15}) {
		t.Errorf("host 1 ran %v", got)
	}
	if len(a.Shards) != 8 || len(b.Shards) != 8 {
		t.Errorf("reports list %d and %d shards, want each host's 8", len(a.Shards), len(b.Shards))
	}
}

// A shard of a host's block that someone else holds (an overrunning pass)
// ends leased there, and the host takes the next free shard instead, so
// every free shard still runs. The next host, starting after the first
// released it, runs that shard again from the cursor the first saved:
// a second run in a day deletes nothing twice.
func TestHeldShardShiftsTheShare(t *testing.T) {
	l, keys, run := fleetFixture(t)
	l.holder[3] = "yesterday"
	a := run("host-0", HostShare{0, 2})
	b := run("host-1", HostShare{1, 2})
	if got := shardOf(a, 3); got.Status != StatusLeased {
		t.Errorf("held shard 3 on host 0: %s", got.Status)
	}
	if got := okShards(a); !cmp.Equal(got, []int{0, 1, 2, 4, 5, 6, 7, 8}) {
		t.Errorf("host 0 ran %v", got)
	}
	if got := okShards(b); !cmp.Equal(got, []int{8, 9, 10, 11, 12, 13, 14, 15}) {
		t.Errorf("host 1 ran %v", got)
	}
	ran := ranBy(map[string]*Result{"a": a, "b": b})
	if len(ran) != 15 || ran[3] != nil {
		t.Errorf("ran %v, want every shard but 3", ran)
	}
	tries := map[string]int{}
	for _, d := range l.deletes {
		tries[d.Key]++
	}
	for id, ks := range keys {
		want := 1
		if id == 3 {
			want = 0
		}
		for _, k := range ks {
			if tries[k] != want {
				t.Errorf("shard %d key %s: %d deletes, want %d", id, k, tries[k], want)
			}
		}
	}
}

// A dry run takes no lease, so each host previews exactly its block.
func TestDryRunHostPreviewsItsBlock(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r1", 1))
	l := newLeasingStore(st)
	res := runPass(t, context.Background(), st, snap, ts("2026-11-30T12:00:00Z"), func(c *Config) {
		leaseConfig(l)(c)
		c.DryRun, c.HostShare = true, HostShare{2, 3}
	})
	if got := okShards(res); !cmp.Equal(got, []int{10, 11, 12, 13, 14, 15}) {
		t.Errorf("dry run 2/3 ran %v", got)
	}
}

func okShards(res *Result) []int {
	var out []int
	for _, s := range res.Shards {
		if s.Status == StatusOK {
			out = append(out, s.Shard)
		}
	}
	return out
}

func countStatus(res *Result, st ShardStatus) int {
	n := 0
	for _, s := range res.Shards {
		if s.Status == st {
			n++
		}
	}
	return n
}
