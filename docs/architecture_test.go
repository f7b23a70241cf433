package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const module = "github.com/ilmctl/ilmctl"

// importRule is one row of architecture.md's import rules table.
type importRule struct {
	layer string
	never []string // layers, e.g. "client"
	// testsMay are the layers or packages (module-relative) that the
	// layer's tests may import although never lists them.
	testsMay []string
}

var (
	ruleRow = regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| ([^|]*)\\| ([^|]*)\\|")
	// tickPath is a module-relative package in backquotes: `internal/golden`.
	tickPath = regexp.MustCompile("`([a-z][a-z0-9/]*)`")
)

// importRules reads the table under "### Import rules".
func importRules(t *testing.T) []importRule {
	t.Helper()
	data, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "### Import rules\n")
	if !ok {
		t.Fatal("architecture.md has no \"### Import rules\" section")
	}
	section, _, _ = strings.Cut(section, "\n#")
	var rules []importRule
	for _, m := range ruleRow.FindAllStringSubmatch(section, -1) {
		r := importRule{layer: m[1]}
		for _, p := range tickPath.FindAllStringSubmatch(m[2], -1) {
			r.never = append(r.never, p[1])
		}
		for _, p := range tickPath.FindAllStringSubmatch(m[3], -1) {
			if !strings.Contains(p[1], "_test") {
				r.testsMay = append(r.testsMay, p[1])
			}
		}
		rules = append(rules, r)
	}
	if len(rules) < 4 {
		t.Fatalf("architecture.md's import rules table has %d rows, want at least core, render, internal, client", len(rules))
	}
	return rules
}

// under reports whether the module package pkg is rel or inside it.
func under(pkg, rel string) bool {
	p := module + "/" + rel
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

type listedPackage struct {
	ImportPath   string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// listPackages is `go list -json` of every package in the module, with
// the integration tests' files.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", "integration", "-json", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportRules holds every package to architecture.md's import rules:
// nothing a layer's code depends on, directly or through another
// package, is in a layer it never imports; its tests import such a
// package only where the table allows it.
func TestImportRules(t *testing.T) {
	rules := importRules(t)
	pkgs := listPackages(t)
	checked := map[string]int{}
	for _, p := range pkgs {
		for _, r := range rules {
			if !under(p.ImportPath, r.layer) {
				continue
			}
			checked[r.layer]++
			for _, dep := range p.Deps {
				for _, n := range r.never {
					if under(dep, n) {
						t.Errorf("%s depends on %s: %s never imports %s (docs/architecture.md#import-rules)", p.ImportPath, dep, r.layer, n)
					}
				}
			}
			for _, imp := range append(p.TestImports, p.XTestImports...) {
				for _, n := range r.never {
					if under(imp, n) && !slices.ContainsFunc(r.testsMay, func(m string) bool { return under(imp, m) }) {
						t.Errorf("%s's tests import %s: %s never imports %s (docs/architecture.md#import-rules)", p.ImportPath, imp, r.layer, n)
					}
				}
			}
		}
	}
	for _, r := range rules {
		if checked[r.layer] == 0 {
			t.Errorf("the import rules name layer %s, which has no package", r.layer)
		}
	}
}

// TestImportRulesMatchLinter: .golangci.yml's depguard rule for each
// layer (the rule named after it) denies exactly the layers the table
// says it never imports, so `make lint` and this page say the same.
func TestImportRulesMatchLinter(t *testing.T) {
	data, err := os.ReadFile("../.golangci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Linters struct {
			Settings struct {
				Depguard struct {
					Rules map[string]struct {
						Files []string `yaml:"files"`
						Deny  []struct {
							Pkg string `yaml:"pkg"`
						} `yaml:"deny"`
					} `yaml:"rules"`
				} `yaml:"depguard"`
			} `yaml:"settings"`
		} `yaml:"linters"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, r := range importRules(t) {
		rule, ok := cfg.Linters.Settings.Depguard.Rules[r.layer]
		if !ok {
			t.Errorf(".golangci.yml has no depguard rule %q", r.layer)
			continue
		}
		if want := "**/" + r.layer + "/**.go"; !slices.Contains(rule.Files, want) {
			t.Errorf("depguard rule %q covers %v, want %s", r.layer, rule.Files, want)
		}
		var denied []string
		for _, d := range rule.Deny {
			denied = append(denied, strings.TrimPrefix(d.Pkg, module+"/"))
		}
		want := slices.Clone(r.never)
		sort.Strings(denied)
		sort.Strings(want)
		if !slices.Equal(denied, want) {
			t.Errorf("depguard rule %q denies %v; docs/architecture.md#import-rules says %v", r.layer, denied, want)
		}
	}
}
