package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Every command's --help fits an 80-column terminal: its Long and Example
// texts, its subcommands' summaries and its flags (cmdutil.WrapHelp).
// Widths are counted in runes, as a terminal counts columns.
func TestHelpFits80(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(newRootCommand(), nil)
	if len(paths) < 2 {
		t.Fatalf("found %d commands, want the root and its subcommands", len(paths))
	}
	for _, path := range paths {
		name := strings.Join(append([]string{"ilmctl"}, path...), " ")
		out, stderr, code := execute(t, append(path, "--help")...)
		if code != 0 {
			t.Errorf("%s --help: exit %d: %s", name, code, stderr)
			continue
		}
		if !strings.Contains(out, "Usage:") {
			t.Errorf("%s --help: no usage printed:\n%s", name, out)
		}
		for i, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%s --help: line %d is %d columns, more than 80:\n%s", name, i+1, n, l)
			}
		}
	}
}
