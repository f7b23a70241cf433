package main

import (
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// TestNoSuchBucketEverywhere: a bucket the filer does not hold is one
// mistake, with one exit code (1), one message and one hint, in every
// command that takes a bucket name.
func TestNoSuchBucketEverywhere(t *testing.T) {
	dir := loadFixture(t, previewFixture(""))
	good := "../../testdata/rules/accepted.xml"
	for _, args := range [][]string{
		{"filer", "ls", "--bucket", "nope"},
		{"explain", "--bucket", "nope", "--key", "k", "--now", "2026-11-30T00:00:00Z"},
		{"run", "--dry-run", "--rules", "nope=" + good, "--now", "2026-11-30T00:00:00Z"},
		{"explain", "--bucket", "logs", "--key", "app/old", "--rules", "nope=" + good, "--now", "2026-11-30T00:00:00Z"},
	} {
		_, stderr, code := execute(t, append(args, "--filer", dir)...)
		if code != cmdutil.ExitFailure || !strings.Contains(stderr, `no such bucket "nope"`) ||
			!strings.Contains(stderr, "\nilmctl: hint: 'ilmctl filer ls") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1, no such bucket \"nope\" and a hint naming ilmctl filer ls", args, code, stderr)
		}
	}
}
