package cmdutil

import (
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

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
			return strings.TrimRight(f.FlagUsagesWrapped(Width(c.OutOrStdout())-1), " \n")
		})
	})
	tpl := root.UsageTemplate()
	tpl = strings.ReplaceAll(tpl, ".LocalFlags.FlagUsages | trimTrailingWhitespaces", "wrappedFlagUsages $ .LocalFlags")
	tpl = strings.ReplaceAll(tpl, ".InheritedFlags.FlagUsages | trimTrailingWhitespaces", "wrappedFlagUsages $ .InheritedFlags")
	root.SetUsageTemplate(tpl)
}
