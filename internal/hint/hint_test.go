package hint

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type typed struct{}

func (typed) Error() string { return "typed cause" }
func (typed) Hint() string  { return "typed advice" }

func TestAll(t *testing.T) {
	base := errors.New("cause")
	for _, tc := range []struct {
		name string
		err  error
		want []string
		msg  string
	}{
		{"nil", nil, nil, ""},
		{"no hint", base, nil, "cause"},
		{"one", With(base, "do this"), []string{"do this"}, "cause"},
		{"wrapped", fmt.Errorf("context: %w", With(base, "do this")), []string{"do this"}, "context: cause"},
		{"outermost first", With(fmt.Errorf("outer: %w", With(base, "inner")), "outer"), []string{"outer", "inner"}, "outer: cause"},
		{"each once", With(With(base, "same"), "same"), []string{"same"}, "cause"},
		{"typed", fmt.Errorf("x: %w", typed{}), []string{"typed advice"}, "x: typed cause"},
		{"joined", errors.Join(With(base, "a"), With(errors.New("other"), "b")), []string{"a", "b"}, "cause\nother"},
		{"empty advice", With(base, ""), nil, "cause"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, All(tc.err)); diff != "" {
				t.Errorf("All (-want +got):\n%s", diff)
			}
			if tc.err != nil && tc.err.Error() != tc.msg {
				t.Errorf("Error() = %q, want %q: a hint never changes the message", tc.err.Error(), tc.msg)
			}
			if Is(tc.err) != (len(tc.want) > 0) {
				t.Errorf("Is = %v, want %v", Is(tc.err), len(tc.want) > 0)
			}
		})
	}
	if With(nil, "x") != nil {
		t.Error("With(nil) must stay nil")
	}
	if !errors.Is(With(base, "x"), base) {
		t.Error("errors.Is must see the cause through a hint")
	}
}
