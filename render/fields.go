package render

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Fields writes a two-column list of one record's fields, headed by
// header (FIELD, VALUE: what inspect and show print), short of width
// columns. A record's view is where an operator reads and copies its
// every character, so a long value is never shortened: it wraps under
// the VALUE column at blanks, and a single word too long for that column
// (a 64-digit ID that abandon takes, a path) goes whole on a line of its
// own, indented by two, when it fits there; only a word longer than a
// line is broken. Fields lays the list out itself rather than through
// tablewriter, which cannot let one cell start on the next line.
func Fields(w io.Writer, title string, header [2]string, rows [][]string, width int) error {
	if title != "" {
		if _, err := fmt.Fprintln(w, Title(w, title)); err != nil {
			return err
		}
	}
	fieldW := utf8.RuneCountInString(header[0])
	for _, r := range rows {
		fieldW = max(fieldW, utf8.RuneCountInString(Cell(r[0])))
	}
	valueW := max(width-1-fieldW-columnGap, minFitCell)
	lineW := max(width-1-2, minFitCell)
	pad := strings.Repeat(" ", fieldW+columnGap)
	var b strings.Builder
	line := func(field, value string) {
		b.WriteString(field)
		if value != "" {
			b.WriteString(strings.Repeat(" ", fieldW+columnGap-utf8.RuneCountInString(field)))
			b.WriteString(value)
		}
		b.WriteByte('\n')
	}
	line(header[0], header[1])
	for _, r := range rows {
		field, value := Cell(r[0]), ""
		if len(r) > 1 {
			value = Cell(r[1])
		}
		n := utf8.RuneCountInString(value)
		if n > valueW && !strings.ContainsRune(value, ' ') && n <= lineW {
			line(field, "")
			b.WriteString("  " + value + "\n")
			continue
		}
		for i, l := range Wrap(value, valueW) {
			if i == 0 {
				line(field, l)
			} else {
				b.WriteString(pad + l + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WrapLast writes a table short of width columns whose last column (a
// value, a reason, a result: text) wraps onto lines of its own under that
// column, at blanks, and a word longer than the column (a digest, a path)
// is broken across lines rather than shortened. The other columns print
// whole; the last column is never narrower than 12. Cells print as Table
// prints them (Cell).
func WrapLast(w io.Writer, title string, header []string, rows [][]string, width int) error {
	out := celled(rows)
	last := len(header) - 1
	used := columnGap * last
	for j := 0; j < last; j++ {
		n := utf8.RuneCountInString(Cell(header[j]))
		for _, r := range out {
			if j < len(r) {
				n = max(n, utf8.RuneCountInString(r[j]))
			}
		}
		used += n
	}
	lastW := max(width-1-used, minFitCell)
	for _, r := range out {
		if len(r) > last {
			r[last] = strings.Join(Wrap(r[last], lastW), "\n")
		}
	}
	return table(w, title, header, out, colourFor(w))
}

// ShortHex shortens, in free text, every run of 32 or more lowercase hex
// digits (a digest, an ID) to its first ShortIDLen and "…", for a table
// row that names a record its table already identifies; -o wide and JSON
// keep them whole.
func ShortHex(s string) string {
	return longHex.ReplaceAllStringFunc(s, func(h string) string { return h[:ShortIDLen] + "…" })
}

var longHex = regexp.MustCompile(`[0-9a-f]{32,}`)

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
