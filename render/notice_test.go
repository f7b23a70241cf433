package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

func TestNotices(t *testing.T) {
	res := &dailyrun.Result{Notices: []dailyrun.Notice{
		{Kind: dailyrun.NoticeAmbiguousLayout, Shard: 0, Bucket: "logs", Key: "a/k", Reason: "ambiguous object layout"},
	}}
	res.AddNotices(dailyrun.TransitionNotices([]engine.Bucket{
		{Name: "data", Rules: []lifecycle.Rule{
			{ID: "tier", Enabled: true, Filter: lifecycle.Filter{Prefix: "archive/"}, Transitions: []lifecycle.Transition{{Days: 30, StorageClass: "GLACIER"}}},
			{ID: "tmp", Enabled: true, Filter: lifecycle.Filter{Prefix: "tmp/"}, ExpirationDays: 1},
		}},
		{Name: "logs", Rules: []lifecycle.Rule{
			{Enabled: true, NoncurrentDays: 60, NoncurrentTransitions: []lifecycle.NoncurrentTransition{{NoncurrentDays: 30, StorageClass: "STANDARD_IA"}}},
			{ID: "deep", Enabled: true, Transitions: []lifecycle.Transition{{Days: 1, StorageClass: "GLACIER"}, {Days: 90, StorageClass: "DEEP_ARCHIVE"}}},
		}},
	})...)
	res.AddNotices(dailyrun.ConditionalDeleteUnproven("s3://127.0.0.1:9000"))
	rep := NewRunReport(res, nil)

	// JSON: a key notice keeps shard (0 included) and key; a configuration
	// notice has rule_id and action instead; a notice about the pass has
	// neither and comes first.
	raw, err := json.Marshal(rep.Notices)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"kind": "conditional_delete_unproven", "bucket": "", "reason": "s3://127.0.0.1:9000 was not probed for If-Match on DeleteObject; a server that ignores it (MinIO does) would delete an object overwritten between ilmctl's re-read and its delete; run with --check-cas to refuse such a server"},
		{"kind": "transition_not_executed", "bucket": "data", "rule_id": "tier", "action": "Transition",
			"reason": "Transition to GLACIER 30 days after creation is not executed: ilmctl runs deletion actions only"},
		{"kind": "transition_not_executed", "bucket": "logs", "action": "NoncurrentVersionTransition",
			"reason": "NoncurrentVersionTransition to STANDARD_IA 30 days after becoming noncurrent is not executed: ilmctl runs deletion actions only"},
		{"kind": "transition_not_executed", "bucket": "logs", "rule_id": "deep", "action": "Transition",
			"reason": "Transition to GLACIER 1 day after creation is not executed: ilmctl runs deletion actions only"},
		{"kind": "transition_not_executed", "bucket": "logs", "rule_id": "deep", "action": "Transition",
			"reason": "Transition to DEEP_ARCHIVE 90 days after creation is not executed: ilmctl runs deletion actions only"},
		{"kind": "ambiguous_layout", "shard": 0.0, "bucket": "logs", "key": "a/k", "reason": "ambiguous object layout"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notices JSON (-want +got):\n%s", diff)
	}
	if rep.AmbiguousKeys != 1 {
		t.Errorf("ambiguous_keys = %d, want 1", rep.AmbiguousKeys)
	}

	// stderr: one warning for the pass, one line per bucket for its
	// transitions, one per key.
	wantLines := []string{
		"ilmctl: warning: conditional_delete_unproven: s3://127.0.0.1:9000 was not probed for If-Match on DeleteObject; a server that ignores it (MinIO does) would delete an object overwritten between ilmctl's re-read and its delete; run with --check-cas to refuse such a server",
		"ilmctl: notice: transition_not_executed data: 1 transition action not executed (ilmctl runs deletion actions only): rule tier: Transition to GLACIER 30 days after creation",
		"ilmctl: notice: transition_not_executed logs: 3 transition actions not executed (ilmctl runs deletion actions only): " +
			"a rule without ID: NoncurrentVersionTransition to STANDARD_IA 30 days after becoming noncurrent; " +
			"rule deep: Transition to GLACIER 1 day after creation; rule deep: Transition to DEEP_ARCHIVE 90 days after creation",
		"ilmctl: notice: ambiguous_layout logs/a/k: no action taken: ambiguous object layout",
	}
	if diff := cmp.Diff(wantLines, NoticeLines(rep.Notices, 0)); diff != "" {
		t.Errorf("NoticeLines unwrapped (-want +got):\n%s", diff)
	}

	// At 80 columns: each notice wrapped at spaces, its head whole on the
	// first line, its continuations indented.
	want80 := []string{
		"ilmctl: warning: conditional_delete_unproven: s3://127.0.0.1:9000 was not probed",
		"  for If-Match on DeleteObject; a server that ignores it (MinIO does) would",
		"  delete an object overwritten between ilmctl's re-read and its delete; run with",
		"  --check-cas to refuse such a server",
		"ilmctl: notice: transition_not_executed data: 1 transition action not executed",
		"  (ilmctl runs deletion actions only): rule tier: Transition to GLACIER 30 days",
		"  after creation",
		"ilmctl: notice: transition_not_executed logs: 3 transition actions not executed",
		"  (ilmctl runs deletion actions only): a rule without ID:",
		"  NoncurrentVersionTransition to STANDARD_IA 30 days after becoming noncurrent;",
		"  rule deep: Transition to GLACIER 1 day after creation; rule deep: Transition",
		"  to DEEP_ARCHIVE 90 days after creation",
		"ilmctl: notice: ambiguous_layout logs/a/k: no action taken: ambiguous object",
		"  layout",
	}
	got80 := NoticeLines(rep.Notices, 80)
	if diff := cmp.Diff(want80, got80); diff != "" {
		t.Errorf("NoticeLines at 80 columns (-want +got):\n%s", diff)
	}
	for _, l := range got80 {
		if len(l) > 80 {
			t.Errorf("%d columns: %q", len(l), l)
		}
	}
}

// TestWrapNotice: the head stays whole on the first line even past the
// width, a word longer than a line is never broken, and a notice that
// fits is left as it is.
func TestWrapNotice(t *testing.T) {
	long := "b/" + strings.Repeat("k", 30)
	for _, tc := range []struct {
		name, line string
		width      int
		want       []string
	}{
		{"fits", "ilmctl: notice: ambiguous_layout b/k: no action taken: x", 80,
			[]string{"ilmctl: notice: ambiguous_layout b/k: no action taken: x"}},
		{"no width", "ilmctl: notice: ambiguous_layout b/k: no action taken: x", 0,
			[]string{"ilmctl: notice: ambiguous_layout b/k: no action taken: x"}},
		{"head past the width", "ilmctl: notice: ambiguous_layout " + long + ": no action taken", 30,
			[]string{"ilmctl: notice: ambiguous_layout " + long + ":", "  no action taken"}},
		{"key with a space stays in the head", "ilmctl: notice: ambiguous_layout b/a key: no action taken: x", 40,
			[]string{"ilmctl: notice: ambiguous_layout b/a key:", "  no action taken: x"}},
		{"long word alone", "ilmctl: warning: kind: see " + long + " now", 20,
			[]string{"ilmctl: warning: kind:", "  see", "  " + long, "  now"}},
	} {
		if diff := cmp.Diff(tc.want, wrapNotice(tc.line, tc.width)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
