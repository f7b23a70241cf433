package main

import (
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// TestDecomExamples runs the `ilmctl decom` examples of docs/records.md against the
// committed testdata/decom/complete run: the token derivation, a removable
// run (exit 0) and the same pools in the wrong order (exit 5, reasons on
// stderr).
func TestDecomExamples(t *testing.T) {
	const tok = "ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661"
	out, _, code := execute(t, "decom", "run-token", "--cmd-line", "http://node{1...4}:9000/data{1...4}", "--start-unix-nanos", "1750000000123456789")
	if code != 0 || strings.TrimSpace(out) != tok {
		t.Fatalf("run-token: exit %d, %q", code, out)
	}
	pool := func(p string) string { return "../../testdata/decom/complete/" + p }
	out, errs, code := execute(t, "decom", "verify", "--run-token", tok, "--meta", pool("source"), "--meta", pool("target-a"), "--meta", pool("target-b"))
	if code != 0 || !strings.Contains(out, "removable        yes") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = execute(t, "decom", "verify", "-run-token", tok, "-meta", pool("target-a"), "-meta", pool("source"))
	if code != cmdutil.ExitBlocked || !strings.Contains(errs, "may not be removed: ") || !strings.Contains(out, "manifest_missing") {
		t.Fatalf("swapped pools: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = execute(t, "decom", "receipts", "ls", "--run-token", tok, "--meta", pool("target-a"))
	if code != 0 || strings.Count(out, "\nvalid")+strings.Count(out, "\nterminal") != 6 {
		t.Fatalf("receipts ls: exit %d\n%s%s", code, out, errs)
	}
}
