package embedded

import (
	"context"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// rankFixture is one key under two rules that each select one of its
// noncurrent versions: v2 (tagged cold) by nc-cold, v1 by newer, whose
// rank (one noncurrent object version newer than it) deleting v2 lowers
// to 0.
const rankFixture = `{"buckets":[{"name":"ver","versioning":"Enabled","objects":[
 {"key":"k","versions":[
   {"version_id":"v1","mtime":"2026-11-01T00:00:00Z","size":1,"etag":"e1"},
   {"version_id":"v2","mtime":"2026-11-20T00:00:00Z","size":2,"etag":"e2","tags":{"tier":"cold"}},
   {"version_id":"v3","mtime":"2026-11-25T00:00:00Z","size":3,"etag":"e3"}]}]}]}`

func rankSnapshot() *engine.Snapshot {
	return engine.Compile([]engine.Bucket{{Name: "ver", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{
		{ID: "nc-cold", Enabled: true, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "tier", Value: "cold"}}}, NoncurrentDays: 2},
		{ID: "newer", Enabled: true, NoncurrentDays: 3, NewerNoncurrentVersions: 1},
	}}}, lifecycle.RoundAWS).Snapshot()
}

// The filer re-decides a delete (DeleteRequest.Applies) on the key as the
// delete's own transaction reads it: a NewerNoncurrent delete whose rank
// another delete of the same group lowered below N is NOOP_RESOLVED.
func TestLifecycleDeleteRedecidesInItsTransaction(t *testing.T) {
	ctx := context.Background()
	f := openTest(t, Options{})
	loadTest(t, f, rankFixture)
	obj := lookup(t, f, "ver", "k")
	keepsOne := func(o *filer.Object, idx int) bool {
		return lifecycle.NewerNoncurrentRank(o, idx, lifecycle.CountObjectVersions) >= 1
	}
	older := filer.DeleteRequest{Bucket: "ver", Key: "k", Kind: lifecycle.NewerNoncurrent, RuleID: "newer",
		Expected: obj.Versions[2].Identity(), Applies: keepsOne}
	newer := filer.DeleteRequest{Bucket: "ver", Key: "k", Kind: lifecycle.NoncurrentDays, RuleID: "nc-cold",
		Expected: obj.Versions[1].Identity(), Applies: func(*filer.Object, int) bool { return true }}
	if out, err := f.LifecycleDelete(ctx, newer); err != nil || out != filer.OutcomeDone {
		t.Fatalf("delete v2 = %s, %v; want DONE", out, err)
	}
	if out, err := f.LifecycleDelete(ctx, older); err != nil || out != filer.OutcomeNoopResolved {
		t.Fatalf("delete v1 after v2 = %s, %v; want NOOP_RESOLVED (its rank is 0 now)", out, err)
	}
	if got := versionIDs(lookup(t, f, "ver", "k")); len(got) != 2 || got[1] != "v1" {
		t.Errorf("left %v, want v3 v1", got)
	}
}

// A pass over the filer deletes v2 and keeps v1: v2 goes under another
// rule, so it is not among the versions NewerNoncurrentVersions retains
// and v1's rank is 0 when the pass decides (no delete of v1 is sent at
// all); were one sent, the store's own re-check above would refuse it.
func TestPassKeepsAVersionWhoseRankFell(t *testing.T) {
	f := openTest(t, Options{})
	loadTest(t, f, rankFixture)
	res, err := dailyrun.Run(context.Background(), dailyrun.Config{Store: f, Snapshot: rankSnapshot(), RunNow: testNow,
		Clock: func() time.Time { return testNow }, InFlight: 1})
	if err != nil || res.Status() != dailyrun.StatusOK {
		t.Fatalf("pass: %v, %v", res.Status(), err)
	}
	outcomes := map[string]filer.Outcome{}
	for _, a := range res.Actions {
		outcomes[a.VersionID+" "+a.RuleID] = a.Outcome
	}
	if outcomes["v2 nc-cold"] != filer.OutcomeDone || outcomes["v1 newer"] == filer.OutcomeDone {
		t.Errorf("outcomes %v: want v2 DONE under nc-cold and v1 not deleted", outcomes)
	}
	if got := versionIDs(lookup(t, f, "ver", "k")); len(got) != 2 || got[1] != "v1" {
		t.Errorf("left %v, want v3 v1", got)
	}
}
