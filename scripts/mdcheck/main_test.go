package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Fail closed, and narrowly", "fail-closed-and-narrowly"},
		{"Previewing a candidate configuration (`--rules`)", "previewing-a-candidate-configuration---rules"},
		{"`ilmctl run -o json`", "ilmctl-run--o-json"},
		{"Side by side with SeaweedFS's worker (`scripts/bench-vs-seaweedfs.sh`)", "side-by-side-with-seaweedfss-worker-scriptsbench-vs-seaweedfssh"},
		{"Source proof (`--filer`)", "source-proof---filer"},
		{"A [linked](x.md) heading", "a-linked-heading"},
		{"snake_case *stays*", "snake_case-stays"},
	} {
		if got := Slug(tc.heading); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// TestCheck runs the check over a small tree of pages; each case is a
// page and the problems it must report (substrings, in order), none when
// empty.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("pages/target.md", "# Target\n\n## Exit codes\n\n## Twice\n\n## Twice\n\n```sh\n# not a heading\n```\n")
	write("deploy/x/keep", "")
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"good", "[a](pages/target.md#exit-codes) [b](pages/target.md#twice-1) [c](#here) [d](deploy/x/)\n" +
			"[e](https://example.com/#nope) `[f](missing.md)`\n\n## Here\n\n```sh\n[g](missing.md)\n```\n", nil},
		{"missing file", "see [x](pages/nope.md)\n", []string{":1: link pages/nope.md: no such file or directory"}},
		{"missing anchor", "\n[x](pages/target.md#not-a-heading)\n", []string{":2: link pages/target.md#not-a-heading: ", "has no heading with anchor #not-a-heading"}},
		{"anchor in code is no heading", "[x](pages/target.md#not-a-heading-1)\n", []string{"no heading"}},
		{"own anchor", "[x](#nowhere)\n", []string{"link #nowhere:"}},
		{"absolute", "[x](/pages/target.md)\n", []string{"an absolute path"}},
		{"unclosed fence", "text\n```sh\nls\n", []string{":2: the code fence ``` opened here is never closed"}},
		{"fence closed by a longer one", "````md\n```sh\n````\n", nil},
		{"text after a fence does not close it", "```sh\nls\n``` text\n", []string{"never closed"}},
		{"inline fence text is not a fence", "```` ```sh runnable ```` is inline\n", nil},
		{"indented fence in a list", "- item\n\n  ```\n  x\n  ```\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := write(strings.ReplaceAll(tc.name, " ", "-")+".md", tc.text)
			var out bytes.Buffer
			n := check(&out, []string{page})
			if len(tc.want) == 0 {
				if n != 0 {
					t.Fatalf("%d problems, want none:\n%s", n, out.String())
				}
				return
			}
			if n == 0 {
				t.Fatalf("no problem reported, want %q", tc.want)
			}
			rest := out.String()
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("report lacks %q:\n%s", w, out.String())
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
