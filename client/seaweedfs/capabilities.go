package seaweedfs

import (
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/filer"
)

// The optional store capabilities (core/filer, core/dailyrun) this backend
// has: its own clock, a meta-log that can lose its newest events, and a
// lifecycle worker sharing the cursor files.
var (
	_ filer.ServerClock      = (*Store)(nil)
	_ filer.MetaLogRestarts  = (*Store)(nil)
	_ dailyrun.SharedCursors = (*Store)(nil)
)
