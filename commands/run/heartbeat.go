package run

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// heartbeatLines is the heartbeat as stderr shows it: one line for a log
// or a pipe, which scrapers read whole; on a terminal, its key=value words
// wrapped to the width, continuations indented.
func heartbeatLines(hb string, stderr io.Writer) []string {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return []string{hb}
	}
	return wrapWords(hb, cmdutil.Width(stderr))
}

// wrapWords wraps line at spaces to width, each continuation indented by
// two spaces; a word longer than the width stays whole on its own line.
func wrapWords(line string, width int) []string {
	if width < 1 || utf8.RuneCountInString(line) <= width {
		return []string{line}
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(line) {
		switch {
		case cur == "":
			cur = w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= width:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = "  " + w
		}
	}
	return append(out, cur)
}
