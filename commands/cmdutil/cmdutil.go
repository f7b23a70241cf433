// Package cmdutil holds what every ilmctl command shares: exit codes, the
// -o flag, and the error type that carries an exit code to main.
package cmdutil

import (
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

// Exit codes, documented in README § Exit codes.
const (
	ExitOK         = 0 // success
	ExitFailure    = 1 // the command could not do its job (bad input, unreadable store)
	ExitUsage      = 2 // bad flags or arguments
	ExitIncomplete = 3 // the pass ran but did not finish: a shard halted, errored, or was cancelled; cursors were saved
	// ExitRejected: the pass finished, but a bucket's lifecycle
	// configuration was rejected and the bucket got no action. A pass that
	// also did not finish exits ExitIncomplete.
	ExitRejected = 4
	// ExitBlocked: `ilmctl decom verify` checked everything it needed and
	// found at least one reason the source pool may not be removed yet.
	ExitBlocked = 5
	// Reconcile outcomes other than migrated / ready-to-migrate
	// (docs/design/reconcile.md#outcomes): the remote state cannot be
	// proven; the record is corrupt or the plan stale; the tier or a set
	// could not be reached (retry).
	ExitRetainedAmbiguous  = 6
	ExitCorrupt            = 7
	ExitBackendUnavailable = 8
)

// ExitError carries an exit code with an error message for main to print.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Usage wraps a bad-input error with ExitUsage.
func Usage(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Incomplete wraps err with ExitIncomplete.
func Incomplete(err error) error { return &ExitError{Code: ExitIncomplete, Err: err} }

// Rejected wraps err with ExitRejected.
func Rejected(err error) error { return &ExitError{Code: ExitRejected, Err: err} }

// Blocked wraps err with ExitBlocked.
func Blocked(err error) error { return &ExitError{Code: ExitBlocked, Err: err} }

// Code returns the exit code for err: ExitOK for nil, the code of an
// ExitError, ExitFailure otherwise.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}

// AddOutputFlag registers -o/--output on cmd, defaulting to table, and
// returns a getter that validates it against the formats cmd supports
// (none given: table and json); any other value is a usage error naming
// the supported ones.
func AddOutputFlag(cmd *cobra.Command, supported ...render.Format) func() (render.Format, error) {
	if len(supported) == 0 {
		supported = []render.Format{render.FormatTable, render.FormatJSON}
	}
	var s string
	cmd.Flags().StringVarP(&s, "output", "o", string(render.FormatTable), "output format: "+render.JoinFormats(supported))
	return func() (render.Format, error) {
		f, err := render.ParseFormat(s, supported...)
		if err != nil {
			return "", &ExitError{Code: ExitUsage, Err: err}
		}
		return f, nil
	}
}

// DefaultFilerPath is where the embedded filer lives unless --filer says
// otherwise.
const DefaultFilerPath = "./ilmctl-data"

// NoArgs is cobra.NoArgs as a usage error (exit 2).
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usage("%s takes no arguments, got %q (see '%s --help')", cmd.CommandPath(), args[0], cmd.CommandPath())
	}
	return nil
}

// Group makes cmd a command group: run alone it prints its help, and an
// unknown subcommand is a usage error (exit 2) instead of cobra's help
// with exit 0.
func Group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return Usage("unknown command %q for %q (see '%s --help')", args[0], c.CommandPath(), c.CommandPath())
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	return cmd
}
