package embedded

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// TestDemoFixture keeps testdata/demo/fixture.json (used by `make demo`)
// loadable, its lifecycle XML valid, and its data a mix of due and not-due
// work at the demo clock 2026-11-30T00:00:00Z.
func TestDemoFixture(t *testing.T) {
	ctx := context.Background()
	raw, err := os.ReadFile("../../testdata/demo/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	f := openTest(t, Options{})
	sum, err := f.LoadFixture(ctx, strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Buckets != 3 || sum.Versions < 30 || sum.Versions > 60 {
		t.Errorf("demo summary %+v: want 3 buckets and 30-60 versions", sum)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	buckets, _ := f.ListBuckets(ctx)
	for _, b := range buckets {
		cfg, err := lifecycle.Parse([]byte(b.LifecycleXML))
		if err != nil {
			t.Errorf("bucket %s: lifecycle XML: %v", b.Name, err)
			continue
		}
		due, notDue := map[string]bool{}, map[string]bool{}
		note := func(m lifecycle.Match, what string) {
			if m.IsDue(now) {
				due[string(m.Kind)+" "+what] = true
			} else {
				notDue[string(m.Kind)+" "+what] = true
			}
		}
		objs, _, err := f.ListObjects(ctx, b.Name, "", 1000)
		if err != nil {
			t.Fatal(err)
		}
		for i := range objs {
			for vi, v := range objs[i].Versions {
				for ri := range cfg.Rules {
					for _, k := range cfg.Rules[ri].Actions() {
						if m, ok := lifecycle.EvaluateVersion(&cfg.Rules[ri], k, &objs[i], vi, lifecycle.RoundAWS); ok {
							note(m, objs[i].Key+"@"+v.VersionID)
						}
					}
				}
			}
		}
		ups, _, err := f.ListUploads(ctx, b.Name, "", 1000)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ups {
			for ri := range cfg.Rules {
				if m, ok := lifecycle.EvaluateUpload(&cfg.Rules[ri], &ups[i], lifecycle.RoundAWS); ok {
					note(m, ups[i].Key+"#"+ups[i].UploadID)
				}
			}
		}
		if len(due) == 0 || len(notDue) == 0 {
			t.Errorf("bucket %s: want both due and not-due work; due %v, not due %v", b.Name, keys(due), keys(notDue))
		}
		t.Logf("bucket %s due: %v", b.Name, keys(due))
		t.Logf("bucket %s not due: %v", b.Name, keys(notDue))
	}
	if got := lookup(t, f, "media", "legal/contract.pdf").Versions[3]; !got.LegalHold {
		t.Errorf("legal/contract.pdf oldest version %+v: want the demo's legal hold", got)
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
