package dailyrun

import "testing"

// The String of each typed value is its spelling in `ilmctl run -o json`,
// the heartbeat and the metrics' status label: scripts match on it, so
// it never changes (cmd/ilmctl's golden JSON pins the ones the demo
// produces; this pins every one).
func TestSpellings(t *testing.T) {
	for _, tc := range []struct {
		got  interface{ String() string }
		want string
	}{
		{StatusOK, "ok"},
		{StatusCancelled, "cancelled"},
		{StatusHalted, "halted"},
		{StatusError, "error"},
		{RecoveryColdStart, "cold_start"},
		{RecoveryRuleEdit, "rule_edit"},
		{RecoveryPartitionFlip, "partition_flip"},
		{RecoveryReason(""), ""},
		{WalkRecovery, "recovery"},
		{WalkSteadyState, "steady_state"},
		{WalkEmptyReplay, "empty_replay"},
		{WalkKind(""), ""},
	} {
		if tc.got.String() != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.got, tc.got.String(), tc.want)
		}
	}
	// The pass status is the worst shard status.
	order := []ShardStatus{StatusOK, StatusCancelled, StatusHalted, StatusError}
	for i, a := range order {
		for j, b := range order {
			r := &Result{Shards: []ShardResult{{Status: a}, {Status: b}}}
			if want := order[max(i, j)]; r.Status() != want {
				t.Errorf("shards %s and %s: pass status %s, want %s", a, b, r.Status(), want)
			}
		}
	}
}
