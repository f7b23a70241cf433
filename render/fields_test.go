package render

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A record's long values wrap under VALUE; a digest too long for the
// column goes whole on its own line, one longer than a line is broken;
// no line reaches the width.
func TestFields(t *testing.T) {
	var b bytes.Buffer
	err := Fields(&b, "Record", [2]string{"FIELD", "VALUE"}, [][]string{
		{"control", "b17ceab5c2880f3f5ff40b1d7e6a1a0aa51b0c1f6d2e3a4b5c6d7e8f90a1b2c3"},
		{"digest", "b17ceab5c2880f3f5ff40b1d7e6a1a0a"},
		{"ready", "no: the control is corrupt; abandon it first"},
		{"state", ""},
	}, 40)
	if err != nil {
		t.Fatal(err)
	}
	want := `Record
FIELD     VALUE
control   b17ceab5c2880f3f5ff40b1d7e6a1
          a0aa51b0c1f6d2e3a4b5c6d7e8f90
          a1b2c3
digest
  b17ceab5c2880f3f5ff40b1d7e6a1a0a
ready     no: the control is corrupt;
          abandon it first
state     -
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

func TestWrapBreaksLongWords(t *testing.T) {
	for _, c := range []struct {
		s     string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"a b c", 10, []string{"a b c"}},
		{"aaaa bbbb cccc", 9, []string{"aaaa bbbb", "cccc"}},
		{"abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"x abcdefghij y", 5, []string{"x", "abcde", "fghij", "y"}},
	} {
		if diff := cmp.Diff(c.want, Wrap(c.s, c.width)); diff != "" {
			t.Errorf("Wrap(%q, %d) (-want +got):\n%s", c.s, c.width, diff)
		}
	}
}

// A detail line under a table wraps short of the width, its continuation
// lines indented further, a long key broken rather than shortened.
func TestIndented(t *testing.T) {
	var b bytes.Buffer
	if err := Indented(&b, "  ", "receipt_missing ilm/manual-transition/scopes/31/f2/31f206ed9d59.json: expected by the manifest", 40); err != nil {
		t.Fatal(err)
	}
	want := `  receipt_missing
    ilm/manual-transition/scopes/31/f2/
    31f206ed9d59.json: expected by the
    manifest
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("indented (-want +got):\n%s", diff)
	}
}

// A path keeps its last element when it can; otherwise it is shortened
// in the middle.
func TestShortenPath(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"app/api.log", 20, "app/api.log"},
		{"ilm/manual-transition/scopes/31/f2/31f206ed9d59….json", 29, "ilm/manua…/31f206ed9d59….json"},
		{"ilm/transition-transactions/records/d0/00/d0000000000040008000000000000001.json", 29, "ilm/transition…000000001.json"},
		{"a/verylongname.json", 12, "a/ver…e.json"},
		{"noslashatallinthisstring", 12, "nosla…string"},
	} {
		if got := ShortenPath(c.s, c.n); got != c.want {
			t.Errorf("ShortenPath(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
