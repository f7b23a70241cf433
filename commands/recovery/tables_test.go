package recovery

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/internal/golden"
)

// hexRuns are the digests of a pool's path that a control's and an
// export's bytes hold (so their ETags and SHA-256s), which differ with
// the test's temporary directory, and an export's key is fanned out by
// its ID's leading digits: the goldens hold them as as many "#", so the
// columns still line up.
var hexRuns = regexp.MustCompile(`[0-9a-f]{12,64}|/[0-9a-f]{2}/[0-9a-f]{2}/`)

// wallTimes are when prune's retention floor ends, counted from the
// control's last write as the pool's file dates it: the wall clock.
var wallTimes = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z`)

// The operator's tables fit 80 and 120 columns: inspect, export, the
// abandon dry run and its completion, and prune.
func TestOperatorTablesGolden(t *testing.T) {
	a, b, _ := setup(t)
	metas := []string{"--meta", a, "--meta", b}
	id := v1ControlID(t, metas)
	// Receipts and exports are written here, so the tables name them by
	// a relative path that does not move with the temporary directory.
	pkg, _ := os.Getwd()
	t.Chdir(t.TempDir())
	if _, errs, code := run(t, append([]string{"inspect", id, "--receipt-out", "r.json"}, metas...)...); code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	out, errs, code := run(t, append([]string{"export", id, "--receipt", "r.json", "--out", "x.json", "-o", "json"}, metas...)...)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	x := mustJSON(t, out)
	abandon := append([]string{"abandon", id, "--receipt", "r.json", "--export-id", x["export_id"].(string),
		"--export-sha256", x["export_sha256"].(string), "--reason", "legacy_remote_cleanup_abandoned"}, metas...)

	// Every table is checked against its width as printed, and against
	// its golden with the varying digests masked.
	got := map[string]string{}
	keep := func(name, out string, columns int) {
		golden.Fits(t, name, out, columns)
		if strings.HasPrefix(name, "prune") {
			out = wallTimes.ReplaceAllString(out, "YYYY-MM-DDTHH:MM:SSZ")
		}
		got[name] = hexRuns.ReplaceAllStringFunc(out, func(h string) string {
			if strings.HasPrefix(id, h) {
				return h
			}
			return strings.Map(func(r rune) rune {
				if r == '/' {
					return r
				}
				return '#'
			}, h)
		})
	}
	for _, columns := range []int{80, 120} {
		t.Setenv("COLUMNS", fmt.Sprint(columns))
		for _, s := range []struct {
			name string
			args []string
		}{
			{"inspect", append([]string{"inspect", id}, metas...)},
			{"export", append([]string{"export", id, "--receipt", "r.json", "--out", fmt.Sprintf("x-%d.json", columns)}, metas...)},
			{"abandon-dry-run", abandon},
		} {
			out, errs, code := run(t, s.args...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", s.name, code, errs)
			}
			keep(fmt.Sprintf("%s-%d.txt", s.name, columns), out, columns)
		}
	}
	t.Setenv("COLUMNS", "")
	out, errs, code = run(t, append(abandon, "--confirm", "--acknowledge-remote-cleanup-abandoned")...)
	if code != 0 {
		t.Fatalf("abandon: exit %d: %s", code, errs)
	}
	keep("abandon-80.txt", out, 80)

	finished := controlWritten(t, a, id)
	for _, c := range []struct {
		name string
		at   time.Time
	}{
		{"prune-keep-80.txt", finished.Add(time.Minute)},
		{"prune-dry-run-80.txt", finished.Add(90*24*time.Hour + time.Minute)},
	} {
		now = func() time.Time { return c.at }
		out, errs, code := run(t, append([]string{"prune"}, metas...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		keep(c.name, out, 80)
	}
	t.Chdir(pkg)
	for name, out := range got {
		golden.Check(t, name, out, "")
	}
}
