package s3

import "github.com/ilmctl/ilmctl/core/filer"

// The optional store capabilities (core/filer) this backend has.
var (
	_ filer.ServerClock = (*Store)(nil)
	_ filer.MetaLogless = (*Store)(nil)
	_ filer.CASChecker  = (*Store)(nil)
)
