package dailyrun

import (
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
)

// The String of each typed value is its spelling in `ilmctl run -o json`,
// the heartbeat and the metrics' labels: scripts match on it, so
// it never changes (cmd/ilmctl's golden JSON pins the ones the demo
// produces; this pins every one).
func TestSpellings(t *testing.T) {
	for _, tc := range []struct {
		got  interface{ String() string }
		want string
	}{
		{StatusOK, "ok"},
		{StatusLeased, "leased"},
		{StatusIncomplete, "incomplete"},
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
		{SourceReplay, "replay"},
		{SourceWalker, "walker"},
		{OutcomeDryRun, "DRY_RUN"},
		{OutcomeError, "ERROR"},
		{filer.OutcomeDone, "DONE"},
		{filer.OutcomeNoopResolved, "NOOP_RESOLVED"},
		{filer.OutcomeSkippedObjectLock, "SKIPPED_OBJECT_LOCK"},
		{filer.OutcomeRetryLater, "RETRY_LATER"},
		{filer.OutcomeBlocked, "BLOCKED"},
		{filer.OutcomeStuck, "STUCK"},
	} {
		if tc.got.String() != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.got, tc.got.String(), tc.want)
		}
	}
	// The pass status is the worst shard status.
	order := []ShardStatus{StatusOK, StatusLeased, StatusIncomplete, StatusCancelled, StatusHalted, StatusError}
	for i, a := range order {
		for j, b := range order {
			r := &Result{Shards: []ShardResult{{Status: a}, {Status: b}}}
			if want := order[max(i, j)]; r.Status() != want {
				t.Errorf("shards %s and %s: pass status %s, want %s", a, b, r.Status(), want)
			}
		}
	}
}
