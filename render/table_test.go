package render

import (
	"io"
	"regexp"

	"bytes"
	"errors"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tables are borderless and left-aligned, three blanks between columns,
// none at the end of a line; an empty cell prints "-" and a cell that
// would break the row or drive the terminal prints quoted.
func TestTable(t *testing.T) {
	var b bytes.Buffer
	err := Table(&b, "Title", []string{"BUCKET", "KEY", "SIZE"}, [][]string{
		{"logs", "a", "1"},
		{"logs", "", "22"},
		{"media", "two\nlines", "333"},
		{"media", "tab\there\x1b[31m", "4"},
		{"media", "\xff", "5"},
		{"média", "ключ", "6"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `Title
BUCKET   KEY                   SIZE
logs     a                     1
logs     -                     22
media    "two\nlines"          333
media    "tab\there\x1b[31m"   4
media    "\xff"                5
média    ключ                  6
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestTableEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, "Uploads", []string{"KEY"}, nil); err != nil {
		t.Fatal(err)
	}
	if b.String() != "Uploads\n(none)\n" {
		t.Errorf("empty table %q", b.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestTableWriteError(t *testing.T) {
	if err := Table(failWriter{}, "", []string{"A"}, [][]string{{"x"}}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	all := []Format{FormatTable, FormatWide, FormatJSON, FormatJSONL}
	for _, f := range all {
		if got, err := ParseFormat(string(f), all...); err != nil || got != f {
			t.Errorf("ParseFormat(%s) = %s, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("jsonl", FormatTable, FormatWide, FormatJSON); err == nil || err.Error() != `unknown output format -o "jsonl": use table, wide or json` {
		t.Errorf("jsonl where unsupported: %v", err)
	}
	if _, err := ParseFormat("wide"); err == nil || err.Error() != `unknown output format -o "wide": use table or json` {
		t.Errorf("default formats: %v", err)
	}
}

// Abbrev shortens like git: ShortIDLen characters, more where two ids
// share them, never more than the id.
func TestAbbrev(t *testing.T) {
	got := Abbrev([]string{
		"aaaaaaaaaaaaaaaa01", "aaaaaaaaaaaaaaaa02", "aaaaaaaaaaaaab",
		"b1234567890123456789", "b1234567890123456789", "c12", "c123",
	}, ShortIDLen)
	want := map[string]string{
		"aaaaaaaaaaaaaaaa01":   "aaaaaaaaaaaaaaaa01",
		"aaaaaaaaaaaaaaaa02":   "aaaaaaaaaaaaaaaa02",
		"aaaaaaaaaaaaab":       "aaaaaaaaaaaaab",
		"b1234567890123456789": "b12345678901",
		"c12":                  "c12",
		"c123":                 "c123",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Abbrev (-want +got):\n%s", diff)
	}
}

// NO_COLOR set and non-empty turns colour off even on a terminal
// (no-color.org); set but empty, it does not.
func TestColourOn(t *testing.T) {
	for _, c := range []struct {
		noColor  string
		terminal bool
		want     bool
	}{
		{"", true, true},
		{"1", true, false},
		{"", false, false},
		{"1", false, false},
	} {
		if got := colourOn(c.noColor, c.terminal); got != c.want {
			t.Errorf("colourOn(NO_COLOR=%q, terminal %v) = %v, want %v", c.noColor, c.terminal, got, c.want)
		}
	}
}

// A buffer is never a terminal: Table writes no escape sequence there,
// whatever NO_COLOR says, so goldens and pipes get plain text.
func TestTablePlainOffTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	var b bytes.Buffer
	if err := Table(&b, "Pass", []string{"STATUS"}, [][]string{{"halted"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Errorf("escape sequence off a terminal: %q", b.String())
	}
}

// On a colour terminal the STATUS and VERDICT cells are coloured by
// what they say, the title is bold, and columns still line up as the
// plain table's do.
func TestTableStatusColours(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	var b bytes.Buffer
	err := table(&b, "Pass", []string{"STATUS", "VERDICT", "NOTE"}, celled([][]string{
		{"ok", "covered", "ok"},
		{"incomplete", "blocked", "x"},
		{"halted", "-", "y"},
		{"STUCK", "other", "z"},
		{"rejected", "", "w"},
	}), r)
	if err != nil {
		t.Fatal(err)
	}
	green, yellow, red := "\x1b[32m", "\x1b[33m", "\x1b[31m"
	want := []string{
		"\x1b[1mPass\x1b[0m",
		"STATUS       VERDICT   NOTE",
		green + "ok\x1b[0m           " + green + "covered\x1b[0m   ok",
		yellow + "incomplete\x1b[0m   " + red + "blocked\x1b[0m   x",
		red + "halted\x1b[0m       -         y",
		red + "STUCK\x1b[0m        other     z",
		red + "rejected\x1b[0m     -         w",
	}
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// tablewriter may close a style again before the next cell; what the
	// terminal shows is the same, so compare with that reset removed.
	for i := range got {
		got[i] = strings.ReplaceAll(got[i], "\x1b[0m\x1b[0m", "\x1b[0m")
		got[i] = regexp.MustCompile(`(\s+)\x1b\[0m`).ReplaceAllString(got[i], "$1")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("coloured table (-want +got):\n%s", diff)
	}
}

// A pool is named by its shortest unique trailing path: the directory's
// name beside its siblings, the host where buckets share a name.
func TestShortNames(t *testing.T) {
	names := []string{"/srv/meta/source", "/srv/meta/target-a", "s3://10.0.0.5:9000/.rustfs.sys", "s3://10.0.0.6:9000/.rustfs.sys", "pool", "/x/pool"}
	short := ShortNames(names)
	want := map[string]string{
		"/srv/meta/source": "source", "/srv/meta/target-a": "target-a",
		"s3://10.0.0.5:9000/.rustfs.sys": "10.0.0.5:9000/.rustfs.sys", "s3://10.0.0.6:9000/.rustfs.sys": "10.0.0.6:9000/.rustfs.sys",
		"pool": "pool", "/x/pool": "x/pool", "unknown": "unknown",
	}
	for in, w := range want {
		if got := short(in); got != w {
			t.Errorf("short(%q) = %q, want %q", in, got, w)
		}
	}
}
