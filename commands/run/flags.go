package run

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/internal/hint"
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

// The environment --shards auto reads.
const (
	// envJobIndex is the index a Kubernetes Indexed Job gives each pod.
	envJobIndex = "JOB_COMPLETION_INDEX"
	// envHosts is N, the hosts sharing the shards, when --hosts is not set.
	envHosts = "ILMCTL_HOSTS"
)

// hostShareFlags are what make this pass one host of a fleet
// (docs/design/daily-run.md#host-shares).
type hostShareFlags struct {
	index      string // --shard-index I/N
	hosts      int    // --hosts N, with --shards auto
	workersSet bool   // --workers given on the command line
	getenv     func(string) string
}

// parse returns the host share --shard-index or --shards auto asks for,
// the zero HostShare when neither does. shards is --shards as given.
func (f hostShareFlags) parse(shards string) (dailyrun.HostShare, error) {
	auto := strings.TrimSpace(shards) == "auto"
	var h dailyrun.HostShare
	var src string
	switch {
	case f.index != "" && strings.TrimSpace(shards) != "all":
		return h, hint.With(cmdutil.Usage("--shard-index %s and --shards %s both choose shards", f.index, shards), "drop --shards: host I of N picks its own")
	case f.hosts != 0 && !auto:
		return h, hint.With(cmdutil.Usage("--hosts %d applies to --shards auto only", f.hosts), fmt.Sprintf("with --shard-index, N follows the slash: --shard-index 0/%d", f.hosts))
	case f.index != "":
		src = "--shard-index " + f.index
		i, n, ok := strings.Cut(f.index, "/")
		var err1, err2 error
		h.Index, err1 = strconv.Atoi(strings.TrimSpace(i))
		h.Hosts, err2 = strconv.Atoi(strings.TrimSpace(n))
		if !ok || err1 != nil || err2 != nil {
			return h, cmdutil.Usage("--shard-index %q is not I/N, host I of N (example: --shard-index 0/4)", f.index)
		}
	case auto:
		var err error
		if h, src, err = f.fromEnv(); err != nil {
			return h, err
		}
	default:
		return h, nil
	}
	if err := h.Check(); err != nil {
		return dailyrun.HostShare{}, cmdutil.Usage("%s: %w", src, err)
	}
	if f.workersSet {
		return dailyrun.HostShare{}, cmdutil.Usage("--workers with %s: the rate is already split by its %d hosts; drop --workers", src, h.Hosts)
	}
	return h, nil
}

// fromEnv reads --shards auto's index from $JOB_COMPLETION_INDEX and N
// from --hosts, else $ILMCTL_HOSTS; src names where they came from.
func (f hostShareFlags) fromEnv() (dailyrun.HostShare, string, error) {
	var h dailyrun.HostShare
	raw := f.getenv(envJobIndex)
	if raw == "" {
		return h, "", hint.With(cmdutil.Usage("--shards auto: $%s is not set", envJobIndex), "a Kubernetes Indexed Job sets it; elsewhere pass --shard-index I/N")
	}
	i, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil {
		return h, "", cmdutil.Usage("--shards auto: $%s=%q is not a host index", envJobIndex, raw)
	}
	h.Index, h.Hosts = i, f.hosts
	src := fmt.Sprintf("--shards auto ($%s=%d, --hosts %d)", envJobIndex, i, f.hosts)
	if f.hosts == 0 {
		rawN := f.getenv(envHosts)
		if rawN == "" {
			return h, "", cmdutil.Usage("--shards auto: how many hosts share the shards? pass --hosts N or set $%s", envHosts)
		}
		if h.Hosts, err = strconv.Atoi(strings.TrimSpace(rawN)); err != nil {
			return h, "", cmdutil.Usage("--shards auto: $%s=%q is not a number of hosts", envHosts, rawN)
		}
		src = fmt.Sprintf("--shards auto ($%s=%d, $%s=%d)", envJobIndex, i, envHosts, h.Hosts)
	}
	return h, src, nil
}
