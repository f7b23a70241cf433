package run

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"golang.org/x/time/rate"
)

// checkFiler refuses a malformed --filer (client.CheckSpec) as a usage
// error, before the pass opens anything.
func checkFiler(spec string) error {
	if err := client.CheckSpec(spec); err != nil {
		return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err}
	}
	return nil
}

// parseShards reads --shards: "all", a range "0-7", a list "1,5,9", or a
// mix "0-3,9". nil means all shards; an empty value names none and is an
// error, not all (a script's unset variable must not widen a pass).
func parseShards(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "all":
		return nil, nil
	case "":
		return nil, fmt.Errorf("--shards is empty: pass all, a range 0-7 or a list 1,5,9")
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := shardNum(lo)
		if err != nil {
			return nil, fmt.Errorf("--shards %q: %w (examples: 0-7, 1,5,9)", s, err)
		}
		b := a
		if isRange {
			if b, err = shardNum(hi); err != nil {
				return nil, fmt.Errorf("--shards %q: %w (examples: 0-7, 1,5,9)", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("--shards %q: range %s is backwards", s, part)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

func shardNum(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > 15 {
		return 0, fmt.Errorf("%q is not a shard number 0-15", s)
	}
	return n, nil
}

// newLimiter builds this worker's share of the cluster delete rate:
// deletesPerSecond/workers tokens per second with burst/workers (or twice
// the rate when burst is 0). deletesPerSecond 0 means unlimited (nil).
func newLimiter(deletesPerSecond float64, burst, workers int) (*rate.Limiter, error) {
	switch {
	case math.IsNaN(deletesPerSecond) || math.IsInf(deletesPerSecond, 0):
		return nil, fmt.Errorf("--deletes-per-second %v is not a number of deletes per second (0 = unlimited)", deletesPerSecond)
	case deletesPerSecond < 0:
		return nil, fmt.Errorf("--deletes-per-second %v must be >= 0 (0 = unlimited)", deletesPerSecond)
	case burst < 0:
		return nil, fmt.Errorf("--burst %d must be >= 0 (0 = twice the rate)", burst)
	case workers < 1:
		return nil, fmt.Errorf("--workers %d must be >= 1", workers)
	}
	if deletesPerSecond == 0 {
		return nil, nil
	}
	share := deletesPerSecond / float64(workers)
	b := float64(burst) / float64(workers)
	if burst == 0 {
		b = 2 * share
	}
	return rate.NewLimiter(rate.Limit(share), max(1, int(math.Ceil(b)))), nil
}
