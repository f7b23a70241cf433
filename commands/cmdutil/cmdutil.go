// Package cmdutil holds what every ilmctl command shares: the error kinds
// main turns into exit codes, the -o flag, and cobra helpers that report
// bad input as a usage error.
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
)

// Error kinds a command returns; errors.Is matches them through any
// wrapping, and Code maps them to exit codes. Every other error is a
// failure (exit 1).
var (
	// ErrUsage: bad flags or arguments, or input the command refuses
	// before doing any work.
	ErrUsage = errors.New("usage error")
	// ErrIncomplete: the pass (or scan) ran but did not finish.
	ErrIncomplete = errors.New("incomplete")
	// ErrRejected: the pass finished, but a bucket's lifecycle
	// configuration was rejected.
	ErrRejected = errors.New("configuration rejected")
)

// ExitError marks Err with the kind whose exit code is Code (ExitUsage,
// ExitIncomplete or ExitRejected). Its message is Err's alone.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUsage) (and the other kinds) match an
// ExitError of that kind's code.
func (e *ExitError) Is(target error) bool {
	switch target {
	case ErrUsage:
		return e.Code == ExitUsage
	case ErrIncomplete:
		return e.Code == ExitIncomplete
	case ErrRejected:
		return e.Code == ExitRejected
	}
	return false
}

// Usage is a bad-input error (ErrUsage) with a formatted message.
func Usage(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Incomplete marks err as ErrIncomplete.
func Incomplete(err error) error { return &ExitError{Code: ExitIncomplete, Err: err} }

// Rejected marks err as ErrRejected.
func Rejected(err error) error { return &ExitError{Code: ExitRejected, Err: err} }

// Code is the one table from error kinds to exit codes (README § Exit
// codes), used by main: ExitOK for nil, then usage, incomplete and
// rejected by errors.Is, ExitFailure for anything else. An error that is
// several kinds at once gets the first in that order.
func Code(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrUsage):
		return ExitUsage
	case errors.Is(err, ErrIncomplete):
		return ExitIncomplete
	case errors.Is(err, ErrRejected):
		return ExitRejected
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
