package dailyrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/ilmctl/ilmctl/core/filer"
)

// AmbiguousDir holds one file per shard listing the ambiguous keys
// (filer.ErrAmbiguousLayout) the shard met that no pass has seen resolve
// yet (docs/design/daily-run.md#ambiguous-keys). It is not CursorDir:
// SeaweedFS's worker owns the files there.
const AmbiguousDir = "/etc/s3/lifecycle/ilmctl-ambiguous-keys"

const ambiguousVersion = 1

// maxAmbiguousPerShard bounds a shard's list; past it the keys first seen
// longest ago are kept, and the count still says how many there were.
const maxAmbiguousPerShard = 10000

// ErrCorruptAmbiguousList is a shard's ambiguous-key list that exists but
// cannot be trusted; it is left as it is and reported.
var ErrCorruptAmbiguousList = errors.New("corrupt ambiguous-key list")

// AmbiguousKey is one key a pass left alone because its layout is
// ambiguous, until a pass finds it readable (an operator fixed it) or gone.
type AmbiguousKey struct {
	Bucket string `json:"bucket"`
	Key    string `json:"key"`
	// Reason is what the last pass that read the key saw.
	Reason string `json:"reason"`
	// FirstSeenNs and LastSeenNs are the pass clocks (Unix nanoseconds) of
	// the first and the last pass that found the key ambiguous.
	FirstSeenNs int64 `json:"first_seen_ns"`
	LastSeenNs  int64 `json:"last_seen_ns"`
}

type ambiguousFile struct {
	Version int            `json:"version"`
	ShardID int            `json:"shard_id"`
	Keys    []AmbiguousKey `json:"keys"`
}

// AmbiguousPath is shard's ambiguous-key list.
func AmbiguousPath(shard int) string {
	return fmt.Sprintf("%s/shard-%02d.json", AmbiguousDir, shard)
}

// LoadAmbiguous reads shard's ambiguous-key list; an absent file is an
// empty list, a malformed one ErrCorruptAmbiguousList.
func LoadAmbiguous(ctx context.Context, st filer.Store, shard int) ([]AmbiguousKey, error) {
	data, err := st.ReadFile(ctx, AmbiguousPath(shard))
	if errors.Is(err, filer.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f ambiguousFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", AmbiguousPath(shard), ErrCorruptAmbiguousList, err)
	}
	if f.Version != ambiguousVersion || f.ShardID != shard {
		return nil, fmt.Errorf("%s: %w: version %d shard %d", AmbiguousPath(shard), ErrCorruptAmbiguousList, f.Version, f.ShardID)
	}
	for _, k := range f.Keys {
		if k.Bucket == "" || k.FirstSeenNs <= 0 || k.LastSeenNs < k.FirstSeenNs {
			return nil, fmt.Errorf("%s: %w: entry %s/%s", AmbiguousPath(shard), ErrCorruptAmbiguousList, k.Bucket, k.Key)
		}
	}
	return f.Keys, nil
}

// saveAmbiguous replaces shard's list with keys (bounded).
func saveAmbiguous(ctx context.Context, st filer.Store, shard int, keys []AmbiguousKey) error {
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].FirstSeenNs != keys[j].FirstSeenNs {
			return keys[i].FirstSeenNs < keys[j].FirstSeenNs
		}
		return keys[i].Bucket+"\x00"+keys[i].Key < keys[j].Bucket+"\x00"+keys[j].Key
	})
	if len(keys) > maxAmbiguousPerShard {
		keys = keys[:maxAmbiguousPerShard]
	}
	data, err := json.Marshal(ambiguousFile{Version: ambiguousVersion, ShardID: shard, Keys: keys})
	if err != nil {
		return err
	}
	return st.WriteFile(ctx, AmbiguousPath(shard), append(data, '\n'))
}

// trackAmbiguous carries each run shard's ambiguous-key list forward: the
// keys this pass found ambiguous are added (or their LastSeenNs moved),
// and each listed key the pass did not meet is read again: still
// ambiguous, it is reported again as a notice; readable or gone, it leaves
// the list. So every pass reports every ambiguous key until it resolves,
// not only the passes whose events or walks happen to reach it. A dry run
// reads and reports but writes nothing. A list that cannot be read is
// left as it is and reported (NoticeAmbiguousListUnreadable).
//
// It runs after the shards, with its own deadline: the pass's context may
// have ended (-runtime), and what the pass saw must still be kept.
func (p *pass) trackAmbiguous(shards []int) {
	ctx, cancel := context.WithTimeout(context.Background(), cursorSaveTimeout)
	defer cancel()
	seen := map[string]Notice{}
	for _, n := range p.notices {
		if n.Kind == NoticeAmbiguousLayout {
			seen[lookupKey(n.Bucket, n.Key)] = n
		}
	}
	now := p.cfg.RunNow.UnixNano()
	for _, shard := range shards {
		listed, err := LoadAmbiguous(ctx, p.cfg.Store, shard)
		if err != nil {
			p.notice(Notice{Kind: NoticeAmbiguousListUnreadable, Shard: shard, Reason: err.Error()})
			continue
		}
		keep := make([]AmbiguousKey, 0, len(listed))
		onList := map[string]bool{}
		for _, k := range listed {
			id := lookupKey(k.Bucket, k.Key)
			onList[id] = true
			if n, ok := seen[id]; ok {
				k.Reason, k.LastSeenNs = n.Reason, now
				keep = append(keep, k)
				continue
			}
			_, _, err := p.cfg.Store.LookupObject(ctx, k.Bucket, k.Key)
			switch {
			case errors.Is(err, filer.ErrAmbiguousLayout):
				k.Reason, k.LastSeenNs = err.Error(), now
				keep = append(keep, k)
				p.notice(Notice{Kind: NoticeAmbiguousLayout, Shard: shard, Bucket: k.Bucket, Key: k.Key, Reason: err.Error()})
			case err != nil:
				keep = append(keep, k) // unread: kept as it was, not reported as resolved
			}
		}
		for id, n := range seen {
			if n.Shard == shard && !onList[id] {
				keep = append(keep, AmbiguousKey{Bucket: n.Bucket, Key: n.Key, Reason: n.Reason, FirstSeenNs: now, LastSeenNs: now})
			}
		}
		for _, k := range keep {
			if p.ambiguousOldestNs == 0 || k.FirstSeenNs < p.ambiguousOldestNs {
				p.ambiguousOldestNs = k.FirstSeenNs
			}
		}
		if p.cfg.DryRun || (len(keep) == 0 && len(listed) == 0) {
			continue
		}
		if err := saveAmbiguous(ctx, p.cfg.Store, shard, keep); err != nil {
			p.notice(Notice{Kind: NoticeAmbiguousListUnreadable, Shard: shard, Reason: fmt.Sprintf("save %s: %v", AmbiguousPath(shard), err)})
		}
	}
}
