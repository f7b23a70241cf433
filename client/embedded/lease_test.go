package embedded

import (
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/leasetest"
)

// One Filer is one process's store: both "hosts" are passes in it.
func TestShardLeaseContract(t *testing.T) {
	now := testNow
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) (filer.ShardLeaser, filer.ShardLeaser) {
			f := openTest(t, Options{Clock: func() time.Time { return now }})
			return f, f
		},
		Expire: func(*testing.T) { now = now.Add(2 * time.Minute) },
	})
}
