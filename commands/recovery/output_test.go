package recovery

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/internal/golden"
)

// TestOutputGolden pins the scan table and the ls JSON field names and
// vocabulary that scripts read.
func TestOutputGolden(t *testing.T) {
	a, b, _ := setup(t)
	t.Setenv("COLUMNS", "")
	scan, _, code := run(t, "scan", "--meta", a, "--meta", b)
	if code != 0 {
		t.Fatalf("scan exit %d", code)
	}
	golden.Check(t, "scan.txt", scan, "The fixture's classification (core/journal) or the scan decision changed. ")
	golden.Fits(t, "scan", scan, 80)
	// The controls exist now: the tables at other widths and -o wide see
	// them unchanged.
	t.Setenv("COLUMNS", "120")
	scan120, _, _ := run(t, "scan", "--meta", a, "--meta", b)
	golden.Check(t, "scan-120.txt", scan120, "")
	golden.Fits(t, "scan at 120", scan120, 120)
	wide, _, _ := run(t, "scan", "--meta", a, "--meta", b, "-o", "wide")
	golden.Check(t, "scan-wide.txt", wide, "")
	t.Setenv("COLUMNS", "")
	ls, _, code := run(t, "ls", "--meta", a, "--meta", b, "--limit", "3", "-o", "json")
	if code != 0 {
		t.Fatalf("ls exit %d", code)
	}
	// A control's bytes (so its ETag) hold the pool identities, digests
	// of the temporary pool paths.
	ls = regexp.MustCompile(`"etag": "[0-9a-f]{64}"`).ReplaceAllString(ls, `"etag": "ETAG"`)
	golden.Check(t, "ls.json", ls, "")
}

// TestAuditFields: an audit line holds exactly the documented fields and
// never a path, payload or pool name.
func TestAuditFields(t *testing.T) {
	a, b, _ := setup(t)
	out, _, _ := run(t, "scan", "--meta", a, "--meta", b, "-o", "json")
	id := mustJSON(t, out)["items"].([]any)[0].(map[string]any)["control_id"].(string)
	_, errs, code := run(t, "inspect", id, "--meta", a, "--meta", b)
	if code != 0 {
		t.Fatalf("inspect exit %d: %s", code, errs)
	}
	lines := auditLines(t, errs)
	if len(lines) != 1 {
		t.Fatalf("%d audit lines", len(lines))
	}
	allowed := map[string]bool{"audit": true, "time": true, "actor": true, "action": true, "protocol": true, "control_id": true,
		"source_generation": true, "control_generation": true, "export_id": true, "disposition_id": true, "reason_code": true, "outcome": true}
	for k := range lines[0] {
		if !allowed[k] {
			t.Errorf("audit field %q is not documented", k)
		}
	}
	if strings.Contains(errs, "ilm/") || strings.Contains(errs, a) {
		t.Fatalf("audit line names a path or pool: %s", errs)
	}
}

var (
	retryTimes   = regexp.MustCompile(`(retrying +\S+ +)(4[89]s|5[0-9]s|1m )`)
	nextAttempts = regexp.MustCompile(`(2025-06-15T15:0[67]:)[0-9][0-9]`)
)

// recovery ls fits 80 and 120 columns: short IDs, classification, age,
// time to the next retry and the source shortened in the middle; -o wide
// has every column, full IDs and paths.
func TestLsTablesGolden(t *testing.T) {
	a, b, _ := setup(t)
	if _, errs, code := run(t, "scan", "--meta", a, "--meta", b); code != 0 {
		t.Fatalf("scan exit %d: %s", code, errs)
	}
	for _, c := range []struct {
		name, columns string
		width         int
		args          []string
	}{
		{"ls.txt", "", 80, nil},
		{"ls-120.txt", "120", 120, nil},
		{"ls-wide.txt", "", 0, []string{"-o", "wide"}},
	} {
		t.Setenv("COLUMNS", c.columns)
		out, errs, code := run(t, append([]string{"ls", "--meta", a, "--meta", b}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		// A retry is scheduled 48-60s out, by a digest of the pools'
		// temporary paths: the goldens hold it as ~1m.
		out = retryTimes.ReplaceAllString(out, "${1}~1m")
		out = nextAttempts.ReplaceAllString(out, "${1}SS")
		golden.Check(t, c.name, out, "")
		if c.width > 0 {
			golden.Fits(t, c.name, out, c.width)
		}
	}
}
