package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wrap keeps lines within the width, breaks only at spaces, never splits a
// byte count from its unit, and gives an overlong word its own line.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"one two three", 7, []string{"one two", "three"}},
		{"frees 5.1 GiB, then", 9, []string{"frees", "5.1 GiB,", "then"}},
		{"a verylongwordhere b", 5, []string{"a", "verylongwordhere", "b"}},
		{"  spaced   out  ", 20, []string{"spaced out"}},
	} {
		if got := wrap(tc.s, tc.width); !cmp.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}
	long := strings.Repeat("word ", 60)
	for _, line := range wrap(long, whyWidth) {
		if len(line) > whyWidth {
			t.Errorf("line of %d > %d", len(line), whyWidth)
		}
	}
}
