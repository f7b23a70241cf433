// Package render formats command results: human tables (borderless,
// left-aligned columns as kubectl prints them, fitted to the terminal's
// width; titles in bold and statuses in colour only on a terminal and
// never under NO_COLOR), JSON that pipes cleanly into jq and
// JSON lines. Every view a command prints lives here, a file per noun
// (docs/architecture.md#views). It owns no domain types: its *Report and
// row types are the JSON and table views of core results
// (dailyrun.Result, engine.BucketError, recovery.Control, ...), and
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

// Colour reports whether w is a terminal and NO_COLOR is unset or empty
// (no-color.org: "when present and not an empty string").
func Colour(w io.Writer) bool {
	f, ok := w.(*os.File)
	return colourOn(os.Getenv("NO_COLOR"), ok && isatty.IsTerminal(f.Fd()))
}

func colourOn(noColor string, terminal bool) bool {
	return terminal && noColor == ""
}
