package journal

import (
	"encoding/json"
	"os"
	"testing"
)

// TestRustFSRecords classifies testdata/rustfs-records (records exactly as
// RustFS writes them) and requires every expectation in its expect.json,
// with and without the source filer.
func TestRustFSRecords(t *testing.T) {
	const dir = "../../testdata/rustfs-records"
	b, err := os.ReadFile(dir + "/expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Now     string `json:"now"`
		Records []struct {
			Path           string `json:"path"`
			Filer          bool   `json:"filer"`
			Classification string `json:"classification"`
			Decision       string `json:"decision"`
			KeyFormat      string `json:"key_format"`
			Why            string `json:"why"`
		} `json:"records"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(dir + "/filer-fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	filer := loadFiler(t, string(fixture))
	scan := func(withFiler bool) map[string]map[string]any {
		args := []string{"ls", "--meta", dir + "/store", "--now", exp.Now, "-o", "json"}
		if withFiler {
			args = append(args, "--filer", filer)
		}
		out, err := run(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		var v struct {
			Records []map[string]any `json:"records"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		m := map[string]map[string]any{}
		for _, r := range v.Records {
			m[r["path"].(string)] = r
		}
		return m
	}
	got := map[bool]map[string]map[string]any{false: scan(false), true: scan(true)}
	for _, e := range exp.Records {
		r, ok := got[e.Filer][e.Path]
		if !ok {
			t.Errorf("%s (filer %v): not listed", e.Path, e.Filer)
			continue
		}
		if r["classification"] != e.Classification || r["decision"] != e.Decision {
			t.Errorf("%s (filer %v): got %v/%v (%v), want %s/%s: %s", e.Path, e.Filer, r["classification"], r["decision"], r["reason"], e.Classification, e.Decision, e.Why)
		}
		if e.KeyFormat != "" && r["key_format"] != e.KeyFormat {
			t.Errorf("%s: key_format %v, want %s", e.Path, r["key_format"], e.KeyFormat)
		}
	}
}
