package run

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"golang.org/x/time/rate"
)

func TestParseShards(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"all", nil, ""},
		{"", nil, "--shards is empty"},
		{"  ", nil, "--shards is empty"},
		{"0-7", []int{0, 1, 2, 3, 4, 5, 6, 7}, ""},
		{"1,5,9", []int{1, 5, 9}, ""},
		{"0-1, 14-15", []int{0, 1, 14, 15}, ""},
		{"15", []int{15}, ""},
		{"16", nil, "not a shard number 0-15"},
		{"-1", nil, `--shards "-1": "" is not a shard number`},
		{"7-3", nil, "backwards"},
		{"a", nil, "not a shard number"},
		{"1,,2", nil, "not a shard number"},
	} {
		got, err := parseShards(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseShards(%q) err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tc.want) {
			t.Errorf("parseShards(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestNewLimiter(t *testing.T) {
	for _, tc := range []struct {
		name           string
		dps            float64
		burst, workers int
		wantNil        bool
		wantLimit      rate.Limit
		wantBurst      int
		wantErr        string
	}{
		{"unlimited", 0, 0, 1, true, 0, 0, ""},
		{"burst defaults to twice the rate", 100, 0, 1, false, 100, 200, ""},
		{"workers split rate and burst", 500, 100, 2, false, 250, 50, ""},
		{"workers split default burst", 500, 0, 4, false, 125, 250, ""},
		{"tiny share keeps a burst of one", 1, 0, 10, false, 0.1, 1, ""},
		{"negative rate", -1, 0, 1, false, 0, 0, "--deletes-per-second"},
		{"negative burst", 1, -1, 1, false, 0, 0, "--burst"},
		{"zero workers", 1, 0, 0, false, 0, 0, "--workers"},
		{"NaN rate", math.NaN(), 0, 1, false, 0, 0, "is not a number"},
		{"infinite rate", math.Inf(1), 0, 1, false, 0, 0, "is not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := newLimiter(tc.dps, tc.burst, tc.workers)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantNil {
				if l != nil {
					t.Fatalf("limiter = %v, want nil (unlimited)", l)
				}
				return
			}
			if l.Limit() != tc.wantLimit || l.Burst() != tc.wantBurst {
				t.Fatalf("limit %v burst %d, want %v %d", l.Limit(), l.Burst(), tc.wantLimit, tc.wantBurst)
			}
		})
	}
}

func TestHostShareFlags(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name    string
		shards  string
		f       hostShareFlags
		want    dailyrun.HostShare
		wantErr string
	}{
		{"none", "all", hostShareFlags{getenv: env()}, dailyrun.HostShare{}, ""},
		{"index", "all", hostShareFlags{index: "1/4", getenv: env()}, dailyrun.HostShare{Index: 1, Hosts: 4}, ""},
		{"auto with --hosts", "auto", hostShareFlags{hosts: 4, getenv: env("JOB_COMPLETION_INDEX", "3")}, dailyrun.HostShare{Index: 3, Hosts: 4}, ""},
		{"auto from env", "auto", hostShareFlags{getenv: env("JOB_COMPLETION_INDEX", "0", "ILMCTL_HOSTS", "2")}, dailyrun.HostShare{Index: 0, Hosts: 2}, ""},
		{"--hosts wins over env", "auto", hostShareFlags{hosts: 3, getenv: env("JOB_COMPLETION_INDEX", "2", "ILMCTL_HOSTS", "2")}, dailyrun.HostShare{Index: 2, Hosts: 3}, ""},
		{"index past N", "all", hostShareFlags{index: "4/4", getenv: env()}, dailyrun.HostShare{}, "--shard-index 4/4: bad host share: index 4 of 4 hosts: it must be 0 to 3"},
		{"too many hosts", "all", hostShareFlags{index: "0/17", getenv: env()}, dailyrun.HostShare{}, "17 hosts: a fleet has 1 to 16"},
		{"not I/N", "all", hostShareFlags{index: "2", getenv: env()}, dailyrun.HostShare{}, `--shard-index "2" is not I/N`},
		{"with --shards", "0-7", hostShareFlags{index: "0/2", getenv: env()}, dailyrun.HostShare{}, "both choose shards"},
		{"with auto", "auto", hostShareFlags{index: "0/2", getenv: env()}, dailyrun.HostShare{}, "both choose shards"},
		{"with --workers", "all", hostShareFlags{index: "0/2", workersSet: true, getenv: env()}, dailyrun.HostShare{}, "split by its 2 hosts; drop --workers"},
		{"--hosts without auto", "all", hostShareFlags{hosts: 2, getenv: env()}, dailyrun.HostShare{}, "--hosts 2 applies to --shards auto only"},
		{"auto without index", "auto", hostShareFlags{hosts: 2, getenv: env()}, dailyrun.HostShare{}, "$JOB_COMPLETION_INDEX is not set"},
		{"auto without N", "auto", hostShareFlags{getenv: env("JOB_COMPLETION_INDEX", "0")}, dailyrun.HostShare{}, "pass --hosts N or set $ILMCTL_HOSTS"},
		{"auto bad N", "auto", hostShareFlags{getenv: env("JOB_COMPLETION_INDEX", "0", "ILMCTL_HOSTS", "x")}, dailyrun.HostShare{}, `$ILMCTL_HOSTS="x" is not a number`},
		{"auto index past N", "auto", hostShareFlags{getenv: env("JOB_COMPLETION_INDEX", "5", "ILMCTL_HOSTS", "4")}, dailyrun.HostShare{}, "($JOB_COMPLETION_INDEX=5, $ILMCTL_HOSTS=4): bad host share: index 5 of 4"},
	} {
		got, err := tc.f.parse(tc.shards)
		if tc.wantErr != "" {
			var ee *cmdutil.ExitError
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
				t.Errorf("%s: err %v, want usage error %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// A host of N takes 1/N of the rate, as --workers N does, and runs no
// --shards list.
func TestHostShareSplitsTheRate(t *testing.T) {
	o := &options{runtime: time.Minute, filer: "./x", shards: "all", deletesPerSecond: 500, workers: 1,
		hostShare: hostShareFlags{index: "1/4", getenv: func(string) string { return "" }}}
	cfg, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Shards != nil || cfg.HostShare != (dailyrun.HostShare{Index: 1, Hosts: 4}) {
		t.Errorf("shards %v, host share %+v", cfg.Shards, cfg.HostShare)
	}
	if got := cfg.Limiter.Limit(); got != 125 {
		t.Errorf("rate %v, want 125 (500/4)", got)
	}
}

// --workers on the command line is refused beside --shard-index, however
// it is spelled; its default is not.
func TestShardIndexRefusesWorkersFlag(t *testing.T) {
	cmd := NewCommand()
	cmd.SetArgs([]string{"--shard-index", "0/2", "--workers", "1", "--filer", t.TempDir()})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "drop --workers") {
		t.Fatalf("err %v, want the --workers conflict", err)
	}
}
