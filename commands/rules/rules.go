// Package rules is `ilmctl rules`: lifecycle configurations checked
// before they reach a bucket.
package rules

import (
	"fmt"
	"io"
	"os"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

// NewCommand returns `ilmctl rules`.
func NewCommand() *cobra.Command {
	cmd := cmdutil.Group(&cobra.Command{
		Use:   "rules",
		Short: "Check lifecycle configurations before they reach a bucket",
	})
	cmd.AddCommand(newCheck())
	return cmd
}

func newCheck() *cobra.Command {
	var output func() (render.Format, error)
	cmd := &cobra.Command{
		Use:   "check FILE.xml",
		Short: "Check a lifecycle configuration with the parser a pass uses",
		Long: `Check a LifecycleConfiguration document (FILE, or - for stdin) with
the strict parser every pass uses on a bucket's stored configuration.

Accepted: a summary of each rule, one row per action (-o json: rules[]
with index, id, status, filter and actions). Rejected: the AWS error code
and text a pass would report for a bucket holding the document, on one
line (-o json: accepted false and error with code, rule_id, rule_index
and message). The parser stops at the first problem, so fix it and check
again.

To see what a candidate would do to live data, preview it with
'ilmctl run --dry-run --rules BUCKET=FILE.xml'.

Exit codes: 0 accepted; 1 the file cannot be read; 2 bad usage;
4 rejected (as a pass exits for a rejected configuration).`,
		Example: `  # An accepted configuration: what each rule does
  ilmctl rules check testdata/rules/accepted.xml

  # A rejected one: the error a pass would report, exit 4
  ilmctl rules check testdata/rules/rejected.xml

  # A bucket's stored configuration from stdin, for a script (s3cmd
  # prints the XML; aws s3api prints JSON, which is not checked)
  s3cmd getlifecycle s3://logs | ilmctl rules check - -o json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.SeeHelp(c.CommandPath(), "rules check takes one FILE.xml argument (- for stdin), got %d", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			format, err := output()
			if err != nil {
				return err
			}
			return runCheck(c.InOrStdin(), c.OutOrStdout(), args[0], format)
		},
	}
	output = cmdutil.AddOutputFlag(cmd)
	return cmd
}

// runCheck parses path's document (stdin for -) and prints the verdict.
func runCheck(stdin io.Reader, stdout io.Writer, path string, format render.Format) error {
	name, data, err := read(stdin, path)
	if err != nil {
		return err
	}
	cfg, perr := lifecycle.Parse(data)
	rep := render.NewRulesCheckReport(name, cfg, perr)
	switch {
	case format == render.FormatJSON:
		err = render.JSON(stdout, rep)
	case perr == nil:
		err = render.RulesTable(stdout, rep, cmdutil.Width(stdout))
	}
	if err != nil {
		return err
	}
	if perr != nil {
		return cmdutil.Rejected(hint.With(fmt.Errorf("%s: lifecycle configuration rejected: %w", name, perr),
			"fix the document and check it again; a bucket holding it gets no lifecycle action"))
	}
	return nil
}

// read returns the document at path and the name to report it by.
func read(stdin io.Reader, path string) (string, []byte, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return "", nil, fmt.Errorf("read stdin: %w", err)
		}
		return "stdin", data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("rules check: %w", err)
	}
	return path, data, nil
}
