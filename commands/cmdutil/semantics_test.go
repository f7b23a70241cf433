package cmdutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// TestPassFlagsRead: run and explain read their shared flags in one
// order, so with several bad flags the error names the same one in both:
// --now, then the semantics flags, then --rules; each refusal is a usage
// error (exit 2) but an unreadable --rules file (exit 1).
func TestPassFlagsRead(t *testing.T) {
	xml := filepath.Join(t.TempDir(), "logs.xml")
	if err := os.WriteFile(xml, []byte("<LifecycleConfiguration/>"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := PassFlags{Now: "2027-01-01T00:00:00Z", DueRounding: "exact", ExpiredMarkers: "keep", NewerNoncurrent: "versions", Rules: []string{"logs=" + xml}}
	for _, c := range []struct {
		name  string
		edit  func(*PassFlags)
		want  string // "" when accepted
		exit  int
		rules bool // the candidate was read
	}{
		{"all good", func(*PassFlags) {}, "", 0, true},
		{"no --rules", func(p *PassFlags) { p.Rules = nil }, "", 0, false},
		{"bad --now first", func(p *PassFlags) { p.Now, p.DueRounding, p.Rules = "tomorrow", "soon", []string{"x"} }, "--now", ExitUsage, false},
		{"bad semantics before --rules", func(p *PassFlags) { p.ExpiredMarkers, p.Rules = "never", []string{"x"} }, "--expired-marker-days", ExitUsage, false},
		{"bad --rules value", func(p *PassFlags) { p.Rules = []string{"x"} }, "--rules", ExitUsage, false},
		{"unreadable --rules file", func(p *PassFlags) { p.Rules = []string{"logs=" + xml + ".missing"} }, "logs.xml.missing", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := good
			c.edit(&p)
			in, err := p.Read()
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) || Code(err) != c.exit {
					t.Fatalf("Read() = %v (exit %d), want an error naming %q, exit %d", err, Code(err), c.want, c.exit)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC); !in.Now.Equal(want) {
				t.Errorf("Now = %v, want %v", in.Now, want)
			}
			if in.Semantics.Rounding != lifecycle.RoundExact {
				t.Errorf("Semantics.Rounding = %v, want exact", in.Semantics.Rounding)
			}
			if _, ok := in.Candidates["logs"]; ok != c.rules {
				t.Errorf("candidate for logs read: %v, want %v", ok, c.rules)
			}
		})
	}
}
