package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// columnGap is the space between table columns, as kubectl leaves it.
const columnGap = 3

// Table writes a titled table the way kubectl does: no borders, a header
// line, left-aligned columns separated by spaces and no trailing blanks,
// so it reads at a glance and splits with awk. tablewriter lays the
// columns out, told to draw no borders or separators and to leave cells
// whole: the fitting to a width (FitRows, ShortIDs) happens before, since
// tablewriter's own limit (WithMaxWidth) cuts a cell at its end, the part
// of a key or digest that tells it from its neighbours.
//
// Every cell prints something: an empty one prints as "-", so no column
// goes missing from a row split on blanks, and a cell holding
// a control character, an invalid UTF-8 byte or a character that prints
// nothing (an object key may hold any of them) is printed Go-quoted, so
// it cannot break the row or write escape sequences to the terminal. An
// empty title prints no title line; rows with no entries print "(none)"
// under the title so an empty result is visibly empty rather than missing.
// On a colour terminal (Colour) the cells of a STATUS or VERDICT column
// are coloured by what they say (statusStyle).
func Table(w io.Writer, title string, header []string, rows [][]string) error {
	return table(w, title, header, celled(rows), colourFor(w))
}

// colourFor is the renderer that styles w's tables, nil when w gets none.
func colourFor(w io.Writer) *lipgloss.Renderer {
	if Colour(w) {
		return lipgloss.NewRenderer(w)
	}
	return nil
}

// celled is rows with every cell as Cell prints it.
func celled(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = Cell(c)
		}
	}
	return out
}

// table lays out rows whose cells are already Cell's (a cell holding a
// line break is printed on as many lines), styled by colour, or plain
// when colour is nil.
func table(w io.Writer, title string, header []string, rows [][]string, colour *lipgloss.Renderer) error {
	if title != "" {
		t := title
		if colour != nil {
			t = colour.NewStyle().Bold(true).Render(title)
		}
		if _, err := fmt.Fprintln(w, t); err != nil {
			return err
		}
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "(none)")
		return err
	}
	status := map[int]bool{}
	for i, h := range header {
		status[i] = h == "STATUS" || h == "VERDICT"
	}
	cells := func(r []string) []string {
		out := make([]string, len(header))
		for i := range out {
			if i < len(r) {
				out[i] = r[i]
			} else {
				out[i] = Cell("")
			}
			if colour != nil && status[i] && i < len(r) {
				out[i] = statusStyle(colour, out[i])
			}
		}
		return out
	}
	var b bytes.Buffer
	tbl := tablewriter.NewTable(&b,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Symbols:  tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{Separators: tw.SeparatorsNone, Lines: tw.LinesNone},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithPadding(tw.Padding{Right: strings.Repeat(" ", columnGap), Overwrite: true}),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	hs := make([]string, len(header))
	for i, h := range header {
		hs[i] = Cell(h)
	}
	tbl.Header(hs)
	for _, r := range rows {
		if err := tbl.Append(cells(r)); err != nil {
			return err
		}
	}
	if err := tbl.Render(); err != nil {
		return err
	}
	// The last column is padded like the others; a line ends at its text.
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		out.WriteString(strings.TrimRight(line, " \n"))
		out.WriteByte('\n')
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// Status colours (ANSI 2, 3 and 1), by what a status asks of the
// operator: nothing (green), a look (yellow: not everything was seen),
// action (red).
const (
	colourOK        = lipgloss.Color("2")
	colourAttention = lipgloss.Color("3")
	colourAction    = lipgloss.Color("1")
)

// statusStyle colours a status word: ok, valid, covered and
// covered_terminal green; incomplete yellow; halted, STUCK, rejected,
// blocked, corrupt and error red. Any other word is left as it is.
func statusStyle(r *lipgloss.Renderer, s string) string {
	var c lipgloss.Color
	switch strings.ToLower(s) {
	case "ok", "valid", "covered", "covered_terminal":
		c = colourOK
	case "incomplete":
		c = colourAttention
	case "halted", "stuck", "rejected", "blocked", "corrupt", "error":
		c = colourAction
	default:
		return s
	}
	return r.NewStyle().Foreground(c).Render(s)
}
