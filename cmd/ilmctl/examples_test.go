package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docBlock is one fenced code block of a markdown page: its info string
// (after the opening backticks) and its lines, indentation removed.
type docBlock struct {
	line  int // of the opening fence, from 1
	info  []string
	lines []string
}

// attr is the value of key=value in the block's info string, "" when
// absent; runnable is the bare word.
func (b docBlock) attr(key string) string {
	for _, f := range b.info {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

func (b docBlock) runnable() bool {
	for _, f := range b.info {
		if f == "runnable" {
			return true
		}
	}
	return false
}

var fenceLine = regexp.MustCompile("^( *)(```+|~~~+)(.*)$")

// docBlocks splits a markdown page into its fenced code blocks. A fence
// closes on a line of the same character, at least as long, without an
// info string (CommonMark); an unclosed block is an error.
func docBlocks(text string) ([]docBlock, error) {
	var blocks []docBlock
	var open *docBlock
	var fence, indent string
	for i, l := range strings.Split(text, "\n") {
		m := fenceLine.FindStringSubmatch(l)
		if open == nil {
			if m != nil {
				open = &docBlock{line: i + 1, info: strings.Fields(m[3])}
				indent, fence = m[1], m[2]
			}
			continue
		}
		if m != nil && m[2][0] == fence[0] && len(m[2]) >= len(fence) && strings.TrimSpace(m[3]) == "" {
			blocks = append(blocks, *open)
			open = nil
			continue
		}
		open.lines = append(open.lines, strings.TrimPrefix(l, indent))
	}
	if open != nil {
		return nil, fmt.Errorf("the code block opened at line %d is never closed", open.line)
	}
	return blocks, nil
}

// exampleCommand is one command of a runnable block: its words, the exit
// code a trailing "# exit N" comment names (else 0), and its line.
type exampleCommand struct {
	line     int
	text     string
	args     []string
	wantExit int
}

var exitComment = regexp.MustCompile(`\bexit (\d+)\b`)

// exampleCommands reads a runnable block's commands: lines joined at a
// trailing backslash, comments (from a # after a space) dropped, words
// split as sh splits them with single and double quotes. Only what can
// run in process is accepted: ilmctl with plain arguments, no pipes,
// redirections, variables or other programs.
func exampleCommands(b docBlock) ([]exampleCommand, error) {
	var cmds []exampleCommand
	var cur string
	start := 0
	for i, l := range b.lines {
		if cur == "" {
			start = b.line + 1 + i
		}
		if s, ok := strings.CutSuffix(strings.TrimRight(l, " "), `\`); ok {
			cur += s + " "
			continue
		}
		cur += l
		text := strings.TrimSpace(cur)
		cur = ""
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		args, comment, err := shellWords(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v: %s", start, err, text)
		}
		if len(args) == 0 || args[0] != "ilmctl" {
			return nil, fmt.Errorf("line %d: only ilmctl commands can be runnable: %s", start, text)
		}
		c := exampleCommand{line: start, text: text, args: args[1:]}
		if m := exitComment.FindStringSubmatch(comment); m != nil {
			c.wantExit, _ = strconv.Atoi(m[1])
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// shellWords splits a command line as sh would, for the subset runnable
// examples may use, and returns the trailing comment apart.
func shellWords(s string) (words []string, comment string, err error) {
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, s[i:], nil
		case strings.IndexByte("|&;<>$`(){}[]*?", c) >= 0:
			return nil, "", fmt.Errorf("%q cannot run in process", string(c))
		case strings.HasPrefix(s[i:], "…"):
			return nil, "", fmt.Errorf("an elided command (…) cannot run")
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, "", fmt.Errorf("unterminated %c quote", quote)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, "", nil
}

// TestRunnableExamples runs every ```sh runnable block of README.md and
// docs/ (docs/development.md#examples-that-run): each page in a scratch
// directory of its own holding a link to testdata/, its ```json file=NAME
// blocks written there, its runnable blocks in page order, each command
// in process. A command must exit 0, or the code its "# exit N" comment
// names.
func TestRunnableExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docBlocks(string(data))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		var todo []docBlock
		for _, b := range blocks {
			if b.runnable() || b.attr("file") != "" {
				todo = append(todo, b)
			}
		}
		if len(todo) == 0 {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.Symlink(filepath.Join(root, "testdata"), "testdata"); err != nil {
				t.Fatal(err)
			}
			for _, b := range todo {
				if name := b.attr("file"); name != "" {
					if filepath.Base(name) != name {
						t.Fatalf("%s:%d: file=%s: a name, not a path", rel, b.line, name)
					}
					if err := os.WriteFile(name, []byte(strings.Join(b.lines, "\n")), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				cmds, err := exampleCommands(b)
				if err != nil {
					t.Fatalf("%s: %v", rel, err)
				}
				for _, c := range cmds {
					_, stderr, code := execute(t, c.args...)
					if code != c.wantExit {
						t.Errorf("%s:%d: %s\nexit %d, want %d (a trailing '# exit N' names another); stderr:\n%s", rel, c.line, c.text, code, c.wantExit, stderr)
					}
					ran++
				}
			}
		})
	}
	if ran == 0 {
		t.Fatal("no runnable example found in README.md or docs/")
	}
}

// The parser that finds the examples is tested on its own: a fence it
// misreads would silently skip an example.
func TestExampleParsing(t *testing.T) {
	page := "text\n```sh runnable\nilmctl a 'b c' \"d\"   # exit 4: why\n# a comment\nilmctl e \\\n    --f g\n```\n" +
		"  ```json file=x.json\n  {\"k\": 1}\n  ```\n```sh\nnot run | jq\n```\n"
	blocks, err := docBlocks(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || !blocks[0].runnable() || blocks[1].attr("file") != "x.json" || blocks[2].runnable() {
		t.Fatalf("blocks: %+v", blocks)
	}
	if got := strings.Join(blocks[1].lines, "\n"); got != `{"k": 1}` {
		t.Errorf("indented block: %q", got)
	}
	cmds, err := exampleCommands(blocks[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || strings.Join(cmds[0].args, ",") != "a,b c,d" || cmds[0].wantExit != 4 || cmds[0].line != 3 ||
		strings.Join(cmds[1].args, ",") != "e,--f,g" || cmds[1].wantExit != 0 || cmds[1].line != 5 {
		t.Errorf("commands: %+v", cmds)
	}
	for _, bad := range []string{"ilmctl a | jq .", "ilmctl a > out", "ilmctl $X", "aws s3 ls", "ilmctl a 'b", "ilmctl recovery abandon … --confirm"} {
		if _, err := exampleCommands(docBlock{line: 1, info: []string{"sh", "runnable"}, lines: []string{bad}}); err == nil {
			t.Errorf("%q: accepted, want an error", bad)
		}
	}
	if _, err := docBlocks("```sh\nno end\n"); err == nil {
		t.Error("an unclosed block: no error")
	}
}
