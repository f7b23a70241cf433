package dailyrun

import (
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// MaxHosts is the most hosts that can share a cluster's shards: one shard
// each.
const MaxHosts = lifecycle.ShardCount

// ErrBadHostShare is the cause of every HostShare.Check failure.
var ErrBadHostShare = errors.New("bad host share")

// HostShare makes a pass host Index of Hosts identical hosts sharing the
// 16 shards without a coordinator (docs/design/daily-run.md#host-shares).
// Hosts 0 means the pass is not one of a fleet.
type HostShare struct {
	Index, Hosts int
}

// Check says whether h names a host of a fleet: Hosts 1-16, Index
// 0..Hosts-1.
func (h HostShare) Check() error {
	switch {
	case h.Hosts < 1 || h.Hosts > MaxHosts:
		return fmt.Errorf("%w: %d hosts: a fleet has 1 to %d", ErrBadHostShare, h.Hosts, MaxHosts)
	case h.Index < 0 || h.Index >= h.Hosts:
		return fmt.Errorf("%w: index %d of %d hosts: it must be 0 to %d", ErrBadHostShare, h.Index, h.Hosts, h.Hosts-1)
	}
	return nil
}

// first is the first shard of host i's block: the blocks cut 0-15 into
// Hosts runs whose sizes differ by at most one.
func (h HostShare) first(i int) int { return i * lifecycle.ShardCount / h.Hosts }

// Size is how many shards this host runs when every host runs: its
// block's.
func (h HostShare) Size() int { return h.first(h.Index+1) - h.first(h.Index) }

// Order is the order this host tries the shards' leases in: every shard,
// starting at its own block and wrapping, so hosts that start together
// begin on different shards and one whose block is held takes the
// next free one.
func (h HostShare) Order() []int {
	out := make([]int, lifecycle.ShardCount)
	start := h.first(h.Index)
	for i := range out {
		out[i] = (start + i) % lifecycle.ShardCount
	}
	return out
}
