package dailyrun

import (
	"errors"
	"sort"

	"github.com/ilmctl/ilmctl/core/filer"
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
)

func (k NoticeKind) String() string { return string(k) }

// Notice is one thing the pass saw and left alone on purpose. A key is
// reported once per pass however many times the walk and the replay met it.
type Notice struct {
	Kind   NoticeKind
	Shard  int
	Bucket string
	Key    string
	Reason string
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
		return a.Kind < b.Kind
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
