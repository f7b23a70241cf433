// Package render formats command results: human tables (tablewriter, with
// lipgloss styling only on a terminal and never under NO_COLOR) and JSON
// that pipes cleanly into jq. JSON field names are snake_case and stable.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-isatty"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format selected with -o.
type Format string

// Output formats.
const (
	FormatTable Format = "table"
	FormatJSON  Format = "json"
)

// ParseFormat validates an -o value.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatTable, FormatJSON:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown output format %q: use -o table or -o json", s)
}

// JSON writes v as indented JSON followed by a newline. HTML characters are
// not escaped so keys like "a<b" read as written.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Table writes a titled table. An empty title prints no title line; rows
// with no entries print "(none)" under the title so an empty result is
// visibly empty rather than missing.
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
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	t.Header(toAny(header)...)
	for _, r := range rows {
		if err := t.Append(toAny(r)...); err != nil {
			return err
		}
	}
	return t.Render()
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

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
