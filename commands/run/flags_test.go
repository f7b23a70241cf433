package run

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
