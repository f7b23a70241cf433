package dailyrun

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// Every transition action of an enabled rule is one notice, sorted with
// the pass's own notices; a disabled rule's transitions and rules without
// transitions give none.
func TestTransitionNotices(t *testing.T) {
	buckets := []engine.Bucket{
		{Name: "media", Rules: []lifecycle.Rule{
			{ID: "cold", Enabled: true, NoncurrentDays: 90,
				Transitions:           []lifecycle.Transition{{Days: 0, StorageClass: "GLACIER_IR"}},
				NoncurrentTransitions: []lifecycle.NoncurrentTransition{{NoncurrentDays: 30, NewerNoncurrentVersions: 2, StorageClass: "STANDARD_IA"}}},
			{ID: "off", Transitions: []lifecycle.Transition{{Days: 1, StorageClass: "GLACIER"}}},
		}},
		// a transition rule beside an expiration, as production configurations keep them.
		{Name: "data", Rules: []lifecycle.Rule{
			{ID: "tier", Enabled: true, Filter: lifecycle.Filter{Prefix: "archive/"}, Transitions: []lifecycle.Transition{{Days: 30, StorageClass: "GLACIER"}}},
			{ID: "tmp", Enabled: true, Filter: lifecycle.Filter{Prefix: "tmp/"}, ExpirationDays: 1},
		}},
	}
	want := []Notice{
		{Kind: NoticeTransitionNotExecuted, Bucket: "data", RuleID: "tier", Action: "Transition",
			Reason: "Transition to GLACIER 30 days after creation is not executed: ilmctl runs deletion actions only"},
		{Kind: NoticeTransitionNotExecuted, Bucket: "media", RuleID: "cold", Action: "Transition",
			Reason: "Transition to GLACIER_IR 0 days after creation is not executed: ilmctl runs deletion actions only"},
		{Kind: NoticeTransitionNotExecuted, Bucket: "media", RuleID: "cold", Action: "NoncurrentVersionTransition",
			Reason: "NoncurrentVersionTransition to STANDARD_IA 30 days after becoming noncurrent, keeping 2 newer noncurrent versions is not executed: ilmctl runs deletion actions only"},
	}
	got := TransitionNotices(buckets)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("TransitionNotices (-want +got):\n%s", diff)
	}

	// Added to a result, they sort beside the pass's key notices, and do not
	// count as ambiguous keys.
	res := &Result{Notices: []Notice{{Kind: NoticeAmbiguousLayout, Shard: 4, Bucket: "media", Key: "a", Reason: "x"}}}
	res.AddNotices(got...)
	var order []string
	for _, n := range res.Notices {
		order = append(order, n.Bucket+"/"+n.Key+":"+string(n.Kind)+":"+n.RuleID)
	}
	wantOrder := []string{"data/:transition_not_executed:tier", "media/:transition_not_executed:cold", "media/:transition_not_executed:cold", "media/a:ambiguous_layout:"}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if res.AmbiguousKeys() != 1 {
		t.Errorf("AmbiguousKeys = %d, want 1", res.AmbiguousKeys())
	}
}

// A bucket whose configuration was rejected counts in the heartbeat's
// errors= although every shard finished: the pass is not a silent success.
func TestRejectedBucketsCountAsErrors(t *testing.T) {
	st := newFakeStore()
	st.addBucket("logs", filer.VersioningOff)
	for _, tc := range []struct {
		rejected int
		want     string
	}{
		{0, "errors=0"},
		{2, "errors=2"},
	} {
		res := runPass(t, context.Background(), st, snapshotOf("logs", filer.VersioningOff, expireDays("r", 1)), ts("2026-11-30T00:00:00Z"),
			func(c *Config) { c.RejectedBuckets = tc.rejected })
		if res.Status() != StatusOK || res.ShardErrors() != 0 || res.Errors() != tc.rejected {
			t.Errorf("rejected %d: status %s shard errors %d errors %d", tc.rejected, res.Status(), res.ShardErrors(), res.Errors())
		}
		if hb := res.Heartbeat(); !strings.Contains(hb, "status=ok shards=16 "+tc.want+" ") {
			t.Errorf("rejected %d: heartbeat %q, want %s", tc.rejected, hb, tc.want)
		}
	}
}
