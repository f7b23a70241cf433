package cmdutil

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		name        string
		s           string
		width       int
		first, rest string
		want        []string
	}{
		{"fits", "a bb ccc", 8, "", "  ", []string{"a bb ccc"}},
		{"no limit", "a bb ccc", 0, "", "  ", []string{"a bb ccc"}},
		{"hang counted in the width", "a bb ccc dd", 6, "", "  ", []string{"a bb", "  ccc", "  dd"}},
		{"a word wider than the room stays whole", "a verylongword b", 6, "", "  ", []string{"a", "  verylongword", "  b"}},
		{"flag name leads, spaces under it", "one two three", 14, "  -x   ", "       ", []string{"  -x   one two", "       three"}},
		{"a word wider than the room after the lead", "longword x", 9, "  -x   ", "       ", []string{"  -x   longword", "       x"}},
		{"runes, not bytes", "ééé ééé", 7, "", "", []string{"ééé ééé"}},
		{"empty", "", 10, "> ", "", []string{"> "}},
	} {
		if got := Wrap(tc.s, tc.width, tc.first, tc.rest); !cmp.Equal(got, tc.want) {
			t.Errorf("%s: Wrap(%q, %d, %q, %q) = %q, want %q", tc.name, tc.s, tc.width, tc.first, tc.rest, got, tc.want)
		}
	}
}

func TestWrapLine(t *testing.T) {
	for _, tc := range []struct {
		l    string
		w    int
		want []string
	}{
		{"  fits as it is", 15, []string{"  fits as it is"}},
		{"  wraps at its indentation", 14, []string{"  wraps at its", "  indentation"}},
		{"no indentation, two  spaces kept when it fits", 80, []string{"no indentation, two  spaces kept when it fits"}},
	} {
		if got := wrapLine(tc.l, tc.w); !cmp.Equal(got, tc.want) {
			t.Errorf("wrapLine(%q, %d) = %q, want %q", tc.l, tc.w, got, tc.want)
		}
	}
}
