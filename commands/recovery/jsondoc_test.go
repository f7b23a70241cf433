package recovery

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// TestJSONDocumentOnError: every recovery command with -o json prints
// exactly one JSON document on stdout whatever its exit code, carrying
// the error and the exit code; one refusal or failure per command.
func TestJSONDocumentOnError(t *testing.T) {
	a, b, _ := setup(t)
	metas := []string{"--meta", a, "--meta", b}
	id := v1ControlID(t, metas)
	receipt := filepath.Join(t.TempDir(), "receipt.json")
	if _, errs, code := run(t, append([]string{"inspect", id, "--receipt-out", receipt}, metas...)...); code != 0 {
		t.Fatalf("inspect: %s", errs)
	}
	if _, errs, code := run(t, append([]string{"retry", id, "--confirm"}, metas...)...); code != 0 {
		t.Fatalf("retry: %s", errs)
	}
	missing := strings.Repeat("0", 64)
	for _, c := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"scan: stray argument", []string{"scan", "extra"}, cmdutil.ExitUsage, "takes no arguments"},
		{"ls: bad limit", []string{"ls", "--limit", "0"}, cmdutil.ExitUsage, "--limit 0"},
		{"inspect: no such control", []string{"inspect", missing}, cmdutil.ExitFailure, "no recovery control"},
		{"export: no such control", []string{"export", missing, "--receipt", receipt}, cmdutil.ExitFailure, "no recovery control"},
		{"abandon: a retry owns the control", []string{"abandon", id, "--receipt", receipt, "--export-id", missing, "--export-sha256", missing,
			"--reason", "legacy_remote_cleanup_abandoned"}, cmdutil.ExitFailure, "is owned by"},
		{"retry: a lease is live", []string{"retry", id, "--confirm"}, cmdutil.ExitFailure, "lease"},
		{"prune: live control named", []string{"prune", id, "--confirm"}, cmdutil.ExitFailure, "prune removes only terminal or abandoned controls"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := run(t, append(append(c.args, "-o", "json"), metas...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			dec := json.NewDecoder(strings.NewReader(out))
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("stdout is not a JSON document: %v\n%q", err, out)
			}
			if dec.More() {
				t.Fatalf("more than one document:\n%s", out)
			}
			msg, _ := doc["error"].(string)
			if !strings.Contains(msg, c.says) || strings.Contains(msg, "\n") || doc["exit_code"] != float64(c.code) {
				t.Fatalf("error %q exit_code %v, want one line saying %q and %d", msg, doc["exit_code"], c.says, c.code)
			}
		})
	}
}
