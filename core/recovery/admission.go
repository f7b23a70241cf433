package recovery

import (
	"context"
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/core/metastore"
)

// ErrCapacity is a retryable refusal: installing the candidate would take
// the control pool's recovery artifacts over an inventory limit. Nothing
// was written and no evidence was evicted.
var ErrCapacity = errors.New("recovery artifact capacity exhausted; retry later")

// Limits bound the recovery artifacts in the control pool
// (docs/design/recovery.md#admission).
type Limits struct {
	Exports           int   // export envelopes
	Dispositions      int   // disposition receipts
	ExportBytes       int64 // encoded export bytes
	ControlDispoBytes int64 // encoded control and disposition bytes
}

// DefaultLimits are the design's totals.
var DefaultLimits = Limits{Exports: 10_000, Dispositions: 10_000, ExportBytes: 1 << 30, ControlDispoBytes: 256 << 20}

// limits is what admit checks; tests lower it.
var limits = DefaultLimits

// admit inventories every recovery artifact in the pool and refuses a new
// candidate (kind: ExportPrefix or DispositionPrefix) of size bytes whose
// projected totals exceed the limits. A candidate whose key already holds
// an artifact is a replay: it consumes nothing and is always admitted
// (createExact then decides whether the bytes are the same). A listing
// that fails refuses too: capacity cannot be proven.
func admit(ctx context.Context, s metastore.Store, kind, key string, size int) error {
	var exports, dispos int
	var exportBytes, cdBytes int64
	replay := false
	for _, prefix := range []string{ControlPrefix, ExportPrefix, DispositionPrefix} {
		err := metastore.ListAll(ctx, s, prefix, 1000, func(objs []metastore.Object) error {
			for _, o := range objs {
				if o.Key == key {
					replay = true
				}
				switch prefix {
				case ExportPrefix:
					exports++
					exportBytes += o.Size
				case DispositionPrefix:
					dispos++
					cdBytes += o.Size
				default:
					cdBytes += o.Size
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("inventory of %s: %v: %w", prefix, err, ErrCapacity)
		}
	}
	if replay {
		return nil
	}
	switch kind {
	case ExportPrefix:
		exports++
		exportBytes += int64(size)
	case DispositionPrefix:
		dispos++
		cdBytes += int64(size)
	}
	switch {
	case exports > limits.Exports:
		return fmt.Errorf("%d export envelopes would exceed %d: %w", exports, limits.Exports, ErrCapacity)
	case dispos > limits.Dispositions:
		return fmt.Errorf("%d disposition receipts would exceed %d: %w", dispos, limits.Dispositions, ErrCapacity)
	case exportBytes > limits.ExportBytes:
		return fmt.Errorf("%d bytes of exports would exceed %d: %w", exportBytes, limits.ExportBytes, ErrCapacity)
	case cdBytes > limits.ControlDispoBytes:
		return fmt.Errorf("%d bytes of controls and dispositions would exceed %d: %w", cdBytes, limits.ControlDispoBytes, ErrCapacity)
	}
	return nil
}
