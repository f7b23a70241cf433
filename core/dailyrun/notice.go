package dailyrun

import (
	"errors"
	"sort"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// NoticeKind names why a pass reports something it deliberately did not
// act on. Its String is the JSON spelling, a stable interface.
type NoticeKind string

// Notice kinds.
const (
	// NoticeAmbiguousLayout is a key whose entries do not name one entry per
	// version ID (filer.ErrAmbiguousLayout): it got no action this pass and
	// nothing else stopped for it.
	NoticeAmbiguousLayout NoticeKind = "ambiguous_layout"
	// NoticeTransitionNotExecuted is a Transition or
	// NoncurrentVersionTransition action of an enabled rule: valid, but
	// ilmctl runs deletion actions only, so nothing moves to the class it
	// names. It comes from the configuration, not from a key: Key is empty
	// and RuleID and Action name the action.
	NoticeTransitionNotExecuted NoticeKind = "transition_not_executed"
	// NoticeConditionalDeleteUnproven is a pass whose deletes rely on the
	// server honouring If-Match on DeleteObject (s3://) when nothing in
	// this pass proved that it does (--check-cas was not given). It is
	// about the pass: Bucket, Key, RuleID and Action are empty.
	NoticeConditionalDeleteUnproven NoticeKind = "conditional_delete_unproven"
	// NoticeAmbiguousListUnreadable is a shard's ambiguous-key list
	// (AmbiguousPath) that could not be read or saved: it is left as it
	// was, and the keys on it are not reported this pass. Shard names the
	// list; Bucket and Key are empty.
	NoticeAmbiguousListUnreadable NoticeKind = "ambiguous_list_unreadable"
)

// ConditionalDeleteUnproven is the NoticeConditionalDeleteUnproven of a
// pass against endpoint; the caller adds it to its Result (AddNotices).
func ConditionalDeleteUnproven(endpoint string) Notice {
	return Notice{Kind: NoticeConditionalDeleteUnproven, Reason: endpoint + " was not probed for If-Match on DeleteObject; " +
		"a server that ignores it (MinIO does) would delete an object overwritten between ilmctl's re-read and its delete; " +
		"run with --check-cas to refuse such a server"}
}

func (k NoticeKind) String() string { return string(k) }

// Notice is one thing the pass saw and left alone on purpose. A key is
// reported once per pass however many times the walk and the replay met it;
// a configuration's action once per pass.
type Notice struct {
	Kind  NoticeKind
	Shard int // the shard that owns Key; meaningless when Key is empty
	// Bucket and Key name what was left alone; Key is empty for a notice
	// about the bucket's configuration.
	Bucket string
	Key    string
	// RuleID and Action name the rule action a configuration notice is
	// about (Action is the S3 element: Transition or
	// NoncurrentVersionTransition); empty for a key.
	RuleID string
	Action string
	Reason string
}

// TransitionNotices returns one NoticeTransitionNotExecuted for every
// transition action of every enabled rule of buckets, in bucket and rule
// order. They come from the configuration, not from the pass, so the
// caller adds them to its Result (AddNotices). A disabled rule's
// transitions are not reported: S3 would not run them either.
func TransitionNotices(buckets []engine.Bucket) []Notice {
	var out []Notice
	for _, b := range buckets {
		for _, r := range b.Rules {
			if !r.Enabled {
				continue
			}
			for _, t := range r.Transitions {
				out = append(out, transitionNotice(b.Name, r.ID, lifecycle.TransitionElement, t.String()))
			}
			for _, t := range r.NoncurrentTransitions {
				out = append(out, transitionNotice(b.Name, r.ID, lifecycle.NoncurrentTransitionElement, t.String()))
			}
		}
	}
	sortNotices(out)
	return out
}

// DeletionActionsOnly is why a transition is not executed;
// TransitionNotExecutedSuffix ends every NoticeTransitionNotExecuted's
// Reason, after the action's own description.
const (
	DeletionActionsOnly         = "ilmctl runs deletion actions only"
	TransitionNotExecutedSuffix = " is not executed: " + DeletionActionsOnly
)

func transitionNotice(bucket, ruleID, action, what string) Notice {
	return Notice{Kind: NoticeTransitionNotExecuted, Bucket: bucket, RuleID: ruleID, Action: action,
		Reason: what + TransitionNotExecutedSuffix}
}

// AddNotices adds notices known before the pass (TransitionNotices) to r,
// keeping r.Notices sorted.
func (r *Result) AddNotices(ns ...Notice) {
	r.Notices = append(r.Notices, ns...)
	sortNotices(r.Notices)
}

// notice records n once per (kind, bucket, key).
func (p *pass) notice(n Notice) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := string(n.Kind) + "\x00" + n.Bucket + "\x00" + n.Key
	if p.noticed[k] {
		return
	}
	if p.noticed == nil {
		p.noticed = map[string]bool{}
	}
	p.noticed[k] = true
	p.notices = append(p.notices, n)
}

// keyNotice turns a per-key read failure into a notice when the key is
// only ambiguous; ok is false for every other error, which halts the
// key's shard.
func (p *pass) keyNotice(shard int, bucket, key string, err error) (ok bool) {
	if !errors.Is(err, filer.ErrAmbiguousLayout) {
		return false
	}
	p.notice(Notice{Kind: NoticeAmbiguousLayout, Shard: shard, Bucket: bucket, Key: key, Reason: err.Error()})
	return true
}

func sortNotices(ns []Notice) {
	sort.SliceStable(ns, func(i, j int) bool {
		a, b := ns[i], ns[j]
		if a.Bucket != b.Bucket {
			return a.Bucket < b.Bucket
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.RuleID < b.RuleID
	})
}

// AmbiguousKeys counts the keys skipped as NoticeAmbiguousLayout.
func (r *Result) AmbiguousKeys() int {
	n := 0
	for _, x := range r.Notices {
		if x.Kind == NoticeAmbiguousLayout {
			n++
		}
	}
	return n
}
