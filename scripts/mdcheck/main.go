// Command mdcheck checks markdown pages the way a reader meets them on
// GitHub, without the network: every code fence is closed, and every
// relative link names a file or directory that exists and, with #anchor,
// a heading of that page (GitHub's anchor for it). `make lint` runs it
// over every tracked *.md file; links to other schemes (https:, mailto:)
// are not followed.
//
//	go run ./scripts/mdcheck README.md docs/run.md …
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mdcheck FILE.md…  (make lint passes every tracked *.md file)")
		os.Exit(2)
	}
	if n := check(os.Stderr, os.Args[1:]); n > 0 {
		fmt.Fprintf(os.Stderr, "mdcheck: %d problem(s); fix the page or the link\n", n)
		os.Exit(1)
	}
}

// check reports each problem of each page on w, one line each
// (file:line: what), and returns how many it found.
func check(w io.Writer, pages []string) int {
	anchors := map[string]map[string]bool{} // page path → its anchors
	problems := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", page, err)
			problems++
			continue
		}
		doc := parse(string(data))
		for _, p := range doc.problems {
			fmt.Fprintf(w, "%s:%s\n", page, p)
			problems++
		}
		for _, l := range doc.links {
			if msg := resolve(page, l.target, anchors); msg != "" {
				fmt.Fprintf(w, "%s:%d: link %s: %s\n", page, l.line, l.target, msg)
				problems++
			}
		}
	}
	return problems
}

// resolve says what is wrong with a link from page, "" when nothing.
func resolve(page, target string, anchors map[string]map[string]bool) string {
	if scheme.MatchString(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := page
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "an absolute path: link relative to the page"
		}
		dest = filepath.Join(filepath.Dir(page), path)
		if _, err := os.Stat(dest); err != nil {
			return "no such file or directory"
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	a, ok := anchors[dest]
	if !ok {
		data, err := os.ReadFile(dest)
		if err != nil {
			return err.Error()
		}
		a = parse(string(data)).anchors
		anchors[dest] = a
	}
	if !a[anchor] {
		return fmt.Sprintf("%s has no heading with anchor #%s", dest, anchor)
	}
	return ""
}

var (
	scheme    = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	fence     = regexp.MustCompile("^ {0,3}(```+|~~~+)(.*)$")
	heading   = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	codeSpan  = regexp.MustCompile("(`+)[^`]*?(`+)")
	inlineURL = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

type link struct {
	line   int
	target string
}

// page is what mdcheck needs of a markdown page.
type page struct {
	anchors  map[string]bool
	links    []link
	problems []string // "line: what"
}

// parse reads a page's headings (as GitHub anchors), its inline links
// outside code, and its unclosed fences. A fence closes on a line of the
// same character, at least as long, with no info string; a backtick
// fence's info string holds no backtick (CommonMark). Fences may be
// indented inside list items.
func parse(text string) page {
	p := page{anchors: map[string]bool{}}
	seen := map[string]int{}
	var open string
	openLine := 0
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if m := fence.FindStringSubmatch(trimmed); m != nil && !(m[1][0] == '`' && strings.Contains(m[2], "`")) {
			switch {
			case open == "":
				open, openLine = m[1], i+1
				continue
			case m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(m[2]) == "":
				open = ""
				continue
			}
		}
		if open != "" {
			continue
		}
		if m := heading.FindStringSubmatch(l); m != nil {
			slug := Slug(m[2])
			if n := seen[slug]; n > 0 {
				p.anchors[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				p.anchors[slug] = true
			}
			seen[slug]++
		}
		for _, m := range inlineURL.FindAllStringSubmatch(stripCode(l), -1) {
			if m[1] != "" {
				p.links = append(p.links, link{line: i + 1, target: m[1]})
			}
		}
	}
	if open != "" {
		p.problems = append(p.problems, fmt.Sprintf("%d: the code fence %s opened here is never closed", openLine, open))
	}
	return p
}

// stripCode blanks the inline code spans of a line, where a ](…) is text.
func stripCode(l string) string {
	return codeSpan.ReplaceAllStringFunc(l, func(s string) string {
		m := codeSpan.FindStringSubmatch(s)
		if len(m[1]) != len(m[2]) {
			return s
		}
		return strings.Repeat(" ", len(s))
	})
}

// Slug is GitHub's anchor for a heading: lower case, markup and
// punctuation dropped (hyphens and underscores kept), spaces to hyphens.
func Slug(h string) string {
	h = strings.NewReplacer("`", "", "*", "").Replace(strings.ToLower(strings.TrimSpace(h)))
	h = inlineURL.ReplaceAllStringFunc(h, func(s string) string { // [text](url) → text
		return s[strings.Index(s, "[")+1 : strings.Index(s, "]")]
	})
	return strings.ReplaceAll(slugDrop.ReplaceAllString(h, ""), " ", "-")
}
