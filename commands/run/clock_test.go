package run

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// clockFiler is a client.Filer whose only working method is its clock.
type clockFiler struct {
	filer.Store
	now time.Time
	err error
}

func (c clockFiler) Close() error { return nil }
func (c clockFiler) ServerTime(context.Context) (time.Time, error) {
	return c.now, c.err
}

// embeddedFiler has no clock of its own: the pass clock is its clock.
type embeddedFiler struct{ filer.Store }

func (embeddedFiler) Close() error { return nil }

func TestCheckServerClock(t *testing.T) {
	server := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		fl       interface{ Close() error }
		runNow   time.Time
		dryRun   bool
		wantCode int // 0: accepted
		wantNow  time.Time
	}{
		{"in step", clockFiler{now: server}, server.Add(time.Second), false, 0, server},
		{"within the skew", clockFiler{now: server}, server.Add(maxClockSkew), false, 0, server},
		{"three days ahead", clockFiler{now: server}, server.Add(72 * time.Hour), false, cmdutil.ExitUsage, time.Time{}},
		{"three days ahead, dry run", clockFiler{now: server}, server.Add(72 * time.Hour), true, 0, server},
		{"behind the filer", clockFiler{now: server}, server.Add(-72 * time.Hour), false, 0, server},
		{"clock unreadable", clockFiler{err: errors.New("connection refused")}, server, false, 1, time.Time{}},
		{"embedded filer", embeddedFiler{}, server.Add(72 * time.Hour), false, 0, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fl interface {
				filer.Store
				Close() error
			}
			switch f := tc.fl.(type) {
			case clockFiler:
				fl = f
			case embeddedFiler:
				fl = f
			}
			got, err := checkServerClock(context.Background(), fl, tc.runNow, tc.dryRun)
			if code := cmdutil.Code(err); code != tc.wantCode {
				t.Fatalf("exit code %d (%v), want %d", code, err, tc.wantCode)
			}
			if tc.wantCode == cmdutil.ExitUsage && !strings.Contains(strings.Join(hint.All(err), "; "), "--dry-run") {
				t.Errorf("refusal %q (hints %q) does not name --dry-run", err, hint.All(err))
			}
			if !got.Equal(tc.wantNow) {
				t.Errorf("server now = %v, want %v", got, tc.wantNow)
			}
		})
	}
}
