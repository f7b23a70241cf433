// Package hint attaches operator advice to an error without putting it in
// Error(): the message says what went wrong in one line, the hint says what
// to do about it, and cmd/ilmctl prints each on its own line after the
// message. A few lines of our own rather than cockroachdb/errors, whose
// WithHint does the same but brings stack capture, redaction and a
// protobuf wire format ilmctl has no use for.
package hint

import "errors"

// Hinter is an error that carries advice for the operator. Error types of
// any layer implement it to keep their advice beside the cause.
type Hinter interface {
	error
	Hint() string
}

// withHint is err plus one piece of advice.
type withHint struct {
	err  error
	hint string
}

func (e *withHint) Error() string { return e.err.Error() }
func (e *withHint) Unwrap() error { return e.err }
func (e *withHint) Hint() string  { return e.hint }

// With returns err with advice attached; errors.Is and errors.As see err
// through it. A nil err stays nil; an empty advice returns err unchanged.
func With(err error, advice string) error {
	if err == nil || advice == "" {
		return err
	}
	return &withHint{err: err, hint: advice}
}

// All returns every hint in err's tree, outermost first, each once.
func All(err error) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if h, ok := e.(Hinter); ok {
			if s := h.Hint(); s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, c := range u.Unwrap() {
				walk(c)
			}
		}
	}
	walk(err)
	return out
}

// Is reports whether err carries any hint.
func Is(err error) bool {
	var h Hinter
	return errors.As(err, &h)
}
