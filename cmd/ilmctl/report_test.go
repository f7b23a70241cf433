package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// report is the one place an error leaves ilmctl: one line, then its
// hints, and the exit code of its kind, whatever wraps it.
func TestReport(t *testing.T) {
	cause := errors.New("no filer at d")
	for _, tc := range []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"success", nil, 0, ""},
		{"failure", cause, 1, "ilmctl: no filer at d\n"},
		{"failure with a hint", hint.With(cause, "run 'ilmctl filer load FIXTURE.json --filer d' first"), 1,
			"ilmctl: no filer at d\nilmctl: hint: run 'ilmctl filer load FIXTURE.json --filer d' first\n"},
		{"usage", cmdutil.Usage("--shards %q: want 0-15", "16"), 2, "ilmctl: --shards \"16\": want 0-15\n"},
		{"usage, wrapped, with a hint", fmt.Errorf("run: %w", hint.With(cmdutil.Usage("clock ahead"), "use --dry-run")), 2,
			"ilmctl: run: clock ahead\nilmctl: hint: use --dry-run\n"},
		{"incomplete", cmdutil.Incomplete(errors.New("pass halted")), 3, "ilmctl: pass halted\n"},
		{"rejected", cmdutil.Rejected(hint.With(errors.New("bucket odd rejected"), "fix the XML")), 4,
			"ilmctl: bucket odd rejected\nilmctl: hint: fix the XML\n"},
		{"incomplete outranks rejected", errors.Join(cmdutil.Rejected(cause), cmdutil.Incomplete(cause)), 3,
			"ilmctl: no filer at d\nno filer at d\n"},
		{"a built ExitError", &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: cause}, 2, "ilmctl: no filer at d\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := report(&stderr, tc.err); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.stderr)
			}
		})
	}
	for _, k := range []struct {
		kind error
		err  error
	}{{cmdutil.ErrUsage, cmdutil.Usage("x")}, {cmdutil.ErrIncomplete, cmdutil.Incomplete(cause)}, {cmdutil.ErrRejected, cmdutil.Rejected(cause)}} {
		if !errors.Is(fmt.Errorf("wrapped: %w", k.err), k.kind) || errors.Is(cause, k.kind) {
			t.Errorf("errors.Is does not tell %v apart", k.kind)
		}
	}
}
