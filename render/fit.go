package render

import (
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultWidth is the width human output fits when the command cannot
// tell its terminal's: what a terminal opens with.
const DefaultWidth = 80

// minFitCell is the narrowest a shortened cell gets: enough of a key's
// start and end ("app/b…ch.log") to tell it from its neighbours.
const minFitCell = 12

// FitRows shortens, in the middle (Middle), the cells of the columns in shrink so
// that the table Table prints from header and rows stays short of width
// (every line under width runes, so a terminal of that width wraps
// nothing). The widest of those columns gives way first, none below
// minFitCell or its header; a table whose other columns already fill the
// width is left that wide. Cells are returned as Table prints them
// (Cell), so quoting happens before shortening and a shortened cell is
// still one column.
func FitRows(header []string, rows [][]string, width int, shrink ...int) [][]string {
	return FitRowsWith(Middle, header, rows, width, shrink...)
}

// FitRowsWith is FitRows shortening cells with shorten (Middle,
// ShortenPath) instead of Middle.
func FitRowsWith(shorten func(s string, n int) string, header []string, rows [][]string, width int, shrink ...int) [][]string {
	out := make([][]string, len(rows))
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = Cell(c)
			if j < len(widths) {
				widths[j] = max(widths[j], utf8.RuneCountInString(out[i][j]))
			}
		}
	}
	total := columnGap * (len(widths) - 1)
	for _, n := range widths {
		total += n
	}
	for total >= width {
		widest := -1
		for _, j := range shrink {
			floor := max(minFitCell, utf8.RuneCountInString(header[j]))
			if widths[j] > floor && (widest < 0 || widths[j] > widths[widest]) {
				widest = j
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}
	for _, r := range out {
		for _, j := range shrink {
			if j < len(r) {
				r[j] = shorten(r[j], widths[j])
			}
		}
	}
	return out
}

// ShortenPath shortens s to at most n runes in the middle, as Middle
// does, but keeps a path's last element whole when it leaves room for at
// least four leading runes: "ilm/manu…/31f206ed9d59.json", not
// "ilm/manual-tr…6ed9d59.json". For the metadata records decom and
// recovery list, whose last element is the record's ID: the start says
// what kind of record, the last element which one.
func ShortenPath(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if i := strings.LastIndexByte(s, '/'); i > 0 {
		base := []rune(s[i:])
		if head := n - len(base) - 1; head >= 4 && head < len([]rune(s[:i])) {
			return string(r[:head]) + "…" + string(base)
		}
	}
	return Middle(s, n)
}

// ShortTime writes t as a date alone when it is midnight UTC, as every due time
// rounded the AWS way is, else as RFC3339: "2026-06-30", or
// "2026-06-30T09:15:00Z".
func ShortTime(t time.Time) string {
	t = t.UTC()
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}
