package render

import (
	"fmt"
	"strings"

	"github.com/ilmctl/ilmctl/core/dailyrun"
)

// NoticeLines are the stderr lines for a pass's notices: one warning for
// a pass whose conditional delete is unproven, one per key left alone, and
// one per bucket for the transition actions ilmctl does not run, each
// naming its rule:
//
//	ilmctl: warning: conditional_delete_unproven: <reason>
//	ilmctl: notice: ambiguous_layout b/k: no action taken: <reason>
//	ilmctl: notice: transition_not_executed data: 1 transition action not executed (ilmctl runs deletion actions only): rule tier: Transition to GLACIER 30 days after creation
func NoticeLines(notices []NoticeReport) []string {
	var lines []string
	var bucket string
	var transitions []string
	flush := func() {
		if len(transitions) == 0 {
			return
		}
		noun := "actions"
		if len(transitions) == 1 {
			noun = "action"
		}
		lines = append(lines, fmt.Sprintf("ilmctl: notice: %s %s: %d transition %s not executed (%s): %s",
			dailyrun.NoticeTransitionNotExecuted, bucket, len(transitions), noun, dailyrun.DeletionActionsOnly, strings.Join(transitions, "; ")))
		transitions = nil
	}
	for _, n := range notices {
		if n.Kind == dailyrun.NoticeConditionalDeleteUnproven.String() {
			flush()
			lines = append(lines, fmt.Sprintf("ilmctl: warning: %s: %s", n.Kind, n.Reason))
			continue
		}
		if n.Kind != dailyrun.NoticeTransitionNotExecuted.String() {
			flush()
			lines = append(lines, fmt.Sprintf("ilmctl: notice: %s %s/%s: no action taken: %s", n.Kind, n.Bucket, n.Key, n.Reason))
			continue
		}
		if n.Bucket != bucket {
			flush()
			bucket = n.Bucket
		}
		rule := "rule " + n.RuleID
		if n.RuleID == "" {
			rule = "a rule without ID"
		}
		transitions = append(transitions, rule+": "+strings.TrimSuffix(n.Reason, dailyrun.TransitionNotExecutedSuffix))
	}
	flush()
	return lines
}
