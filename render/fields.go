package render

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Fields writes a two-column table of one record's fields, headed by
// header (FIELD, VALUE: what inspect and show print), short of width
// columns: a value too long for its column wraps onto lines of its own
// under the second column, at blanks, and a word longer than the column (a
// digest, a path) is broken across lines rather than shortened, since a
// record's view is where an operator reads its every character. Cells
// print as Table prints them (Cell).
func Fields(w io.Writer, title string, header [2]string, rows [][]string, width int) error {
	fieldW := utf8.RuneCountInString(header[0])
	for _, r := range rows {
		fieldW = max(fieldW, utf8.RuneCountInString(Cell(r[0])))
	}
	valueW := max(width-1-fieldW-columnGap, minFitCell)
	out := celled(rows)
	for _, r := range out {
		if len(r) > 1 {
			r[1] = strings.Join(Wrap(r[1], valueW), "\n")
		}
	}
	return table(w, title, header[:], out, colourFor(w))
}

// Wrap splits s into lines of at most width runes, at blanks where it
// can; a word longer than width is broken every width runes.
func Wrap(s string, width int) []string {
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(s) {
		wr := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(wr) <= width {
			cur = append(append(cur, ' '), wr...)
			continue
		}
		if len(cur) > 0 {
			lines = append(lines, string(cur))
		}
		for len(wr) > width {
			lines = append(lines, string(wr[:width]))
			wr = wr[width:]
		}
		cur = wr
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// Indented writes s as lines short of width columns, wrapped (Wrap), the
// first indented by indent and the rest by indent and two blanks more:
// how the lines under a table explain its rows in full.
func Indented(w io.Writer, indent, s string, width int) error {
	n := utf8.RuneCountInString(indent)
	lines := Wrap(Cell(s), max(width-1-n-2, minFitCell))
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(indent)
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
