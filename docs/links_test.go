// Package docs holds no code: its test checks that every reference to a
// page under docs/ (from code comments, README and the pages themselves)
// names a file that exists and, with #anchor, a heading of that file.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// docs/design/daily-run.md#cursor in a comment or README; relative
	// links inside docs/ are checked from markdown links below.
	docRef   = regexp.MustCompile(`\bdocs/(?:design/)?[a-z0-9_-]+\.md(#[a-z0-9-]+)?`)
	mdLink   = regexp.MustCompile(`\]\(([^)#\s]*\.md)?(#[a-z0-9-]+)?\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	slugDrop = regexp.MustCompile(`[^a-z0-9 _-]`)
)

// anchors are the GitHub anchors of a markdown file's headings.
func anchors(t *testing.T, path string, cache map[string]map[string]bool) map[string]bool {
	if a, ok := cache[path]; ok {
		return a
	}
	data, err := os.ReadFile(path)
	if err != nil {
		cache[path] = nil
		return nil
	}
	a := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(string(data), -1) {
		slug := slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
		a[strings.ReplaceAll(slug, " ", "-")] = true
	}
	cache[path] = a
	return a
}

func TestDocReferencesResolve(t *testing.T) {
	root := ".."
	cache := map[string]map[string]bool{}
	check := func(from, target, anchor string) {
		a := anchors(t, target, cache)
		switch {
		case a == nil:
			t.Errorf("%s cites %s, which does not exist", from, target)
		case anchor != "" && !a[anchor]:
			t.Errorf("%s cites %s#%s, which has no such heading", from, target, anchor)
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".bin" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range docRef.FindAllStringSubmatch(string(data), -1) {
			target, anchor, _ := strings.Cut(m[0], "#")
			check(rel, filepath.Join(root, target), anchor)
		}
		if strings.HasSuffix(path, ".md") {
			for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
				target := path // #anchor alone: this page
				if m[1] != "" {
					if strings.Contains(m[1], "://") {
						continue
					}
					target = filepath.Join(filepath.Dir(path), m[1])
				}
				check(rel, target, strings.TrimPrefix(m[2], "#"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
