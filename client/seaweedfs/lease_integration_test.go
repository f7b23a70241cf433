//go:build integration

package seaweedfs_test

import (
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/itest"
	"github.com/ilmctl/ilmctl/internal/leasetest"
)

// Two Stores are two hosts: each takes shard leases from the filer's
// distributed lock service, and the second sees the first as the holder.
// The filer's clock cannot be advanced, so the expiry scenario waits out a
// two-second ttl.
func TestShardLeaseContractLive(t *testing.T) {
	const ttl = 2 * time.Second
	ft := itest.FilerEnv(t)
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) (filer.ShardLeaser, filer.ShardLeaser) {
			return itest.OpenFiler(t, ft), itest.OpenFiler(t, ft)
		},
		Expire: func(*testing.T) { time.Sleep(ttl + time.Second) },
		TTL:    ttl,
	})
}
