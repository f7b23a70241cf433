// Package render formats command results: human tables (borderless,
// left-aligned columns as kubectl prints them, titles in bold only on a
// terminal and never under NO_COLOR), JSON that pipes cleanly into jq and
// JSON lines. It owns no domain types: its *Report types are the JSON and
// table views of core results (dailyrun.Result, engine.BucketError), and
// errors reach it as errors. JSON field names are snake_case and stable
// (cmd/ilmctl/testdata/*.json pin them).
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-isatty"
)

// Format is an output format selected with -o.
type Format string

// Output formats.
const (
	// FormatTable is what an operator acts on, fitting the terminal.
	FormatTable Format = "table"
	// FormatWide is every row and every column, full identifiers.
	FormatWide Format = "wide"
	// FormatJSON is one JSON document.
	FormatJSON Format = "json"
	// FormatJSONL is a stream of JSON objects, one per line.
	FormatJSONL Format = "jsonl"
)

// ParseFormat validates an -o value against the formats a command
// supports; none given means table and json.
func ParseFormat(s string, supported ...Format) (Format, error) {
	if len(supported) == 0 {
		supported = []Format{FormatTable, FormatJSON}
	}
	for _, f := range supported {
		if Format(s) == f {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown output format -o %q: use %s", s, JoinFormats(supported))
}

// JoinFormats spells formats for help and errors: "table, wide or json".
func JoinFormats(fs []Format) string {
	var b strings.Builder
	for i, f := range fs {
		switch {
		case i == 0:
		case i == len(fs)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(f))
	}
	return b.String()
}

// JSON writes v as indented JSON followed by a newline. HTML characters are
// not escaped so keys like "a<b" read as written.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// columnGap is the space between table columns, as kubectl leaves it.
const columnGap = 3

// Table writes a titled table the way kubectl does: no borders, a header
// line, left-aligned columns separated by spaces and no trailing blanks,
// so it reads at a glance and splits with awk. text/tabwriter does that in
// the standard library; a box-drawing table library would have to be
// told to draw nothing.
//
// Every cell prints something: an empty one prints as "-", so no column
// goes missing from a row split on blanks, and a cell holding
// a control character, an invalid UTF-8 byte or a character that prints
// nothing (an object key may hold any of them) is printed Go-quoted, so
// it cannot break the row or write escape sequences to the terminal. An
// empty title prints no title line; rows with no entries print "(none)"
// under the title so an empty result is visibly empty rather than missing.
func Table(w io.Writer, title string, header []string, rows [][]string) error {
	if title != "" {
		if _, err := fmt.Fprintln(w, Title(w, title)); err != nil {
			return err
		}
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "(none)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, columnGap, ' ', 0)
	var b strings.Builder
	line := func(cells []string) error {
		b.Reset()
		for i, c := range cells {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(Cell(c))
		}
		b.WriteByte('\n')
		_, err := io.WriteString(tw, b.String())
		return err
	}
	if err := line(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := line(r); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// Cell is s as one table cell: "-" when empty, Go-quoted when it holds
// anything but printable characters and spaces.
func Cell(s string) string {
	if s == "" {
		return "-"
	}
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsGraphic(r) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

// Title styles a heading in bold when w is a colour-capable terminal.
func Title(w io.Writer, s string) string {
	if !Colour(w) {
		return s
	}
	return lipgloss.NewStyle().Bold(true).Render(s)
}

// Colour reports whether w is a terminal and NO_COLOR is unset.
func Colour(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
