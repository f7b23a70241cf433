package recovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// ErrConflict is a durable artifact or source copy that is not what the
// protocol expects (different bytes at a canonical ID, a replacement ETag,
// an unbound copy). Evidence is kept and nothing further is written.
var ErrConflict = errors.New("recovery conflict")

// ErrIncomplete is a pool that could not be read: copy discovery is
// incomplete and nothing destructive may proceed.
var ErrIncomplete = errors.New("copy discovery incomplete")

// createExact installs data at key create-only. A lost response, or a
// replay of an identical artifact, is resolved by an exact strong
// readback: the same bytes are success (created=false for a replay),
// different bytes are ErrConflict (docs/design/recovery.md#lost-responses).
func createExact(ctx context.Context, s metastore.Store, key string, data []byte) (etag string, created bool, err error) {
	etag, err = s.PutIfAbsent(ctx, key, data)
	if err == nil {
		return etag, true, nil
	}
	got, getag, gerr := s.Get(ctx, key)
	switch {
	case gerr == nil && bytes.Equal(got, data):
		return getag, !errors.Is(err, metastore.ErrExists), nil
	case gerr == nil:
		return "", false, fmt.Errorf("%s: %s holds other bytes (sha256 %s…): %w", s.Name(), key, envelope.SHA256Hex(got)[:12], ErrConflict)
	case errors.Is(err, metastore.ErrExists):
		return "", false, fmt.Errorf("%s: %s: create-only lost to a writer whose record is now unreadable: %w", s.Name(), key, gerr)
	}
	return "", false, fmt.Errorf("%w (readback: %v)", err, gerr)
}

// casExact replaces key from etag to data. A lost response, or a
// precondition failure because our own earlier write landed, is resolved
// by exact readback: the same bytes are success; anything else is
// ErrConflict. Every generation's bytes carry a fresh revision, so equal
// bytes can only be this write.
func casExact(ctx context.Context, s metastore.Store, key string, data []byte, etag string) (string, error) {
	newTag, err := s.PutIfMatch(ctx, key, data, etag)
	if err == nil {
		return newTag, nil
	}
	got, getag, gerr := s.Get(ctx, key)
	if gerr == nil && bytes.Equal(got, data) {
		return getag, nil
	}
	if errors.Is(err, metastore.ErrPreconditionFailed) || errors.Is(err, metastore.ErrNotFound) {
		return "", fmt.Errorf("%s: %s changed since it was read: %w: %w", s.Name(), key, err, ErrConflict)
	}
	return "", err
}

// Observation is a strong read of one path in every pool.
type Observation struct {
	Path   string
	Copies []Copy   // sorted
	Data   [][]byte // Data[i] is Copies[i]'s bytes
	// Unreadable names the pools (PoolID) whose read failed: discovery is
	// incomplete and no generation drawn from it is actionable.
	Unreadable []string
}

// Complete reports whether every pool answered.
func (o *Observation) Complete() bool { return len(o.Unreadable) == 0 }

// Agree reports whether every copy holds identical bytes.
func (o *Observation) Agree() bool {
	for _, d := range o.Data[min(1, len(o.Data)):] {
		if !bytes.Equal(d, o.Data[0]) {
			return false
		}
	}
	return true
}

// Observe strongly reads path in every pool.
func Observe(ctx context.Context, pools []metastore.Store, path string) *Observation {
	obs := &Observation{Path: path}
	type pair struct {
		c Copy
		d []byte
	}
	var got []pair
	for _, p := range pools {
		b, etag, err := p.Get(ctx, path)
		switch {
		case errors.Is(err, metastore.ErrNotFound):
		case err != nil:
			obs.Unreadable = append(obs.Unreadable, PoolID(p.Name()))
		default:
			got = append(got, pair{Copy{Pool: PoolID(p.Name()), Path: path, ETag: etag, Size: int64(len(b)), SHA256: envelope.SHA256Hex(b)}, b})
		}
	}
	cs := make([]Copy, len(got))
	for i := range got {
		cs[i] = got[i].c
	}
	SortCopies(cs)
	for _, c := range cs {
		for _, g := range got {
			if g.c == c {
				obs.Copies = append(obs.Copies, c)
				obs.Data = append(obs.Data, g.d)
				break
			}
		}
	}
	return obs
}

// poolByID finds the pool a Copy names.
func poolByID(pools []metastore.Store, id string) metastore.Store {
	for _, p := range pools {
		if PoolID(p.Name()) == id {
			return p
		}
	}
	return nil
}

// ErrRefused is an operator action the protocol does not allow in the
// record's current state (wrong version, active decommission, expired
// receipt, different actor, unconfirmed). Nothing was written.
var ErrRefused = errors.New("refused")

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func envelopeSHA(b []byte) string { return envelope.SHA256Hex(b) }

// eachStored reads every object under prefix of s, page by page, and
// calls fn with its key, bytes and ETag; an object removed between the
// listing and its read is skipped (it is gone, which is what a reader
// after the removal sees). fn's error stops the listing.
func eachStored(ctx context.Context, s metastore.Store, prefix string, pageSize int, fn func(key string, data []byte, etag string) error) error {
	return metastore.ListAll(ctx, s, prefix, pageSize, func(objs []metastore.Object) error {
		for _, o := range objs {
			b, etag, err := s.Get(ctx, o.Key)
			if errors.Is(err, metastore.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := fn(o.Key, b, etag); err != nil {
				return err
			}
		}
		return nil
	})
}
