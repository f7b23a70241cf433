// Package golden compares test output with files under a package's
// testdata/ directory. `go test ./pkg -update` rewrites them from the
// current output instead; review the diff before committing it, because
// the files pin the stable output operators and scripts read.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// Check compares got with testdata/name (relative to the test's package
// directory), or rewrites that file under -update. hint, when not empty,
// is added to the failure to say what usually moves the output.
func Check(t testing.TB, name, got, hint string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update in the package directory writes it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got). %sIf the new output is right, go test -run '%s' -update in the package directory rewrites it.\n%s", path, hint, t.Name(), diff)
	}
}
