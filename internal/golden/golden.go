// Package golden compares test output with files under a package's
// testdata/ directory. `go test ./pkg -update` rewrites them from the
// current output instead; review the diff before committing it, because
// the files pin the stable output operators and scripts read.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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

// Fits fails for every line of out that a terminal width columns wide
// would wrap (width runes or more, as a line ending in the last column
// moves the cursor to the next), or that ends in a blank.
func Fits(t testing.TB, name, out string, width int) {
	t.Helper()
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n >= width {
			t.Errorf("%s line %d is %d columns, not under %d:\n%s", name, i+1, n, width, line)
		}
		if strings.TrimRight(line, " ") != line {
			t.Errorf("%s line %d ends in blanks: %q", name, i+1, line)
		}
	}
}
