package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLsDecommissionNamespace: receipts and expected-receipt manifests are
// records of their own (protocol decommission), classified by the same
// functions `ilmctl decom verify` uses; damaged or unregistered ones are
// corrupt.
func TestLsDecommissionNamespace(t *testing.T) {
	pool := t.TempDir()
	src := "../../testdata/decom/complete/source"
	var receipt, manifest string
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(rel, "decommission/ilm-manifests/"):
			manifest = rel
		case strings.HasPrefix(rel, "decommission/ilm-receipts/") && receipt == "":
			receipt = rel
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(pool, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil || receipt == "" || manifest == "" {
		t.Fatalf("fixture: %v (receipt %q, manifest %q)", err, receipt, manifest)
	}
	put := func(rel string, b []byte) {
		p := filepath.Join(pool, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(pool, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// A receipt whose checksum no longer matches, one stored away from its
	// canonical path, and a key under decommission/ that is neither kind.
	badSum := receipt
	orig := read(receipt)
	i := strings.Index(orig, `"content_sha256":"`) + len(`"content_sha256":"`)
	flip := byte('0')
	if orig[i] == '0' {
		flip = '1'
	}
	put(badSum, []byte(orig[:i]+string(flip)+orig[i+1:]))
	moved := strings.Replace(receipt, ".json/", ".json/x/", 1)
	put(moved, []byte(orig))
	put("decommission/ilm-notes/readme.json", []byte(`{}`))
	out, err := run(t, "ls", "--meta", pool, "--protocol", "decommission", "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var v struct {
		Records []struct {
			Path           string `json:"path"`
			Protocol       string `json:"protocol"`
			Kind           string `json:"kind"`
			Classification string `json:"classification"`
			Decision       string `json:"decision"`
			Reason         string `json:"reason"`
		} `json:"records"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range v.Records {
		if r.Protocol != "decommission" {
			t.Errorf("%s: protocol %s", r.Path, r.Protocol)
		}
		got[r.Path] = r.Kind + " " + r.Classification + "/" + r.Decision
	}
	for path, want := range map[string]string{
		manifest:                             "decommission_manifest active/leave_to_owner",
		badSum:                               "decommission_receipt corrupt/retain",
		moved:                                "decommission_receipt corrupt/retain",
		"decommission/ilm-notes/readme.json": " corrupt/retain",
	} {
		if got[path] != want {
			t.Errorf("%s: got %q, want %q", path, got[path], want)
		}
	}
	active := 0
	for _, g := range got {
		if g == "decommission_receipt active/leave_to_owner" {
			active++
		}
	}
	if active != 5 { // the fixture's six receipts, one of them damaged above
		t.Errorf("%d valid receipts are active/leave_to_owner, want 5: %v", active, got)
	}
}
