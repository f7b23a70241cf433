package main

import (
	"testing"

	goldenfile "github.com/ilmctl/ilmctl/internal/golden"
)

// At 120 columns ($COLUMNS, as a wider terminal reports) the demo's
// tables use the room: keys and rule IDs shortened at 80 print whole, and
// every line stays short of 120. The 80-column goldens are
// TestDemoTablesGolden's and TestExplainDemoGolden's.
func TestDemoTables120Golden(t *testing.T) {
	t.Setenv("COLUMNS", "120")
	dir := loadDemo(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"demo-filer-ls-120.txt", []string{"filer", "ls", "--filer", dir}},
		{"demo-run-dry-run-120.txt", []string{"run", "--dry-run", "--now", demoNow, "--filer", dir}},
		{"demo-explain-120.txt", []string{"explain", "--filer", dir, "--now", demoNow, "--bucket", "media", "--key", "legal/contract.pdf"}},
		{"demo-rules-check-120.txt", []string{"rules", "check", "../../testdata/rules/accepted.xml"}},
		{"demo-run-120.txt", []string{"run", "-runtime", "60m", "--now", demoNow, "--filer", dir}},
	} {
		out, stderr, code := execute(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		goldenfile.Fits(t, c.name, out, 120)
		golden(t, c.name, out)
	}
}

// rules check fits 80 columns off a terminal with $COLUMNS unset.
func TestRulesCheck80Golden(t *testing.T) {
	t.Setenv("COLUMNS", "")
	out, stderr, code := execute(t, "rules", "check", "../../testdata/rules/accepted.xml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fits(t, "rules check", out)
	golden(t, "demo-rules-check.txt", out)
}
