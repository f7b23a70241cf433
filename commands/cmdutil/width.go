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
// pflag wraps each flag's description under its name.
func WrapHelp(root *cobra.Command) {
	// cobra's template functions are one global map: registered once,
	// however many root commands a process (a test) builds.
	addTemplateFunc.Do(func() {
		cobra.AddTemplateFunc("wrappedFlagUsages", func(c *cobra.Command, f *pflag.FlagSet) string {
			w := Width(c.OutOrStdout()) - 1
			return strings.TrimRight(refill(f.FlagUsagesWrapped(w), w), " \n")
		})
		cobra.AddTemplateFunc("wrappedLine", func(c *cobra.Command, indent int, s string) string {
			return strings.Join(fill(s, Width(c.OutOrStdout())-1, indent), "\n"+strings.Repeat(" ", indent))
		})
	})
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
			wrapped := fill(rest, w, col)
			out = append(out, l[:col]+wrapped[0])
			for _, c := range wrapped[1:] {
				out = append(out, strings.Repeat(" ", col)+c)
			}
			continue
		}
		for _, c := range fill(body, w, indent) {
			out = append(out, strings.Repeat(" ", indent)+c)
		}
	}
	return strings.Join(out, "\n")
}

// fill breaks s at spaces into lines of at most w-indent runes (the
// first line's indentation is the caller's too); a word longer than
// that is a line of its own.
func fill(s string, w, indent int) []string {
	room := w - indent
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= room:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}
