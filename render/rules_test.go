package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

func TestMiddle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly-10", 10, "exactly-10"},
		{"abcdefghijklmnop", 7, "abc…nop"},
		{"règle-très-longue", 8, "règ…ngue"},
	} {
		if got := Middle(tc.in, tc.n); got != tc.want {
			t.Errorf("Middle(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestRulesTableFits: long IDs, filters and actions stay within the width.
func TestRulesTableFits(t *testing.T) {
	long := strings.Repeat("x", 200)
	doc := `<LifecycleConfiguration><Rule><ID>` + long + `</ID><Filter><And><Prefix>` + long + `/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And></Filter><Status>Enabled</Status>` +
		`<NoncurrentVersionTransition><NoncurrentDays>0</NoncurrentDays><NewerNoncurrentVersions>3</NewerNoncurrentVersions><StorageClass>GLACIER</StorageClass></NoncurrentVersionTransition></Rule>` +
		`<Rule><Filter/><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`
	cfg, err := lifecycle.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := RulesTable(&b, NewRulesCheckReport("f.xml", cfg, nil), 80); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if utf8.RuneCountInString(line) >= 80 || strings.TrimRight(line, " ") != line {
			t.Errorf("line does not fit 80 columns or ends in blanks: %q", line)
		}
	}
	for _, want := range []string{"f.xml: accepted, 2 rules\n", "\n2   -", "keeping 3 newer", "Expiration 1 day after creation"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
