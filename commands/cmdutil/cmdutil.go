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

// AddOutputFlag registers -o/--output on cmd and returns a getter that
// validates it.
func AddOutputFlag(cmd *cobra.Command) func() (render.Format, error) {
	var s string
	cmd.Flags().StringVarP(&s, "output", "o", "table", "output format: table or json")
	return func() (render.Format, error) {
		f, err := render.ParseFormat(s)
		if err != nil {
			return "", &ExitError{Code: ExitUsage, Err: err}
		}
		return f, nil
	}
}

// DefaultFilerPath is where the embedded filer lives unless --filer says
// otherwise.
const DefaultFilerPath = "./ilmctl-data"
