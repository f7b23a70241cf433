// Package cmdutil holds what every ilmctl command shares: the error kinds
// main turns into exit codes, the -o flag, and cobra helpers that report
// bad input as a usage error.
package cmdutil

import (
	"errors"
	"fmt"

	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

// Exit codes, documented in docs/exit-codes.md.
const (
	ExitOK         = 0 // success
	ExitFailure    = 1 // the command could not do its job (bad input, unreadable store)
	ExitUsage      = 2 // bad flags or arguments
	ExitIncomplete = 3 // the pass ran but did not finish: a shard halted, errored, or was cancelled; cursors were saved
	// ExitRejected: the pass finished, but a bucket's lifecycle
	// configuration (or its --rules candidate) was rejected and the
	// bucket got no action; `rules check` exits with it for a rejected
	// document. A pass that also did not finish exits ExitIncomplete.
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
	// configuration was rejected; or `rules check` rejected its document.
	ErrRejected = errors.New("configuration rejected")
	// ErrBlocked: decom verify found a reason the pool may not go yet.
	ErrBlocked = errors.New("blocked")
	// ErrRetainedAmbiguous, ErrCorrupt, ErrBackendUnavailable: reconcile
	// outcomes other than migrated / ready-to-migrate.
	ErrRetainedAmbiguous  = errors.New("retained-ambiguous")
	ErrCorrupt            = errors.New("corrupt")
	ErrBackendUnavailable = errors.New("backend-unavailable")
)

// exitKinds maps each kind to its exit code, in precedence order: an
// unfinished pass (3) outranks a rejected configuration (4).
var exitKinds = []struct {
	kind error
	code int
}{
	{ErrUsage, ExitUsage},
	{ErrIncomplete, ExitIncomplete},
	{ErrRejected, ExitRejected},
	{ErrBlocked, ExitBlocked},
	{ErrRetainedAmbiguous, ExitRetainedAmbiguous},
	{ErrCorrupt, ExitCorrupt},
	{ErrBackendUnavailable, ExitBackendUnavailable},
}

// ExitError marks Err with the kind whose exit code is Code (see
// exitKinds). Its message is Err's alone.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUsage) (and the other kinds) match an
// ExitError of that kind's code.
func (e *ExitError) Is(target error) bool {
	for _, k := range exitKinds {
		if k.kind == target {
			return e.Code == k.code
		}
	}
	return false
}

// Usage is a bad-input error (ErrUsage) with a formatted message.
func Usage(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// SeeHelp is Usage with the hint "see 'PATH --help'", printed on a line
// of its own, so the message itself stays short.
func SeeHelp(cmdPath, format string, args ...any) error {
	return hint.With(Usage(format, args...), "see '"+cmdPath+" --help'")
}

// Incomplete marks err as ErrIncomplete.
func Incomplete(err error) error { return &ExitError{Code: ExitIncomplete, Err: err} }

// Rejected marks err as ErrRejected.
func Rejected(err error) error { return &ExitError{Code: ExitRejected, Err: err} }

// Blocked marks err as ErrBlocked.
func Blocked(err error) error { return &ExitError{Code: ExitBlocked, Err: err} }

// Code is the one table from error kinds to exit codes (docs/exit-codes.md), used by main: ExitOK for nil, then each kind of exitKinds by
// errors.Is, in that order when an error is several at once; an
// ExitError with a code outside the table keeps its code; ExitFailure for
// anything else.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	for _, k := range exitKinds {
		if errors.Is(err, k.kind) {
			return k.code
		}
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

// UnknownCommand is the usage error for name, given to the group c as a
// subcommand it does not have: a hint names the closest subcommand when
// one is near, else the group's help.
func UnknownCommand(c *cobra.Command, name string) error {
	err := Usage("unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		return hint.With(err, fmt.Sprintf("did you mean '%s %s'? (see '%s --help')", c.CommandPath(), s[0], c.CommandPath()))
	}
	return hint.With(err, "see '"+c.CommandPath()+" --help'")
}

// NoArgs is cobra.NoArgs as a usage error (exit 2).
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return SeeHelp(cmd.CommandPath(), "%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// Group makes cmd a command group: run alone it prints its help, and an
// unknown subcommand is a usage error (exit 2) instead of cobra's help
// with exit 0. A flag the group does not have is a usage error too (the
// root's flag error function), so that "ilmctl --quiet run", where cobra
// takes "run" for the flag's value, cannot print the help and exit 0
// without running anything; a mistyped subcommand followed by its flags
// (ilmctl filer list --filer d) is reported as the unknown command
// (UnknownCommand), not as the flag.
func Group(cmd *cobra.Command) *cobra.Command {
	cmd.SuggestionsMinimumDistance = 2
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return UnknownCommand(c, args[0])
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	return cmd
}
