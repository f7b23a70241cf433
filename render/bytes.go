package render

import "fmt"

// Bytes prints n bytes for a table in IEC units (B, KiB, MiB, GiB, TiB,
// PiB) with one decimal above bytes: 0 B, 512 B, 1.5 KiB, 2.0 GiB. JSON
// carries the exact count.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
