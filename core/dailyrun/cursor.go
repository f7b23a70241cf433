package dailyrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ilmctl/ilmctl/core/filer"
)

// CursorDir is the filer directory holding one cursor file per shard, the
// same path SeaweedFS's own worker uses (docs/design/daily-run.md#cursor).
const CursorDir = "/etc/s3/lifecycle/daily-cursors"

const cursorVersion = 1

// ErrCorruptCursor is returned by LoadCursor for a cursor file that exists
// but cannot be trusted: empty, malformed, unknown fields, wrong version or
// shard, or hashes that are not 32 bytes. The pass halts that shard rather
// than cold-starting over it.
var ErrCorruptCursor = errors.New("corrupt cursor")

// Cursor is one shard's persisted replay position
// (docs/design/daily-run.md#cursor).
type Cursor struct {
	TsNs int64 // Unix nanoseconds of the last meta-log event whose matches all completed
	// RuleSetHash and PromotedHash are the hashes the store's own lifecycle
	// worker compares when it shares the cursor files and may replay from
	// this one (SharedCursors: on SeaweedFS, its RuleSetHash and
	// PromotedHash); otherwise ilmctl's ReplayContentHash and PromotedHash.
	// Both are zero when the writer had no replay-eligible rule.
	RuleSetHash  [32]byte
	PromotedHash [32]byte
	LastWalkedNs int64 // Unix nanoseconds of the last successful walker fire; 0 = never
	// Own is ilmctl's own pair of hashes, written beside the shared
	// worker's; Own.Present is false in a file that worker wrote (it drops
	// fields it does not know) and wherever RuleSetHash is already ilmctl's.
	Own OwnHashes
	// Summary, when set, says what lies between TsNs and the point the
	// saving pass decided through, so the next pass replays only what is
	// due and what is new (docs/design/daily-run.md#pending-summary). nil
	// when absent: the next pass replays everything after TsNs.
	Summary *Summary
	// Writers are the meta-log writers known when the cursor was saved
	// (filer.MetaLogRestarts), WritersListedNs the pass clock of the
	// listing that found them (0: no pass looked). A writer a later
	// listing finds that is missing here, and that began after that
	// listing, may have replaced one that lost events
	// (docs/design/daily-run.md#filer-restarts).
	Writers         []string
	WritersListedNs int64
	// Restarts are the times (Unix nanoseconds, ascending) before which a
	// restart's lost events were stamped; WalkedAllNs is when the last
	// completed walk of every rule began. A restart, or a restart plus a
	// replay rule's effective TTL, between the two makes a pass walk
	// every rule.
	Restarts    []int64
	WalkedAllNs int64
}

// OwnHashes are ilmctl's ReplayContentHash and PromotedHash, kept in a
// cursor file another worker shares.
type OwnHashes struct {
	Present  bool
	RuleSet  [32]byte
	Promoted [32]byte
	// ByKey says the cursor's shard is ilmctl's, by key (EventShard).
	// false in a file an ilmctl that sharded replay by filer path wrote,
	// as SeaweedFS's worker does: such a cursor is taken over as the
	// worker's (SharedCursors).
	ByKey bool
}

type cursorFile struct {
	Version      int    `json:"version"`
	ShardID      int    `json:"shard_id"`
	TsNs         int64  `json:"ts_ns"`
	RuleSetHash  []byte `json:"rule_set_hash"` // base64 by encoding/json
	PromotedHash []byte `json:"promoted_hash"`
	LastWalkedNs int64  `json:"last_walked_ns,omitempty"`
	// ilmctl's own hashes (OwnHashes). SeaweedFS's worker decodes the file
	// without them (encoding/json ignores unknown fields) and writes it
	// back without them, which is how ilmctl tells its own cursor from one
	// that worker saved.
	IlmctlRuleSetHash  []byte `json:"ilmctl_rule_set_hash,omitempty"`
	IlmctlPromotedHash []byte `json:"ilmctl_promoted_hash,omitempty"`
	// IlmctlShards is shardsByKey in a file whose shard is ilmctl's, by
	// key (OwnHashes.ByKey).
	IlmctlShards string `json:"ilmctl_shards,omitempty"`
	// The pending summary (Summary); SeaweedFS's worker drops it with the
	// hashes above.
	IlmctlSummary *summaryFile `json:"ilmctl_summary,omitempty"`
	// The restart fields (Cursor.Writers ...); SeaweedFS's worker drops
	// them too.
	IlmctlWriters         []string `json:"ilmctl_meta_log_writers,omitempty"`
	IlmctlWritersListedNs int64    `json:"ilmctl_writers_listed_ns,omitempty"`
	IlmctlRestarts        []int64  `json:"ilmctl_restarts,omitempty"`
	IlmctlWalkedAllNs     int64    `json:"ilmctl_walked_all_ns,omitempty"`
}

// shardsByKey is ilmctl_shards in a cursor file whose shard is ilmctl's.
const shardsByKey = "by_key"

// CursorPath returns the filer path of shard's cursor file.
func CursorPath(shard int) string {
	return fmt.Sprintf("%s/shard-%02d.json", CursorDir, shard)
}

// LoadCursor reads shard's cursor. found is false only when the file does
// not exist (cold start); every malformed file is ErrCorruptCursor.
func LoadCursor(ctx context.Context, st filer.Store, shard int) (c Cursor, found bool, err error) {
	data, err := st.ReadFile(ctx, CursorPath(shard))
	if errors.Is(err, filer.ErrNotFound) {
		return Cursor{}, false, nil
	}
	if err != nil {
		return Cursor{}, false, fmt.Errorf("read cursor %s: %w", CursorPath(shard), err)
	}
	c, err = DecodeCursor(data, shard)
	return c, err == nil, err
}

// DecodeCursor strictly decodes a cursor file written for shard.
func DecodeCursor(data []byte, shard int) (Cursor, error) {
	bad := func(format string, args ...any) (Cursor, error) {
		return Cursor{}, fmt.Errorf("%w %s: %s", ErrCorruptCursor, CursorPath(shard), fmt.Sprintf(format, args...))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return bad("file is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f cursorFile
	if err := dec.Decode(&f); err != nil {
		return bad("%v", err)
	}
	if dec.More() {
		return bad("trailing data after the JSON object")
	}
	switch {
	case f.Version != cursorVersion:
		return bad("version %d, want %d", f.Version, cursorVersion)
	case f.ShardID != shard:
		return bad("file is for shard %d", f.ShardID)
	case len(f.RuleSetHash) != 32:
		return bad("rule_set_hash is %d bytes, want 32", len(f.RuleSetHash))
	case len(f.PromotedHash) != 32:
		return bad("promoted_hash is %d bytes, want 32", len(f.PromotedHash))
	case f.TsNs < 0 || f.LastWalkedNs < 0:
		return bad("negative timestamp")
	case (f.IlmctlRuleSetHash == nil) != (f.IlmctlPromotedHash == nil):
		return bad("ilmctl_rule_set_hash and ilmctl_promoted_hash come together")
	case f.IlmctlRuleSetHash != nil && (len(f.IlmctlRuleSetHash) != 32 || len(f.IlmctlPromotedHash) != 32):
		return bad("ilmctl hashes are %d and %d bytes, want 32", len(f.IlmctlRuleSetHash), len(f.IlmctlPromotedHash))
	case f.IlmctlShards != "" && f.IlmctlShards != shardsByKey:
		return bad("ilmctl_shards %q, want %q", f.IlmctlShards, shardsByKey)
	case f.IlmctlShards != "" && f.IlmctlRuleSetHash == nil:
		return bad("ilmctl_shards without ilmctl_rule_set_hash")
	case len(f.IlmctlWriters) > maxWriters:
		return bad("ilmctl_meta_log_writers has %d entries, at most %d", len(f.IlmctlWriters), maxWriters)
	case slices.Contains(f.IlmctlWriters, ""):
		return bad("ilmctl_meta_log_writers has an empty name")
	case len(f.IlmctlRestarts) > maxRestarts:
		return bad("ilmctl_restarts has %d entries, at most %d", len(f.IlmctlRestarts), maxRestarts)
	case !increasing(f.IlmctlRestarts):
		return bad("ilmctl_restarts is not positive and strictly increasing")
	case f.IlmctlWritersListedNs < 0 || f.IlmctlWalkedAllNs < 0:
		return bad("negative ilmctl_writers_listed_ns or ilmctl_walked_all_ns")
	}
	c := Cursor{TsNs: f.TsNs, LastWalkedNs: f.LastWalkedNs, Writers: f.IlmctlWriters, WritersListedNs: f.IlmctlWritersListedNs,
		Restarts: f.IlmctlRestarts, WalkedAllNs: f.IlmctlWalkedAllNs}
	if f.IlmctlSummary != nil {
		sum, err := f.IlmctlSummary.decode()
		if err != nil {
			return bad("ilmctl_summary: %v", err)
		}
		c.Summary = sum
	}
	copy(c.RuleSetHash[:], f.RuleSetHash)
	copy(c.PromotedHash[:], f.PromotedHash)
	if f.IlmctlRuleSetHash != nil {
		c.Own.Present = true
		copy(c.Own.RuleSet[:], f.IlmctlRuleSetHash)
		copy(c.Own.Promoted[:], f.IlmctlPromotedHash)
		c.Own.ByKey = f.IlmctlShards == shardsByKey
	}
	return c, nil
}

// EncodeCursor returns the JSON file for shard's cursor.
func EncodeCursor(c Cursor, shard int) []byte {
	f := cursorFile{
		Version:      cursorVersion,
		ShardID:      shard,
		TsNs:         c.TsNs,
		RuleSetHash:  c.RuleSetHash[:],
		PromotedHash: c.PromotedHash[:],
		LastWalkedNs: c.LastWalkedNs,
	}
	if c.Own.Present {
		f.IlmctlRuleSetHash, f.IlmctlPromotedHash = c.Own.RuleSet[:], c.Own.Promoted[:]
		if c.Own.ByKey {
			f.IlmctlShards = shardsByKey
		}
	}
	if c.Summary != nil {
		f.IlmctlSummary = c.Summary.encode()
	}
	f.IlmctlWriters, f.IlmctlWritersListedNs = c.Writers, c.WritersListedNs
	f.IlmctlRestarts, f.IlmctlWalkedAllNs = c.Restarts, c.WalkedAllNs
	data, _ := json.Marshal(f)
	return append(data, '\n')
}

// SaveCursor writes shard's cursor.
func SaveCursor(ctx context.Context, st filer.Store, shard int, c Cursor) error {
	if err := st.WriteFile(ctx, CursorPath(shard), EncodeCursor(c, shard)); err != nil {
		return fmt.Errorf("save cursor %s: %w", CursorPath(shard), err)
	}
	return nil
}
