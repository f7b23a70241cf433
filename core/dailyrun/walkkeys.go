package dailyrun

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// A cold start's replay skips the lookup of every key its recovery walk
// settled (settledByColdWalk). A walk that took several passes
// (docs/design/daily-run.md#resumable-walks) walked most keys in earlier
// passes, so each pass it stops short also saves what its own part left
// for replay: the keys it left pending or unsettled, beside the range of
// keys it walked and its pass clock. The pass that completes the walk
// then skips the same lookups an uncut pass would.
//
// The file is an optimisation only: a key no saved attempt covers, an
// event newer than the attempt that walked its key, a file that is
// missing, stale or unreadable, all mean the key is looked up, as it was
// before these files existed.

// walkKeysVersion is the format of the file at WalkKeysPath, its hash
// (stableKeyHash) included: a file from a release that hashed otherwise
// must not be read, or its pending keys would not be found.
const walkKeysVersion = 1

// walkKeysMax bounds the keys one shard's file holds (24 bytes each, 6
// MiB in all): past it the attempt saves nothing and the completing pass
// looks those keys up. A state file is one filer entry, its content
// inline, and every save of it is one meta-log event carrying it.
const walkKeysMax = 1 << 18

// lookUpAlways is the value of a key whose walk dispatch did not end DONE
// (a version another of its deletes changed, so a rule the walk did not
// try may still apply): it is earlier than any pass clock, so replay
// always looks the key up.
const lookUpAlways = math.MinInt64

// WalkKeysPath is shard's file of the keys its unfinished recovery walk's
// earlier passes left for replay to look up.
func WalkKeysPath(shard int) string {
	return fmt.Sprintf("%s/shard-%02d.keys", WalkDir, shard)
}

// walkAttempt is one earlier pass of a recovery walk that stopped short:
// its pass clock and, per bucket, the keys it walked.
type walkAttempt struct {
	RunNowNs int64                   `json:"run_now_ns"`
	Buckets  map[string]attemptRange `json:"buckets"`
}

// attemptRange is the keys after After and up to Through, or every key
// after After when Done.
type attemptRange struct {
	After   string `json:"after,omitempty"`
	Through string `json:"through,omitempty"`
	Done    bool   `json:"done,omitempty"`
}

func (r attemptRange) holds(key string) bool {
	return key > r.After && (r.Done || key <= r.Through)
}

// walkKeysHeader is the file's first line; the entries follow it, 24
// bytes each (the key's stable hash, then its earliest pending due time
// or lookUpAlways, big-endian), in hash order.
type walkKeysHeader struct {
	Version      int           `json:"version"`
	ShardID      int           `json:"shard_id"`
	StartedNs    int64         `json:"started_ns"`
	FloorNs      int64         `json:"floor_ns"`
	RuleSetHash  []byte        `json:"rule_set_hash"`
	PromotedHash []byte        `json:"promoted_hash"`
	Attempts     []walkAttempt `json:"attempts"`
	Entries      int           `json:"entries"`
}

// decodeWalkKeys reads a keys file for the walk w continues; ok is false
// for a file that is malformed or belongs to another walk.
func decodeWalkKeys(data []byte, shard int, w WalkState) (attempts []walkAttempt, entries []byte, ok bool) {
	line, rest, found := bytes.Cut(data, []byte{'\n'})
	if !found {
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var h walkKeysHeader
	if err := dec.Decode(&h); err != nil || dec.More() {
		return nil, nil, false
	}
	switch {
	case h.Version != walkKeysVersion, h.ShardID != shard,
		h.StartedNs != w.StartedNs, h.FloorNs != w.FloorNs,
		!bytes.Equal(h.RuleSetHash, w.Hashes.RuleSet[:]), !bytes.Equal(h.PromotedHash, w.Hashes.Promoted[:]),
		h.Entries < 0, len(rest) != h.Entries*entrySize:
		return nil, nil, false
	}
	for _, a := range h.Attempts {
		if a.RunNowNs <= 0 || a.Buckets == nil {
			return nil, nil, false
		}
	}
	return h.Attempts, rest, true
}

// loadWalkKeys reads what the earlier passes of the walk s continues left
// for replay. Nothing it finds is an error: without it, replay looks every
// key up.
func (p *pass) loadWalkKeys(ctx context.Context, s *shardRun) {
	w := s.walkPos
	data, err := p.cfg.Store.ReadFile(ctx, WalkKeysPath(s.id))
	if err != nil {
		return
	}
	if attempts, entries, ok := decodeWalkKeys(data, s.id, w.from); ok {
		w.attempts, w.loadedKeys = attempts, entries
	}
}

// takeLoadedKeys moves the loaded entries into the shard's table. Entries
// the table cannot take (out of order, a spill file that cannot be
// written) drop the earlier attempts too: a range without its pending
// keys would settle keys that are not.
func (s *shardRun) takeLoadedKeys() {
	w := s.walkPos
	if w == nil || s.coldKeys == nil {
		return
	}
	if err := s.coldKeys.t.addRun(w.loadedKeys); err != nil {
		w.attempts = nil
	}
	w.loadedKeys = nil
}

// walkedAt is the pass clock at which the shard's walk listed bucket/key:
// this pass's for a key after where this pass started, an earlier
// attempt's for a key in a range it saved; ok is false for any other key.
func (w *walkProgress) walkedAt(bucket, key string, runNowNs int64) (int64, bool) {
	if after, done := w.startFrom(bucket, phaseObjects); !done && key > after {
		return runNowNs, true
	}
	for i := len(w.attempts) - 1; i >= 0; i-- {
		if r, ok := w.attempts[i].Buckets[bucket]; ok && r.holds(key) {
			return w.attempts[i].RunNowNs, true
		}
	}
	return 0, false
}

// saveWalkKeys writes, after a walk position saved short of the walk's
// end, what this pass's part of the walk and the earlier attempts' left
// for replay. It writes nothing when it cannot: the keys of this pass are
// then looked up by the pass that completes the walk.
func (p *pass) saveWalkKeys(ctx context.Context, s *shardRun) {
	w := s.walkPos
	if s.coldKeys == nil || w == nil {
		return
	}
	att := walkAttempt{RunNowNs: p.runNowNs, Buckets: map[string]attemptRange{}}
	for b, pos := range w.snapshot(false).Buckets {
		after, done := w.startFrom(b, phaseObjects)
		if !done && (pos.ObjectsDone || pos.ObjectsAfter > after) {
			att.Buckets[b] = attemptRange{After: after, Through: pos.ObjectsAfter, Done: pos.ObjectsDone}
		}
	}
	var body bytes.Buffer
	n := 0
	s.coldMu.Lock()
	err := s.coldKeys.t.sorted(func(h [2]uint64, v int64) error {
		if n++; n > walkKeysMax {
			return fmt.Errorf("more than %d keys", walkKeysMax)
		}
		var e [entrySize]byte
		binary.BigEndian.PutUint64(e[:8], h[0])
		binary.BigEndian.PutUint64(e[8:16], h[1])
		binary.BigEndian.PutUint64(e[16:], uint64(v))
		body.Write(e[:])
		return nil
	})
	s.coldMu.Unlock()
	if err != nil {
		return
	}
	head, _ := json.Marshal(walkKeysHeader{Version: walkKeysVersion, ShardID: s.id,
		StartedNs: w.from.StartedNs, FloorNs: w.from.FloorNs,
		RuleSetHash: w.from.Hashes.RuleSet[:], PromotedHash: w.from.Hashes.Promoted[:],
		Attempts: append(slices.Clone(w.attempts), att), Entries: n})
	data := append(append(head, '\n'), body.Bytes()...)
	_ = p.cfg.Store.WriteFile(ctx, WalkKeysPath(s.id), data)
}
