//go:build !unix

package s3

import (
	"context"
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// lease refuses: without flock a state directory cannot show that one
// pass alone runs a shard (docs/design/daily-run.md#shard-leases).
func (d *dirState) lease(context.Context, int, string, time.Duration) (filer.Lease, error) {
	return nil, fmt.Errorf("state dir %s: shard leases need flock, which this system lacks; keep state in a bucket (--state s3://bucket/prefix)", d.root)
}
