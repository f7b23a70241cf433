// Command vulncheck runs govulncheck against a local copy of the Go
// vulnerability database, with no network at scan time, and fails when
// the code calls a vulnerable symbol; `make vulncheck` (part of `make
// lint`) runs it. It is a build helper, not part of ilmctl.
//
//	go run ./scripts/vulncheck -bin .bin
//
// The database is the golang.org/x/vulndb module, fetched through the Go
// module proxy like any module (`go mod download golang.org/x/vulndb@V`):
// its data/osv holds one OSV file per vulnerability, and its cmd/indexdb
// turns that folder into the v1 database layout govulncheck reads from a
// file:// URL (index/db.json, index/modules.json, index/vulns.json,
// ID/<id>.json). Both tools are installed into -bin/<go version> at
// pinned versions (govulncheck type-checks the standard library of the Go
// that runs it, which fails when govulncheck was built by an older Go, so
// a new toolchain gets its own build) and the database is built once per
// vulndb version, under -bin/vulndb/<version>.
//
// A finding whose trace reaches a function is "called": that fails the
// check for a required module. A called vulnerability in the standard
// library belongs to the Go toolchain that builds the binary, not to
// go.mod; -stdlib=fail (the Makefile's default) fails on it too,
// -stdlib=report prints it and passes. Findings in packages imported or
// modules required, but not called, are counted on one line (govulncheck
// -show verbose lists them).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Pinned tool versions; -vulndb overrides the database's.
const (
	govulncheckVersion = "v1.9.0"
	// vulndbDefault is a version of the database module the proxy serves;
	// "latest" takes the newest (the database grows daily).
	vulndbDefault = "latest"
)

func main() {
	bin := flag.String("bin", ".bin", "directory for the tools and the database")
	vulndb := flag.String("vulndb", vulndbDefault, "golang.org/x/vulndb module version (a pseudo-version, or latest)")
	stdlib := flag.String("stdlib", "report", "called standard-library vulnerabilities: report (print, pass) or fail")
	flag.Parse()
	if *stdlib != "report" && *stdlib != "fail" {
		fatalf("-stdlib %q: want report or fail", *stdlib)
	}
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	root, err := filepath.Abs(*bin)
	if err != nil {
		fatalf("%v", err)
	}
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		fatalf("go env GOVERSION: %v", err)
	}
	tools := filepath.Join(root, strings.TrimSpace(string(goVersion)))
	govulncheck, err := install(tools, "golang.org/x/vuln/cmd/govulncheck", govulncheckVersion)
	if err != nil {
		fatalf("%v", err)
	}
	db, err := database(root, tools, *vulndb)
	if err != nil {
		fatalf("%v", err)
	}
	args := append([]string{"-db", "file://" + db, "-format", "json"}, patterns...)
	cmd := exec.Command(govulncheck, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fatalf("govulncheck %s: %v", strings.Join(args, " "), err)
	}
	rep, err := evaluate(bytes.NewReader(out))
	if err != nil {
		fatalf("reading govulncheck's output: %v", err)
	}
	rep.print(os.Stdout, filepath.Base(db))
	if rep.fails(*stdlib == "fail") {
		os.Exit(1)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "vulncheck: "+format+"\n", args...)
	os.Exit(2)
}

// install puts pkg@version's binary at root/<name>-<version> and returns
// its path; an existing one is reused.
func install(root, pkg, version string) (string, error) {
	name := filepath.Base(pkg)
	dst := filepath.Join(root, name+"-"+version)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "install", pkg+"@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w", pkg, version, err)
	}
	return dst, os.Rename(filepath.Join(tmp, name), dst)
}

// database returns the directory of the v1 database built from the
// golang.org/x/vulndb module at version, building it when absent with an
// indexdb installed into tools.
func database(root, tools, version string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", "golang.org/x/vulndb@"+version).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download golang.org/x/vulndb@%s: %w", version, err)
	}
	var mod struct{ Version, Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Error != "" || mod.Dir == "" {
		return "", fmt.Errorf("go mod download golang.org/x/vulndb@%s: %v %s", version, err, mod.Error)
	}
	db := filepath.Join(root, "vulndb", mod.Version)
	if _, err := os.Stat(filepath.Join(db, "index", "db.json")); err == nil {
		return db, nil
	}
	indexdb, err := install(tools, "golang.org/x/vulndb/cmd/indexdb", mod.Version)
	if err != nil {
		return "", err
	}
	tmp := db + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return "", err
	}
	cmd := exec.Command(indexdb, "-vulns", filepath.Join(mod.Dir, "data", "osv"), "-out", tmp)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("indexdb: %w", err)
	}
	return db, os.Rename(tmp, db)
}

// The parts of govulncheck's JSON stream (its protocol v1.0.0) read here.
type message struct {
	Config *struct {
		GoVersion string `json:"go_version"`
	} `json:"config"`
	OSV     *osv     `json:"osv"`
	Finding *finding `json:"finding"`
}

type osv struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

type finding struct {
	OSV          string  `json:"osv"`
	FixedVersion string  `json:"fixed_version"`
	Trace        []frame `json:"trace"`
}

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
	} `json:"position"`
}

// called is one vulnerability the code reaches, with one example of where.
type called struct {
	id, module, version, fixed, summary string
	symbol, from                        string
}

type report struct {
	goVersion string
	called    []called
	// uncalled counts the other vulnerabilities by level.
	imported, required int
}

// evaluate reads govulncheck's JSON stream.
func evaluate(r io.Reader) (*report, error) {
	dec := json.NewDecoder(r)
	summaries := map[string]string{}
	byID := map[string]*called{}
	level := map[string]int{} // 2 called, 1 imported, 0 required
	rep := &report{}
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		switch {
		case m.Config != nil:
			rep.goVersion = m.Config.GoVersion
		case m.OSV != nil:
			summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil && len(m.Finding.Trace) > 0:
			f, top := m.Finding, m.Finding.Trace[0]
			l := 0
			if top.Function != "" {
				l = 2
			} else if top.Package != "" {
				l = 1
			}
			if old, ok := level[f.OSV]; !ok || l > old {
				level[f.OSV] = l
			}
			if l == 2 {
				// The example kept is the first by place, so the output
				// is the same from run to run.
				c := &called{id: f.OSV, module: top.Module, version: top.Version, fixed: f.FixedVersion,
					symbol: symbol(top)}
				if n := len(f.Trace); n > 1 {
					c.from = where(f.Trace[n-1])
				}
				if old := byID[f.OSV]; old == nil || c.from+c.symbol < old.from+old.symbol {
					byID[f.OSV] = c
				}
			}
		}
	}
	for id, l := range level {
		switch l {
		case 2:
			c := byID[id]
			c.summary = summaries[id]
			rep.called = append(rep.called, *c)
		case 1:
			rep.imported++
		default:
			rep.required++
		}
	}
	sort.Slice(rep.called, func(i, j int) bool {
		a, b := rep.called[i], rep.called[j]
		if (a.module == "stdlib") != (b.module == "stdlib") {
			return b.module == "stdlib"
		}
		return a.id < b.id
	})
	return rep, nil
}

func symbol(f frame) string {
	s := f.Package + "."
	if f.Receiver != "" {
		s += strings.TrimPrefix(f.Receiver, "*") + "."
	}
	return s + f.Function
}

func where(f frame) string {
	s := symbol(f)
	if f.Position != nil {
		s = fmt.Sprintf("%s:%d %s", f.Position.Filename, f.Position.Line, s)
	}
	return s
}

// fails reports whether the check fails: a called vulnerability in a
// required module, or (strictStdlib) in the standard library.
func (r *report) fails(strictStdlib bool) bool {
	for _, c := range r.called {
		if c.module != "stdlib" || strictStdlib {
			return true
		}
	}
	return false
}

func (r *report) print(w io.Writer, db string) {
	var mods, std int
	for _, c := range r.called {
		fixed := c.fixed
		if fixed == "" {
			fixed = "no fixed version"
		} else {
			fixed = "fixed in " + fixed
		}
		if c.module == "stdlib" {
			std++
			fmt.Fprintf(w, "%s  Go %s, %s: %s\n", c.id, strings.TrimPrefix(c.version, "v"), fixed, c.summary)
		} else {
			mods++
			fmt.Fprintf(w, "%s  %s@%s, %s: %s\n", c.id, c.module, c.version, fixed, c.summary)
		}
		fmt.Fprintf(w, "    %s, e.g. from %s\n", c.symbol, c.from)
	}
	fmt.Fprintf(w, "vulncheck: database golang.org/x/vulndb@%s, %s: %d called in modules, %d called in the standard library; %d more imported, %d more required, not called\n",
		db, r.goVersion, mods, std, r.imported, r.required)
	if std > 0 {
		fmt.Fprintf(w, "vulncheck: the standard library's are fixed by building with a newer Go than %s: raise GOTOOLCHAIN (docs/dependencies.md#vulnerabilities)\n", r.goVersion)
	}
}
