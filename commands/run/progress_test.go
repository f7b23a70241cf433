package run

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/render"
)

func TestWantProgress(t *testing.T) {
	for _, tc := range []struct {
		terminal, quiet bool
		format          render.Format
		want            bool
	}{
		{true, false, render.FormatTable, true},
		{true, false, render.FormatWide, true},
		{false, false, render.FormatTable, false}, // stderr redirected: a log, not a person
		{true, true, render.FormatTable, false},   // --quiet
		{true, false, render.FormatJSON, false},   // a script reads it
		{true, false, render.FormatJSONL, false},
	} {
		if got := wantProgress(tc.terminal, tc.quiet, tc.format); got != tc.want {
			t.Errorf("wantProgress(terminal %v, quiet %v, -o %s) = %v, want %v", tc.terminal, tc.quiet, tc.format, got, tc.want)
		}
	}
}

var progressStart = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

func fullProgress() *dailyrun.Progress {
	p := &dailyrun.Progress{}
	p.EventsReplayed.Store(1234)
	p.EntriesWalked.Store(56789)
	p.Dispatched.Store(900)
	p.Done.Store(864)
	p.LimiterWaitNs.Store(int64(3 * time.Second))
	return p
}

// The line shows each counter, DONE deletes per second since the start
// and the elapsed time against -runtime, as text and as the bar, when the
// terminal is wide enough; a dry run says what it would delete.
func TestProgressLineText(t *testing.T) {
	for _, tc := range []struct {
		width  int
		dryRun bool
		want   string
	}{
		{120, false, "replayed 1234  walked 56789  deleted 864/900 2.0/s  limiter 3s  7m12s/1h   12% [>.........]  "},
		{120, true, "replayed 1234  walked 56789  would delete 900  limiter 3s  7m12s/1h   12% [>.........]  "},
		{80, false, "replayed 1234  walked 56789  deleted 864/900  7m12s/1h   12% [>.........]  "},
	} {
		var buf bytes.Buffer
		l := newProgressLine(&buf, fullProgress(), time.Hour, progressStart, tc.width, tc.dryRun)
		l.draw(progressStart.Add(7*time.Minute + 12*time.Second))
		if got := buf.String(); !strings.HasSuffix(got, "\r"+tc.want) {
			t.Errorf("width %d dry %v: drawn %q, want it to end with %q", tc.width, tc.dryRun, got, tc.want)
		}
	}
}

// Every drawn line stays short of the terminal's last column, whatever
// the counters, so the in-place redraw never wraps and leaves nothing
// behind: at 80 columns the line that was 82-86 characters fits.
func TestProgressLineFitsTheTerminal(t *testing.T) {
	big := fullProgress()
	big.EventsReplayed.Store(123456789)
	big.EntriesWalked.Store(987654321)
	big.Dispatched.Store(150273)
	big.Done.Store(150000)
	big.LimiterWaitNs.Store(int64(26*time.Hour + 5*time.Second))
	for _, width := range []int{40, 60, 80, 100, 200} {
		for _, dry := range []bool{false, true} {
			var buf bytes.Buffer
			l := newProgressLine(&buf, big, 60*time.Minute, progressStart, width, dry)
			for _, at := range []time.Duration{0, 7 * time.Minute, 59*time.Minute + 59*time.Second} {
				l.draw(progressStart.Add(at))
			}
			for _, line := range strings.Split(buf.String(), "\r") {
				if n := utf8.RuneCountInString(line); n >= width {
					t.Errorf("width %d dry %v: a %d-column line %q", width, dry, n, line)
				}
			}
		}
	}
}

// The line is drawn at once and at every tick, and stop clears it: the
// heartbeat that follows starts on an empty line.
func TestStartProgressDrawsUntilStopped(t *testing.T) {
	var buf bytes.Buffer
	ticks := make(chan time.Time)
	p := fullProgress()
	stop := startProgress(&buf, p, time.Hour, progressStart, 120, false, ticks)
	ticks <- progressStart.Add(30 * time.Minute)
	ticks <- progressStart.Add(45 * time.Minute) // sent: the first tick's draw is done
	stop()
	got := buf.String()
	for _, want := range []string{"0s/1h    0%", "30m/1h   50%", "45m/1h   75%"} {
		if !strings.Contains(got, want) {
			t.Errorf("no draw showing %q in %q", want, got)
		}
	}
	last := got[strings.LastIndex(got[:len(got)-1], "\r"):]
	if strings.Trim(last, "\r ") != "" {
		t.Errorf("line not cleared at stop: ends with %q", last)
	}
	before := buf.Len()
	select {
	case ticks <- progressStart.Add(time.Hour):
		t.Error("a tick was taken after stop")
	default:
	}
	if buf.Len() != before {
		t.Error("drawn after stop")
	}
}

// The command draws the line only for a person reading a table on a
// terminal: not on a redirected stderr, not with --quiet, not with -o json.
func TestRunProgressOnlyOnATerminal(t *testing.T) {
	fixture, err := os.Open(filepath.Join("..", "..", "testdata", "demo", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer fixture.Close()
	dir := filepath.Join(t.TempDir(), "filer")
	if _, err := client.Load(context.Background(), dir, fixture, client.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		terminal bool
		args     []string
		want     bool
	}{
		{"terminal", true, nil, true},
		{"redirected", false, nil, false},
		{"quiet", true, []string{"--quiet"}, false},
		{"json", true, []string{"-o", "json"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := newCommand(&options{
				terminal: func(io.Writer) bool { return tc.terminal },
				ticker:   func() (<-chan time.Time, func()) { return nil, func() {} },
			})
			var stdout, stderr bytes.Buffer
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			cmd.SetArgs(append([]string{"--filer", dir, "--dry-run", "--now", "2026-11-30T00:00:00Z"}, tc.args...))
			if err := cmd.ExecuteContext(context.Background()); err != nil {
				t.Fatalf("run: %v\n%s", err, stderr.String())
			}
			got := stderr.String()
			drawn := strings.Contains(got, "replayed 0  walked 0")
			if drawn != tc.want {
				t.Fatalf("progress line drawn %v, want %v; stderr %q", drawn, tc.want, got)
			}
			// After the line is cleared ("\r<spaces>\r"), the notices and
			// the heartbeat start at the left margin.
			if rest := got[strings.LastIndex(got, "\r")+1:]; drawn && (strings.Contains(rest, "replayed") ||
				!strings.HasPrefix(rest, "ilmctl: ") && !strings.HasPrefix(rest, "daily_run: ")) {
				t.Errorf("stderr after the progress line is cleared: %q", rest)
			}
			if !drawn && strings.Contains(got, "\r") {
				t.Errorf("carriage return on stderr without a progress line: %q", got)
			}
		})
	}
}
