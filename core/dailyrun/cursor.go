package dailyrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// CursorDir is the filer directory holding one cursor file per shard, the
// same path SeaweedFS's own worker uses (design 000 § Cursor).
const CursorDir = "/etc/s3/lifecycle/daily-cursors"

const cursorVersion = 1

// ErrCorruptCursor is returned by LoadCursor for a cursor file that exists
// but cannot be trusted: empty, malformed, unknown fields, wrong version or
// shard, or hashes that are not 32 bytes. The pass halts that shard rather
// than cold-starting over it.
var ErrCorruptCursor = errors.New("corrupt cursor")

// Cursor is one shard's persisted replay position, per design 000 § Cursor.
type Cursor struct {
	TsNs         int64    // Unix nanoseconds of the last meta-log event whose matches all completed
	RuleSetHash  [32]byte // ReplayContentHash of the rules that wrote it
	PromotedHash [32]byte // PromotedHash with the retention window at write time
	LastWalkedNs int64    // Unix nanoseconds of the last successful walker fire; 0 = never
}

type cursorFile struct {
	Version      int    `json:"version"`
	ShardID      int    `json:"shard_id"`
	TsNs         int64  `json:"ts_ns"`
	RuleSetHash  []byte `json:"rule_set_hash"` // base64 by encoding/json
	PromotedHash []byte `json:"promoted_hash"`
	LastWalkedNs int64  `json:"last_walked_ns,omitempty"`
}

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
	}
	c := Cursor{TsNs: f.TsNs, LastWalkedNs: f.LastWalkedNs}
	copy(c.RuleSetHash[:], f.RuleSetHash)
	copy(c.PromotedHash[:], f.PromotedHash)
	return c, nil
}

// EncodeCursor returns the JSON file for shard's cursor.
func EncodeCursor(c Cursor, shard int) []byte {
	data, _ := json.Marshal(cursorFile{
		Version:      cursorVersion,
		ShardID:      shard,
		TsNs:         c.TsNs,
		RuleSetHash:  c.RuleSetHash[:],
		PromotedHash: c.PromotedHash[:],
		LastWalkedNs: c.LastWalkedNs,
	})
	return append(data, '\n')
}

// SaveCursor writes shard's cursor.
func SaveCursor(ctx context.Context, st filer.Store, shard int, c Cursor) error {
	if err := st.WriteFile(ctx, CursorPath(shard), EncodeCursor(c, shard)); err != nil {
		return fmt.Errorf("save cursor %s: %w", CursorPath(shard), err)
	}
	return nil
}
