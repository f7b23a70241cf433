package recovery

import (
	"context"
	"errors"
	"strings"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// ReceiptPrefix is where decommission keeps its durable-namespace
// receipts (core/ilmpath.ReceiptKey).
const ReceiptPrefix = "decommission/ilm-receipts/"

// Coverage is what the decommission receipts say about a set of paths
// (docs/design/recovery.md#decommission-coverage).
type Coverage struct {
	// Active lists receipts (keys) that cover one of the paths and carry
	// no terminal checkpoint: the record is part of a decommission run
	// that has not finished with it.
	Active []string `json:"active_receipts"`
	// Unknown lists what could not be ruled out: a receipt naming one of
	// the paths that fails strict decoding, or a pool whose receipt
	// listing failed. Unknown coverage refuses mutation like active
	// coverage does.
	Unknown []string `json:"unknown"`
}

// Covered reports whether mutation must be refused.
func (c Coverage) Covered() bool { return len(c.Active) > 0 || len(c.Unknown) > 0 }

// DecomCoverage reads every pool's decommission receipts through
// core/decom and reports those that cover any of paths. A receipt covers a
// path when its decoded source_path is that path; its key must also embed
// the path (ilmpath.ReceiptKey), so only those keys are read.
func DecomCoverage(ctx context.Context, pools []metastore.Store, paths ...string) Coverage {
	var cov Coverage
	for _, p := range pools {
		err := metastore.ListAll(ctx, p, ReceiptPrefix, 1000, func(objs []metastore.Object) error {
			for _, o := range objs {
				var hit string
				for _, path := range paths {
					if strings.Contains(o.Key, "/"+path+"/") {
						hit = path
					}
				}
				if hit == "" {
					continue
				}
				b, _, err := p.Get(ctx, o.Key)
				if errors.Is(err, metastore.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				r, err := decom.Decode(b)
				switch {
				case err != nil:
					cov.Unknown = append(cov.Unknown, PoolID(p.Name())+" "+o.Key+": receipt fails strict decoding")
				case r.SourcePath != hit:
					cov.Unknown = append(cov.Unknown, PoolID(p.Name())+" "+o.Key+": receipt names another source path")
				case r.TerminalCheckpoint == nil:
					cov.Active = append(cov.Active, PoolID(p.Name())+" "+o.Key)
				}
			}
			return nil
		})
		if err != nil {
			cov.Unknown = append(cov.Unknown, PoolID(p.Name())+": decommission receipts could not be listed")
		}
	}
	return cov
}
