package recovery

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/render"
)

// oneJSONDocument makes every subcommand of cmd that takes -o print, with
// -o json, exactly one JSON document on stdout whatever its exit code, as
// reconcile and decom do: scripts parse stdout and must not get nothing
// (docs/design/recovery.md#json-output). The command's stdout is held
// back; on error, its document (or an empty one) gains "error" (the
// one-line message main prints) and "exit_code". Positional arguments are
// checked inside, so their usage errors get a document too. A flag that
// does not parse fails before any command runs and gets none.
func oneJSONDocument(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		oneJSONDocument(sub)
	}
	out := cmd.Flags().Lookup("output")
	if out == nil || cmd.RunE == nil {
		return
	}
	run, args := cmd.RunE, cmd.Args
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, a []string) error {
		check := func() error {
			if args != nil {
				if err := args(c, a); err != nil {
					return err
				}
			}
			return run(c, a)
		}
		if out.Value.String() != string(render.FormatJSON) {
			return check()
		}
		stdout := c.OutOrStdout()
		var held bytes.Buffer
		c.SetOut(&held)
		err := check()
		c.SetOut(stdout)
		if err == nil {
			_, werr := stdout.Write(held.Bytes())
			return werr
		}
		if werr := errorDocument(stdout, held.Bytes(), err); werr != nil {
			return werr
		}
		return err
	}
}

// errorDocument writes doc (a JSON object the command printed, or
// nothing) with "error" and "exit_code" added when absent.
func errorDocument(w io.Writer, doc []byte, err error) error {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(doc)) > 0 {
		if json.Unmarshal(doc, &m) != nil {
			_, werr := w.Write(doc) // not an object: the command's own document stands
			return werr
		}
	}
	if _, ok := m["error"]; !ok {
		m["error"], _ = json.Marshal(err.Error())
	}
	if _, ok := m["exit_code"]; !ok {
		m["exit_code"], _ = json.Marshal(cmdutil.Code(err))
	}
	return render.JSON(w, m)
}
