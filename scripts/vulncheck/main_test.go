package main

import (
	"bytes"
	"strings"
	"testing"
)

// stream builds a govulncheck JSON stream: the config, one OSV entry per
// id, then the findings.
func stream(findings ...string) string {
	s := `{"config":{"go_version":"go1.26.8"}}
{"osv":{"id":"GO-1","summary":"std bug"}}
{"osv":{"id":"GO-2","summary":"module bug"}}
{"osv":{"id":"GO-3","summary":"another"}}
`
	return s + strings.Join(findings, "\n")
}

const (
	stdCalled = `{"finding":{"osv":"GO-1","fixed_version":"v1.26.9","trace":[` +
		`{"module":"stdlib","version":"v1.26.8","package":"net/http","function":"Read","receiver":"*body"},` +
		`{"module":"github.com/ilmctl/ilmctl","package":"github.com/ilmctl/ilmctl/core/lifecycle","function":"parse","position":{"filename":"core/lifecycle/parse.go","line":160}}]}}`
	stdImported = `{"finding":{"osv":"GO-1","fixed_version":"v1.26.9","trace":[{"module":"stdlib","version":"v1.26.8","package":"net/http"}]}}`
	modCalled   = `{"finding":{"osv":"GO-2","fixed_version":"v0.62.0","trace":[` +
		`{"module":"golang.org/x/net","version":"v0.61.0","package":"golang.org/x/net/http2","function":"Decode"},` +
		`{"module":"github.com/ilmctl/ilmctl","package":"github.com/ilmctl/ilmctl/client/s3","function":"Open"}]}}`
	modRequired = `{"finding":{"osv":"GO-2","fixed_version":"v0.62.0","trace":[{"module":"golang.org/x/net","version":"v0.61.0"}]}}`
	otherImport = `{"finding":{"osv":"GO-3","trace":[{"module":"example.com/m","version":"v1.0.0","package":"example.com/m/p"}]}}`
)

func TestEvaluate(t *testing.T) {
	for _, tc := range []struct {
		name                string
		in                  string
		failLax, failStrict bool
		imported, required  int
		out                 []string
	}{
		{name: "nothing", in: stream()},
		{name: "only required and imported", in: stream(modRequired, otherImport, stdImported),
			imported: 2, required: 1},
		{name: "a called standard-library vulnerability fails only when strict",
			in: stream(stdImported, stdCalled), failStrict: true,
			out: []string{"GO-1  Go 1.26.8, fixed in v1.26.9: std bug",
				"net/http.body.Read, e.g. from core/lifecycle/parse.go:160 github.com/ilmctl/ilmctl/core/lifecycle.parse",
				"0 called in modules, 1 called in the standard library", "newer Go than go1.26.8"}},
		{name: "a called module vulnerability always fails",
			in: stream(modRequired, modCalled, otherImport), failLax: true, failStrict: true, imported: 1,
			out: []string{"GO-2  golang.org/x/net@v0.61.0, fixed in v0.62.0: module bug",
				"1 called in modules, 0 called in the standard library"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := evaluate(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.fails(false); got != tc.failLax {
				t.Errorf("fails(report) = %v, want %v", got, tc.failLax)
			}
			if got := rep.fails(true); got != tc.failStrict {
				t.Errorf("fails(fail) = %v, want %v", got, tc.failStrict)
			}
			if rep.imported != tc.imported || rep.required != tc.required {
				t.Errorf("imported, required = %d, %d; want %d, %d", rep.imported, rep.required, tc.imported, tc.required)
			}
			var b bytes.Buffer
			rep.print(&b, "v0.0.0-test")
			for _, want := range tc.out {
				if !strings.Contains(b.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, b.String())
				}
			}
		})
	}
}

func TestEvaluateRejectsGarbage(t *testing.T) {
	if _, err := evaluate(strings.NewReader(`{"finding":`)); err == nil {
		t.Fatal("a truncated stream was accepted")
	}
}
