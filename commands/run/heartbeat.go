package run

import (
	"io"
	"os"

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
	return wrapHeartbeat(hb, cmdutil.Width(stderr))
}

// wrapHeartbeat wraps the heartbeat to width, each continuation indented
// by two spaces under the daily_run: that leads it.
func wrapHeartbeat(hb string, width int) []string { return cmdutil.Wrap(hb, width, "", "  ") }
