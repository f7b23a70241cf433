package cmdutil

import (
	"fmt"

	coreexplain "github.com/ilmctl/ilmctl/core/explain"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// NoSuchBucket is the error of every command given a --bucket the filer
// does not hold: a failure (exit 1), not a usage error, since the flag is
// well formed and only the filer can say the bucket is missing. It
// matches core/explain.ErrNoBucket.
func NoSuchBucket(bucket, filer string) error {
	return hint.With(fmt.Errorf("%w %q on %s: check --bucket", coreexplain.ErrNoBucket, bucket, filer),
		fmt.Sprintf("'ilmctl filer ls --filer %s' lists its buckets", filer))
}
