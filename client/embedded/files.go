package embedded

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// ReadFile returns a copy of the state file at path, or filer.ErrNotFound.
func (f *Filer) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []byte
	err := f.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bktFiles).Get([]byte(path))
		if raw == nil {
			return fmt.Errorf("%s: %w", path, filer.ErrNotFound)
		}
		out = append([]byte{}, raw...) // raw is only valid inside the transaction
		return nil
	})
	return out, err
}

// WriteFile replaces the state file at path in one transaction, so a reader
// sees the old or the new content, never a mix.
func (f *Filer) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if path == "" {
		return fmt.Errorf("embedded filer: WriteFile needs a path")
	}
	return f.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bktFiles).Put([]byte(path), append([]byte{}, data...))
	})
}
