package cmdutil

import (
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/client/poolid"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// PoolFlag says how a repeated pool or set flag reads, for DistinctPools's
// messages.
type PoolFlag struct {
	Flag string // "--meta" or "--filer"
	Noun string // what one value is: "pool", "set"
	// First is the role of the first value when it has one of its own
	// ("source pool"), and FirstRule what naming it again breaks ("a pool
	// cannot be its own target"); both "" when every value is alike.
	First, FirstRule string
}

// DistinctPools refuses specs in which two values name one pool or set
// under any spelling, or one lies inside another (client/poolid,
// docs/design/decommission.md#pool-identity): a usage error on one line
// naming both spellings. A spec that does not parse is a usage error
// naming it.
func DistinctPools(f PoolFlag, specs []string) error {
	_, err := poolid.Distinct(specs)
	var tw *poolid.TwinError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tw) && tw.Nested:
		in, out := tw.A, tw.B
		if tw.Inner == tw.Second {
			in, out = tw.B, tw.A
		}
		return hint.With(Usage("%s %s lies inside %s %s (%s)", f.Flag, in.Spec, f.Flag, out.Spec, out.Key),
			fmt.Sprintf("each %s must name a place of its own: removing one would remove the other", f.Flag))
	case errors.As(err, &tw) && tw.First == 0 && f.First != "":
		return Usage("%s %s is the %s %s %s: %s", f.Flag, tw.B.Spec, f.First, f.Flag, tw.A.Spec, f.FirstRule)
	case errors.As(err, &tw):
		return Usage("%s %s and %s %s name the same %s (%s): pass each %s once", f.Flag, tw.A.Spec, f.Flag, tw.B.Spec, f.Noun, tw.A.Key, f.Noun)
	}
	return Usage("%s %v", f.Flag, err)
}
