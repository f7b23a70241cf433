package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// TestFilerNamesDatabaseFile: --filer DIR/filer.db is refused in one line
// that names the directory to pass instead, by every command that opens a
// filer, and by load, which would otherwise try to create it.
func TestFilerNamesDatabaseFile(t *testing.T) {
	dir := loadFixture(t, previewFixture(""))
	db := filepath.Join(dir, "filer.db")
	want := "--filer " + db + " is the filer's database file, not its directory\nilmctl: hint: try --filer " + dir + "\n"
	for _, args := range [][]string{
		{"filer", "ls"},
		{"filer", "load", "../../testdata/demo/fixture.json"},
		{"run", "--dry-run", "--now", "2026-11-30T00:00:00Z"},
		{"explain", "--bucket", "logs", "--key", "app/old", "--now", "2026-11-30T00:00:00Z"},
	} {
		_, stderr, code := execute(t, append(args, "--filer", db)...)
		if code != cmdutil.ExitFailure || !strings.HasSuffix(stderr, want) || strings.Count(stderr, "\n") != 2 {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and a message and hint ending %q", args, code, stderr, want)
		}
	}
}
