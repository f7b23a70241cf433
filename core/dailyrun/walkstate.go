package dailyrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// WalkDir holds one file per shard recording where the shard's unfinished
// recovery walk stopped, so the next pass continues it instead of walking
// from the first bucket again (docs/design/daily-run.md#resumable-walks).
// It is not CursorDir: SeaweedFS's worker owns the files there.
const WalkDir = "/etc/s3/lifecycle/ilmctl-walks"

const walkStateVersion = 1

// walkSaveEvery is how often, by the wall clock (Config.Clock), a recovery
// walk saves its position while it runs; it is always saved when the
// shard's walk stops short. A pass killed outright loses at most this much
// walking.
const walkSaveEvery = 5 * time.Second

// ErrCorruptWalkState is a walk-position file that exists but cannot be
// trusted: malformed, unknown fields, wrong version, shard or walk kind,
// hashes not 32 bytes. Like a corrupt cursor, it halts its shard (status
// error) and is left as it is for an operator.
var ErrCorruptWalkState = errors.New("corrupt walk position")

// WalkState is one shard's recovery walk as far as it got: the hashes it
// walked under, the replay floor of its first attempt and, per bucket,
// how far the shard's work is done.
type WalkState struct {
	Recovery RecoveryReason // why the first attempt walked
	// FloorNs is the replay floor of the first attempt (its runNow minus
	// the longest replay TTL, Unix ns): a cold start replays from it, a
	// rule edit rewinds to it, so no event written between attempts is
	// missed.
	FloorNs int64
	// StartedNs is the pass clock of the first attempt (Unix ns); the
	// completed walk's LastWalkedNs.
	StartedNs int64
	Hashes    walkHashes
	// Buckets is each bucket's position; a bucket not in it starts from
	// its first key.
	Buckets map[string]BucketPos
	// Complete says the walk finished and the shard's cursor was saved
	// after it: the file describes no walk to continue.
	Complete bool
}

// walkHashes is the cursorStamp a walk ran under: ilmctl's own rule-set
// and promoted hashes and, on a store whose worker shares the cursors,
// that worker's (Shared).
type walkHashes struct {
	RuleSet, Promoted             [32]byte
	Shared                        bool
	WorkerRuleSet, WorkerPromoted [32]byte
}

func stampHashes(st cursorStamp) walkHashes {
	h := walkHashes{RuleSet: st.own.RuleSet, Promoted: st.own.Promoted, Shared: st.shared}
	if st.shared {
		h.WorkerRuleSet, h.WorkerPromoted = st.worker.RuleSet, st.worker.Promoted
	}
	return h
}

// BucketPos is how far a shard's recovery walk got in one bucket: every
// due match of the shard on a key at or before ObjectsAfter was
// dispatched and completed, or was pending; Done flags say the same of a
// whole listing. Uploads are recorded only as done: ListUploads' markers
// are the store's own (see walkUploads).
type BucketPos struct {
	ObjectsAfter string `json:"objects_after,omitempty"`
	ObjectsDone  bool   `json:"objects_done,omitempty"`
	UploadsDone  bool   `json:"uploads_done,omitempty"`
}

// walkPhase is the listing a position belongs to: a bucket's objects,
// then its incomplete uploads.
type walkPhase int

const (
	phaseObjects walkPhase = iota
	phaseUploads
)

// from is where the shard's part of phase starts: keys at or before after
// are done; done means the whole phase is.
func (b BucketPos) from(ph walkPhase) (after string, done bool) {
	if ph == phaseUploads {
		return "", b.UploadsDone
	}
	return b.ObjectsAfter, b.ObjectsDone
}

// advance moves the position forward only: marks of a shared listing can
// trail a shard that resumed further on.
func (b *BucketPos) advance(ph walkPhase, pos string, done bool) {
	if ph == phaseUploads {
		b.UploadsDone = b.UploadsDone || done
		return
	}
	if pos > b.ObjectsAfter {
		b.ObjectsAfter = pos
	}
	b.ObjectsDone = b.ObjectsDone || done
}

type walkFile struct {
	Version            int                  `json:"version"`
	ShardID            int                  `json:"shard_id"`
	Walk               WalkKind             `json:"walk"`
	Recovery           RecoveryReason       `json:"recovery"`
	FloorNs            int64                `json:"floor_ns"`
	StartedNs          int64                `json:"started_ns"`
	RuleSetHash        []byte               `json:"rule_set_hash"`
	PromotedHash       []byte               `json:"promoted_hash"`
	WorkerRuleSetHash  []byte               `json:"worker_rule_set_hash,omitempty"`
	WorkerPromotedHash []byte               `json:"worker_promoted_hash,omitempty"`
	Complete           bool                 `json:"complete,omitempty"`
	Buckets            map[string]BucketPos `json:"buckets"`
}

// WalkPath is shard's walk-position file.
func WalkPath(shard int) string {
	return fmt.Sprintf("%s/shard-%02d.json", WalkDir, shard)
}

// LoadWalkState reads shard's walk position; found is false when there is
// none. Every malformed file is ErrCorruptWalkState.
func LoadWalkState(ctx context.Context, st filer.Store, shard int) (w WalkState, found bool, err error) {
	data, err := st.ReadFile(ctx, WalkPath(shard))
	if errors.Is(err, filer.ErrNotFound) {
		return WalkState{}, false, nil
	}
	if err != nil {
		return WalkState{}, false, fmt.Errorf("read walk position %s: %w", WalkPath(shard), err)
	}
	w, err = DecodeWalkState(data, shard)
	return w, err == nil, err
}

// DecodeWalkState strictly decodes a walk-position file written for shard.
func DecodeWalkState(data []byte, shard int) (WalkState, error) {
	bad := func(format string, args ...any) (WalkState, error) {
		return WalkState{}, fmt.Errorf("%w %s: %s", ErrCorruptWalkState, WalkPath(shard), fmt.Sprintf(format, args...))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return bad("file is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f walkFile
	if err := dec.Decode(&f); err != nil {
		return bad("%v", err)
	}
	if dec.More() {
		return bad("trailing data after the JSON object")
	}
	switch {
	case f.Version != walkStateVersion:
		return bad("version %d, want %d", f.Version, walkStateVersion)
	case f.ShardID != shard:
		return bad("file is for shard %d", f.ShardID)
	case f.Walk != WalkRecovery:
		return bad("walk %q, want %q (only recovery walks are resumed)", f.Walk, WalkRecovery)
	case f.Recovery != RecoveryColdStart && f.Recovery != RecoveryRuleEdit && f.Recovery != RecoveryPartitionFlip && f.Recovery != RecoveryTakeover &&
		f.Recovery != RecoveryFilerRestart:
		return bad("recovery %q is not a recovery reason", f.Recovery)
	case f.StartedNs <= 0 || f.FloorNs > f.StartedNs:
		return bad("floor_ns %d and started_ns %d: want 0 < started_ns and floor_ns <= started_ns", f.FloorNs, f.StartedNs)
	case len(f.RuleSetHash) != 32 || len(f.PromotedHash) != 32:
		return bad("rule_set_hash and promoted_hash are %d and %d bytes, want 32", len(f.RuleSetHash), len(f.PromotedHash))
	case (f.WorkerRuleSetHash == nil) != (f.WorkerPromotedHash == nil):
		return bad("worker_rule_set_hash and worker_promoted_hash come together")
	case f.WorkerRuleSetHash != nil && (len(f.WorkerRuleSetHash) != 32 || len(f.WorkerPromotedHash) != 32):
		return bad("worker hashes are %d and %d bytes, want 32", len(f.WorkerRuleSetHash), len(f.WorkerPromotedHash))
	case f.Buckets == nil:
		return bad("buckets is missing")
	}
	if _, ok := f.Buckets[""]; ok {
		return bad("a bucket without a name")
	}
	w := WalkState{Recovery: f.Recovery, FloorNs: f.FloorNs, StartedNs: f.StartedNs, Complete: f.Complete, Buckets: f.Buckets}
	copy(w.Hashes.RuleSet[:], f.RuleSetHash)
	copy(w.Hashes.Promoted[:], f.PromotedHash)
	if f.WorkerRuleSetHash != nil {
		w.Hashes.Shared = true
		copy(w.Hashes.WorkerRuleSet[:], f.WorkerRuleSetHash)
		copy(w.Hashes.WorkerPromoted[:], f.WorkerPromotedHash)
	}
	return w, nil
}

// EncodeWalkState returns the JSON file for shard's walk position.
func EncodeWalkState(w WalkState, shard int) []byte {
	f := walkFile{Version: walkStateVersion, ShardID: shard, Walk: WalkRecovery, Recovery: w.Recovery,
		FloorNs: w.FloorNs, StartedNs: w.StartedNs, RuleSetHash: w.Hashes.RuleSet[:], PromotedHash: w.Hashes.Promoted[:],
		Complete: w.Complete, Buckets: w.Buckets}
	if w.Hashes.Shared {
		f.WorkerRuleSetHash, f.WorkerPromotedHash = w.Hashes.WorkerRuleSet[:], w.Hashes.WorkerPromoted[:]
	}
	if f.Buckets == nil {
		f.Buckets = map[string]BucketPos{}
	}
	data, _ := json.Marshal(f)
	return append(data, '\n')
}

// walkProgress is a shard's recovery walk in this pass: where its part
// starts (from, read-only once the walk runs) and how far it got (at,
// moved by the shard's dispatcher as its dispatches complete).
type walkProgress struct {
	from WalkState
	// resumed says from continues an earlier pass's walk.
	resumed bool
	// onFiler says a file for this walk is on the filer (loaded, or saved
	// this pass), so completing the walk must mark it.
	onFiler bool

	// attempts are the earlier passes of a resumed walk that saved what
	// they left for replay, and loadedKeys those keys until the shard's
	// table takes them (walkkeys.go).
	attempts   []walkAttempt
	loadedKeys []byte

	mu       sync.Mutex
	at       map[string]BucketPos
	lastSave time.Time
}

// startFrom is where the shard's part of bucket's phase starts.
func (w *walkProgress) startFrom(bucket string, ph walkPhase) (after string, done bool) {
	if w == nil {
		return "", false
	}
	return w.from.Buckets[bucket].from(ph)
}

func (w *walkProgress) advance(bucket string, ph walkPhase, pos string, done bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.at[bucket]
	b.advance(ph, pos, done)
	w.at[bucket] = b
}

// snapshot is the walk state to save now.
func (w *walkProgress) snapshot(complete bool) WalkState {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.from
	st.Complete = complete
	st.Buckets = make(map[string]BucketPos, len(w.at))
	for b, pos := range w.at {
		if pos != (BucketPos{}) {
			st.Buckets[b] = pos
		}
	}
	return st
}

// planWalkState decides, for a shard that walks the recovery view this
// pass, where its walk starts: an unfinished walk on the filer under the
// same hashes is continued, with its first attempt's floor; anything else
// (no file, a completed walk, a rule edit since, a floor the meta-log no
// longer reaches) starts a fresh walk from the first bucket, whose file
// replaces the old one at its first save. A file that cannot be read is
// the shard's error.
func (p *pass) planWalkState(ctx context.Context, s *shardRun) error {
	fresh := WalkState{Recovery: p.recoveryReason(s), FloorNs: p.floorNs(), StartedNs: p.runNowNs,
		Hashes: stampHashes(p.stamp), Buckets: map[string]BucketPos{}}
	w := &walkProgress{from: fresh}
	prev, found, err := LoadWalkState(ctx, p.cfg.Store, s.id)
	if err != nil {
		return err
	}
	w.onFiler = found
	// A walk begun before the restart it answers walked too early.
	if found && !prev.Complete && prev.Hashes == fresh.Hashes && p.metaLogReaches(prev.FloorNs) && prev.StartedNs >= s.rewalkFromNs {
		w.from, w.resumed = prev, true
	}
	w.at = make(map[string]BucketPos, len(w.from.Buckets))
	for b, pos := range w.from.Buckets {
		w.at[b] = pos
	}
	s.walkPos = w
	if w.resumed {
		p.loadWalkKeys(ctx, s)
	}
	return nil
}

// metaLogReaches reports whether the meta-log still holds the events after
// floorNs: always with an unbounded retention; otherwise only a floor
// within the retention window. A walk continued from a floor the log no
// longer reaches would replay from a gap, so it starts over instead.
func (p *pass) metaLogReaches(floorNs int64) bool {
	r := p.cfg.MetaLogRetention
	return r == 0 || floorNs >= p.runNowNs-int64(r)
}

// replayFloor is the floor a recovering shard replays from (cold start) or
// rewinds to (rule edit, partition flip): its walk's first attempt's.
func (p *pass) replayFloor(s *shardRun) int64 {
	if s.walkPos != nil {
		return s.walkPos.from.FloorNs
	}
	return p.floorNs()
}

// saveWalk writes the shard's walk position (complete: the walk finished
// and the cursor after it is saved) with a fresh context, as save does a
// cursor. A dry run writes nothing, and a completed walk that never wrote
// a file writes none.
func (p *pass) saveWalk(s *shardRun, complete bool) error {
	w := s.walkPos
	if p.cfg.DryRun || w == nil || (complete && !w.onFiler) || s.lease.lostErr() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), cursorSaveTimeout)
	defer cancel()
	if err := p.writeWalk(ctx, s, complete); err != nil {
		return err
	}
	s.res.WalkSaved = !complete
	if !complete {
		p.saveWalkKeys(ctx, s)
	}
	return nil
}

func (p *pass) writeWalk(ctx context.Context, s *shardRun, complete bool) error {
	w := s.walkPos
	if err := p.cfg.Store.WriteFile(ctx, WalkPath(s.id), EncodeWalkState(w.snapshot(complete), s.id)); err != nil {
		return fmt.Errorf("save walk position %s: %w", WalkPath(s.id), err)
	}
	w.mu.Lock()
	w.onFiler, w.lastSave = true, p.cfg.Clock()
	w.mu.Unlock()
	return nil
}

// saveWalkEvery saves the shard's walk position while it runs, at most
// every walkSaveEvery of the wall clock. A failed save is not the walk's
// failure: the save when the walk stops reports it.
func (p *pass) saveWalkEvery(ctx context.Context, s *shardRun) {
	w := s.walkPos
	if p.cfg.DryRun || w == nil || s.lease.lostErr() != nil {
		return
	}
	now := p.cfg.Clock()
	w.mu.Lock()
	if w.lastSave.IsZero() { // the walk's first mark starts the interval
		w.lastSave = now
	}
	due := now.Sub(w.lastSave) >= walkSaveEvery
	w.mu.Unlock()
	if !due {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, cursorSaveTimeout)
	defer cancel()
	_ = p.writeWalk(ctx, s, false)
}
