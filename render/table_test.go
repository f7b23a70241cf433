package render

import (
	"bytes"
	"errors"
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
