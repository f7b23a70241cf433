package cmdutil

import (
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Width is the width of the terminal w is, else $COLUMNS, else 80: what
// a person reading w sees, so help and tables can stay short of it.
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if cols, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && cols > 0 {
		return cols
	}
	return 80
}

var addTemplateFunc sync.Once

// WrapHelp makes every command under root print its flags wrapped to the
// width of its output (Width), so `--help` reads in an 80-column terminal:
// pflag wraps each flag's description under its name. A command's
// description is written for 80 columns and printed as written, but for
// cobra's completion commands' text, which is not ours to write: a line
// wider than 80 columns wraps at its indentation, and a command indented
// by a tab (8 columns) is indented by two spaces, as ours are, so it
// stays whole on its line.
func WrapHelp(root *cobra.Command) {
	// cobra's template functions are one global map: registered once,
	// however many root commands a process (a test) builds.
	addTemplateFunc.Do(func() {
		cobra.AddTemplateFunc("wrappedFlagUsages", func(c *cobra.Command, f *pflag.FlagSet) string {
			w := Width(c.OutOrStdout()) - 1
			return strings.TrimRight(refill(f.FlagUsagesWrapped(w), w), " \n")
		})
		cobra.AddTemplateFunc("wrappedLine", func(c *cobra.Command, indent int, s string) string {
			// The first line sits where the template put it, kept
			// as short as the continuations.
			pad := strings.Repeat(" ", indent)
			return strings.TrimPrefix(strings.Join(Wrap(s, Width(c.OutOrStdout())-1, pad, pad), "\n"), pad)
		})
		cobra.AddTemplateFunc("wrappedText", func(s string) string {
			// Not the terminal's width: a narrower terminal would
			// get paragraphs broken line by line, ragged.
			var out []string
			for _, l := range strings.Split(strings.TrimRight(s, " \t\n"), "\n") {
				if rest, ok := strings.CutPrefix(l, "\t"); ok {
					l = "  " + rest
				}
				out = append(out, wrapLine(l, 79)...)
			}
			return strings.Join(out, "\n")
		})
	})
	// cobra adds its completion command (and its Long) when the root
	// executes, after this: the help template, which every command
	// inherits, is what reaches it.
	root.SetHelpTemplate(strings.Replace(root.HelpTemplate(), "{{. | trimTrailingWhitespaces}}", "{{wrappedText .}}", 1))
	tpl := root.UsageTemplate()
	tpl = strings.ReplaceAll(tpl, ".LocalFlags.FlagUsages | trimTrailingWhitespaces", "wrappedFlagUsages $ .LocalFlags")
	tpl = strings.ReplaceAll(tpl, ".InheritedFlags.FlagUsages | trimTrailingWhitespaces", "wrappedFlagUsages $ .InheritedFlags")
	// A long usage line (a command with required flags) continues
	// indented under itself; the closing hint of a deep command wraps.
	tpl = strings.ReplaceAll(tpl, "  {{.UseLine}}", "  {{wrappedLine $ 6 .UseLine}}")
	tpl = strings.ReplaceAll(tpl, `Use "{{.CommandPath}} [command] --help" for more information about a command.`,
		`{{wrappedLine $ 0 (printf "Use \"%s [command] --help\" for more information about a command." .CommandPath)}}`)
	root.SetUsageTemplate(tpl)
}

// refill wraps again the lines of pflag's wrapped flag usages that are
// still wider than w: pflag leaves a description whose word is wider
// than its column unwrapped from that word on (a long flag name or an
// s3:// URL in a description). A flag's first line wraps at its
// description's column, a continuation line at its own indentation; a
// word wider than the room stays whole on a line of its own.
func refill(usages string, w int) string {
	lines := strings.Split(usages, "\n")
	var out []string
	for _, l := range lines {
		if utf8.RuneCountInString(l) <= w {
			out = append(out, l)
			continue
		}
		body := strings.TrimLeft(l, " ")
		indent := len(l) - len(body)
		if indent <= 6 && strings.HasPrefix(body, "-") {
			// "  -o, --output string   description": the
			// description starts after the first gap of two spaces.
			gap := strings.Index(body, "  ")
			if gap < 0 {
				out = append(out, l)
				continue
			}
			rest := strings.TrimLeft(body[gap:], " ")
			col := len(l) - len(rest)
			out = append(out, Wrap(rest, w, l[:col], strings.Repeat(" ", col))...)
			continue
		}
		out = append(out, wrapLine(l, w)...)
	}
	return strings.Join(out, "\n")
}

// wrapLine is l, or when l is wider than w runes, l wrapped at spaces
// with every line at l's indentation.
func wrapLine(l string, w int) []string {
	if utf8.RuneCountInString(l) <= w {
		return []string{l}
	}
	body := strings.TrimLeft(l, " \t")
	lead := l[:len(l)-len(body)]
	return Wrap(body, w, lead, lead)
}

// Wrap breaks s at spaces into lines of at most width runes, the first
// line led by first and every later one by rest (a flag's name and the
// spaces under it; "" and a two-space hang for a log line on a terminal),
// their runes counted in the width. A word wider than the room left is a
// line of its own, whole; a width below 1 is no limit.
func Wrap(s string, width int, first, rest string) []string {
	var lines []string
	line := first
	empty := true // line holds its lead only
	for _, word := range strings.Fields(s) {
		switch {
		case empty:
			line += word
			empty = false
		case width < 1 || utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = rest + word
		}
	}
	return append(lines, line)
}
