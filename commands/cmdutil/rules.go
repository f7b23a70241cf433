package cmdutil

import (
	"context"
	"fmt"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
)

// Rules is every bucket's lifecycle input as `ilmctl run` and `ilmctl
// explain` read it: one parser, so both see the same rules.
type Rules struct {
	// Listed is every bucket as the store lists it, sorted by name.
	Listed []filer.Bucket
	// Accepted holds the buckets whose configuration parsed, for
	// engine.Compile; a bucket without a configuration is in neither list.
	Accepted []engine.Bucket
	// Rejected holds the buckets whose XML was rejected: they get no
	// action (fail closed) and are reported.
	Rejected []engine.BucketError
}

// LoadRules lists the buckets and parses each one's lifecycle XML.
func LoadRules(ctx context.Context, st filer.Store) (Rules, error) {
	bs, err := st.ListBuckets(ctx)
	if err != nil {
		return Rules{}, fmt.Errorf("list buckets: %w", err)
	}
	out := Rules{Listed: bs}
	out.Accepted, out.Rejected = engine.ParseBuckets(bs)
	return out, nil
}
