package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ilmctl/ilmctl/core/dailyrun"
)

// NoticeLines are the stderr lines for a pass's notices: one warning for
// a pass whose conditional delete is unproven, one per key left alone, and
// one per bucket for the transition actions ilmctl does not run, each
// naming its rule:
//
//	ilmctl: warning: conditional_delete_unproven: <reason>
//	ilmctl: notice: ambiguous_layout b/k: no action taken: <reason>
//	ilmctl: notice: transition_not_executed data: 1 transition action not
//	  executed (ilmctl runs deletion actions only): rule tier: Transition to
//	  GLACIER 30 days after creation
//
// Each notice is wrapped at spaces to width columns (none when width < 1),
// its continuation lines indented by NoticeIndent. The first line always
// keeps the notice's head whole ("ilmctl: notice: KIND bucket/key:"), so
// grep finds every notice of a kind, bucket or key on one line; a word
// longer than a line is never broken.
func NoticeLines(notices []NoticeReport, width int) []string {
	var out []string
	for _, n := range noticeLines(notices) {
		out = append(out, wrapNotice(n, width)...)
	}
	return out
}

// NoticeIndent begins each continuation line of a wrapped notice.
const NoticeIndent = "  "

// wrapNotice wraps one notice line to width. Its head, kept on the first
// line, is its words up to the first that ends in ':' after "ilmctl:" and
// the level ("notice:", "warning:").
func wrapNotice(line string, width int) []string {
	words := strings.Split(line, " ")
	if width < 1 || utf8.RuneCountInString(line) <= width {
		return []string{line}
	}
	head := min(len(words), 3)
	for head < len(words) && !strings.HasSuffix(words[head-1], ":") {
		head++
	}
	var lines []string
	cur := strings.Join(words[:head], " ")
	n := utf8.RuneCountInString(cur)
	for _, w := range words[head:] {
		if wn := utf8.RuneCountInString(w); n+1+wn > width {
			lines = append(lines, cur)
			cur, n = NoticeIndent+w, len(NoticeIndent)+wn
			continue
		}
		cur += " " + w
		n += 1 + utf8.RuneCountInString(w)
	}
	return append(lines, cur)
}

func noticeLines(notices []NoticeReport) []string {
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
