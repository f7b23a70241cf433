package run

import (
	"context"
	"testing"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/core/dailyrun"
)

// plainStore is a filer whose deletes do not rely on If-Match.
type plainStore struct{ client.Filer }

// probedStore is a filer --check-cas can probe (s3://).
type probedStore struct{ client.Filer }

func (probedStore) CheckCAS(context.Context) (string, error) { return "", nil }

// A real pass over a store whose deletes rely on If-Match gets one
// conditional_delete_unproven notice unless --check-cas proved it; a dry
// run deletes nothing, and other stores check identity themselves.
func TestUnprovenNotice(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fl       client.Filer
		checkCAS bool
		dryRun   bool
		want     bool
	}{
		{"s3 without --check-cas", probedStore{}, false, false, true},
		{"s3 with --check-cas", probedStore{}, true, false, false},
		{"s3 dry run", probedStore{}, false, true, false},
		{"another filer", plainStore{}, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s3Flags{checkCAS: tc.checkCAS}.unproven(tc.fl, "s3://127.0.0.1:9000", tc.dryRun)
			if !tc.want {
				if len(got) != 0 {
					t.Fatalf("notices %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0] != dailyrun.ConditionalDeleteUnproven("s3://127.0.0.1:9000") {
				t.Fatalf("notices %+v, want one %s", got, dailyrun.NoticeConditionalDeleteUnproven)
			}
		})
	}
}
