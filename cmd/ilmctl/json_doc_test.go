package main

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	coredecom "github.com/ilmctl/ilmctl/core/decom"
	corejournal "github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/reconcile"
	"github.com/ilmctl/ilmctl/render"
)

// jsonFields is every JSON field name t encodes, through nested structs,
// pointers, slices, map values and embedded structs; map keys are data,
// not fields.
func jsonFields(t reflect.Type) []string {
	seen := map[reflect.Type]bool{}
	var names []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t.PkgPath() == "time" {
			return
		}
		seen[t] = true
		for f := range t.Fields() {
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			if f.Anonymous && name == "" { // flattened into its parent
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			names = append(names, name)
			walk(f.Type)
		}
	}
	walk(t)
	slices.Sort(names)
	return slices.Compact(names)
}

// outputFields is every object key of a JSON document, except below the
// keys in data (objects whose keys are data: an outcome, a reason, a
// decoded record's own field names).
func outputFields(t *testing.T, doc string, data ...string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("not one JSON document (%v):\n%s", err, doc)
	}
	var names []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				names = append(names, k)
				if !slices.Contains(data, k) {
					walk(c)
				}
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(v)
	slices.Sort(names)
	return slices.Compact(names)
}

var jsonDocSection = regexp.MustCompile("(?m)^## (.+)$")

// jsonDocSections is docs/json.md by its "## " headings.
func jsonDocSections(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	sections := map[string]string{}
	idx := jsonDocSection.FindAllStringSubmatchIndex(text, -1)
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		sections[text[m[2]:m[3]]] = text[m[1]:end]
	}
	return sections
}

// TestJSONFieldsDocumented: every JSON field of the documents scripts read
// is named, in backticks, in its command's section of docs/json.md. A new
// field fails here until the page says what it means.
func TestJSONFieldsDocumented(t *testing.T) {
	sections := jsonDocSections(t)
	minus := func(a, b []string) []string {
		return slices.DeleteFunc(slices.Clone(a), func(s string) bool { return slices.Contains(b, s) })
	}
	demo := loadDemo(t)
	run := func(args ...string) string {
		out, stderr, code := execute(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	pools := []string{"--meta", "../../testdata/ilm/pool-a", "--meta", "../../testdata/ilm/pool-b"}
	const tok = "ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661"
	runFields := jsonFields(reflect.TypeFor[render.RunReport]())
	for _, tc := range []struct {
		section string
		fields  []string
	}{
		{"`ilmctl run -o json`", runFields},
		{"`ilmctl run -o jsonl`", minus(append(jsonFields(reflect.TypeFor[render.ActionLine]()), jsonFields(reflect.TypeFor[render.SummaryLine]())...), runFields)},
		{"`ilmctl explain -o json`", jsonFields(reflect.TypeFor[render.ExplainReport]())},
		{"`ilmctl filer ls -o json`", outputFields(t, run("filer", "ls", "--filer", demo, "-o", "json"))},
		{"`ilmctl rules check -o json`", jsonFields(reflect.TypeFor[render.RulesCheckReport]())},
		{"`ilmctl journal ls -o json` and `journal show -o json`", append(append(jsonFields(reflect.TypeFor[corejournal.Report]()),
			outputFields(t, run(append([]string{"journal", "ls", "-o", "json"}, pools...)...), "records")...),
			outputFields(t, run(append([]string{"journal", "show", "244eebc90583", "-o", "json"}, pools...)...), "record", "fields")...)},
		{"`ilmctl decom verify -o json` and `decom receipts ls -o json`", append(append(jsonFields(reflect.TypeFor[coredecom.Report]()),
			outputFields(t, run("decom", "receipts", "ls", "--run-token", tok, "--meta", "../../testdata/decom/complete/target-a", "-o", "json"))...),
			outputFields(t, run("decom", "run-token", "--cmd-line", "http://node{1...4}:9000/data{1...4}", "--start-unix-nanos", "1750000000123456789", "-o", "json"))...)},
		{"`ilmctl reconcile get|post -o json`", jsonFields(reflect.TypeFor[reconcile.Report]())},
	} {
		text, ok := sections[tc.section]
		if !ok {
			t.Errorf("docs/json.md has no section \"## %s\"", tc.section)
			continue
		}
		if len(tc.fields) == 0 {
			t.Errorf("%s: no fields found: the test reads the wrong type", tc.section)
		}
		for _, f := range tc.fields {
			if !strings.Contains(text, "`"+f+"`") {
				t.Errorf("docs/json.md, section %s: field `%s` is not documented", tc.section, f)
			}
		}
	}
}

// The field walk itself: embedded structs are flattened, "-" and
// unexported fields skipped, map keys not taken for fields, time.Time a
// leaf.
func TestJSONFieldsWalk(t *testing.T) {
	type inner struct {
		C string `json:"c"`
	}
	type Embedded struct {
		E int `json:"e"`
	}
	type doc struct {
		Embedded
		A       string           `json:"a,omitempty"`
		B       []*inner         `json:"b"`
		M       map[string]inner `json:"m"`
		Skipped string           `json:"-"`
		hidden  string
	}
	_ = doc{}.hidden
	got := jsonFields(reflect.TypeFor[doc]())
	if want := []string{"a", "b", "c", "e", "m"}; !slices.Equal(got, want) {
		t.Errorf("jsonFields = %v, want %v", got, want)
	}
	out := outputFields(t, `{"x":{"y":1},"d":{"DONE":2},"l":[{"z":null}]}`, "d")
	if want := []string{"d", "l", "x", "y", "z"}; !slices.Equal(out, want) {
		t.Errorf("outputFields = %v, want %v", out, want)
	}
}
