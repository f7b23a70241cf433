package recovery

import (
	"context"
	"errors"
	"strings"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// ReceiptPrefix is where decommission keeps its durable-namespace
// receipts (core/decom).
const ReceiptPrefix = decom.ReceiptRoot

// Coverage is what the decommission receipts say about a set of paths
// (docs/design/recovery.md#decommission-coverage).
type Coverage struct {
	// Active lists receipts (pool and key) that cover one of the paths and
	// carry no terminal checkpoint: the record is part of a decommission
	// run that has not finished with it.
	Active []string `json:"active_receipts"`
	// Unknown lists what could not be ruled out: a receipt for one of the
	// paths that fails strict decoding or names another path, a receipt
	// key that cannot be parsed but names one of the paths, or a pool
	// whose receipts cannot be listed. Unknown coverage refuses mutation
	// as active coverage does.
	Unknown []string `json:"unknown"`
}

// Covered reports whether mutation must be refused.
func (c Coverage) Covered() bool { return len(c.Active) > 0 || len(c.Unknown) > 0 }

// DecomCoverage reads every pool's decommission receipts through
// core/decom (ParseReceiptKey, Decode, Receipt.Terminal) and reports those
// that cover any of paths.
func DecomCoverage(ctx context.Context, pools []metastore.Store, paths ...string) Coverage {
	var cov Coverage
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	for _, p := range pools {
		pid := PoolID(p.Name())
		err := metastore.ListAll(ctx, p, ReceiptPrefix, 1000, func(objs []metastore.Object) error {
			for _, o := range objs {
				loc, err := decom.ParseReceiptKey(o.Key)
				if err != nil {
					for path := range want {
						if strings.Contains(o.Key, "/"+path+"/") {
							cov.Unknown = append(cov.Unknown, pid+" "+o.Key+": receipt key cannot be parsed")
						}
					}
					continue
				}
				if !want[loc.SourcePath] {
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
					cov.Unknown = append(cov.Unknown, pid+" "+o.Key+": receipt fails strict decoding")
				case r.SourcePath != loc.SourcePath:
					cov.Unknown = append(cov.Unknown, pid+" "+o.Key+": receipt names another source path than its key")
				case !r.Terminal():
					cov.Active = append(cov.Active, pid+" "+o.Key)
				}
			}
			return nil
		})
		if err != nil {
			cov.Unknown = append(cov.Unknown, pid+": decommission receipts could not be listed")
		}
	}
	return cov
}
