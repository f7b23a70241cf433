package render

import (
	"time"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// Duration is how every human table prints a duration: its two largest
// units (lifecycle.FormatDuration).
func Duration(d time.Duration) string { return lifecycle.FormatDuration(d) }
