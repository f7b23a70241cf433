package cmdutil

import (
	"strings"
	"testing"
)

// TestDistinctPools: every refusal is one usage-error line naming both
// spellings (or the spec that does not parse); distinct pools pass.
func TestDistinctPools(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	source := PoolFlag{Flag: "--meta", Noun: "target pool", First: "source pool", FirstRule: "a pool cannot be its own target"}
	plain := PoolFlag{Flag: "--filer", Noun: "set"}
	for _, c := range []struct {
		f     PoolFlag
		specs []string
		want  string // "" when accepted
	}{
		{source, []string{".", "s3://h/b"}, ""},
		{source, []string{"dir:.", "./"}, "--meta ./ is the source pool --meta dir:.: a pool cannot be its own target"},
		{source, []string{"s3://h/b", "s3://H:80/b/"}, "--meta s3://H:80/b/ is the source pool --meta s3://h/b: a pool cannot be its own target"},
		{source, []string{"s3://h/a", "s3://h/b", "s3://h/b//"}, "--meta s3://h/b and --meta s3://h/b// name the same target pool (s3://h/b/): pass each target pool once"},
		{plain, []string{".", dir}, "--filer . and --filer " + dir + " name the same set"},
		{source, []string{".", "s3://h"}, `--meta bad pool "s3://h"`},
		{plain, []string{"seaweedfs://h:8888"}, "unsupported pool"},
		// A pool inside another goes with it: never a target of it.
		{source, []string{".", "./tgt"}, "--meta ./tgt lies inside --meta . (dir:" + dir + ")"},
		{source, []string{"s3://h/b", "s3://h/b/p"}, "--meta s3://h/b/p lies inside --meta s3://h/b (s3://h/b/)"},
		{source, []string{"s3://127.0.0.1:9000/b", "s3://127.0.0.1:09000/b"}, "is the source pool"},
	} {
		err := DistinctPools(c.f, c.specs)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.specs, err)
			}
			continue
		}
		if Code(err) != ExitUsage || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want a one-line usage error with %q", c.specs, err, c.want)
		}
	}
}
