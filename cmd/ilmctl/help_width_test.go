package main

import (
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/spf13/cobra"
)

// Every command's --help fits an 80-column terminal: its Long and Example
// texts, its subcommands' summaries and its flags (cmdutil.WrapHelp),
// cobra's own help and completion commands included. Widths are counted
// in runes, as a terminal counts columns, a tab to the next multiple of 8.
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
	// cobra adds help and completion when the root executes; added
	// here, they are walked as an operator reaches them.
	root := newRootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	walk(root, nil)
	walked := map[string]bool{}
	for _, path := range paths {
		walked[strings.Join(path, " ")] = true
	}
	for _, want := range []string{"", "run", "help", "completion", "completion bash", "completion zsh", "completion fish", "completion powershell"} {
		if !walked[want] {
			t.Errorf("ilmctl %s: not walked", want)
		}
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
			if n := columns(l); n > 80 {
				t.Errorf("%s --help: line %d is %d columns, more than 80:\n%s", name, i+1, n, l)
			}
		}
	}
}

// columns is how wide l shows on a terminal: a rune a column, a tab to
// the next multiple of 8.
func columns(l string) int {
	n := 0
	for _, r := range l {
		if r == '\t' {
			n += 8 - n%8
			continue
		}
		n++
	}
	return n
}

// 'ilmctl help TOPIC' is a command's help; a topic that names no command
// is a usage error on one line, as a typo'd command is, not the root's
// help and exit 0.
func TestHelpTopic(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		stdoutHead string
		stderr     string
	}{
		{[]string{"help", "run"}, 0, "Run one S3 lifecycle pass against a filer and exit", ""},
		{[]string{"help", "journal", "ls"}, 0, "ls scans every pool under ilm/", ""},
		{[]string{"help", "bogus"}, cmdutil.ExitUsage, "", "ilmctl: no help topic \"bogus\": not an ilmctl command\nilmctl: hint: see 'ilmctl --help'\n"},
		{[]string{"help", "run", "bogus"}, cmdutil.ExitUsage, "", "ilmctl: no help topic \"run bogus\": not an ilmctl command\nilmctl: hint: see 'ilmctl --help'\n"},
	} {
		stdout, stderr, code := execute(t, tc.args...)
		if code != tc.code || !strings.HasPrefix(stdout, tc.stdoutHead) || (tc.code != 0 && stdout != "") || stderr != tc.stderr {
			t.Errorf("%v: exit %d, stdout %.60q, stderr %q; want exit %d, stdout starting %q, stderr %q",
				tc.args, code, stdout, stderr, tc.code, tc.stdoutHead, tc.stderr)
		}
	}
}
