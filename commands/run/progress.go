package run

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/render"
	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progressInterval is how often the progress line is redrawn.
const progressInterval = 500 * time.Millisecond

// wantProgress decides whether a pass draws a live progress line on
// stderr: only for a person watching it, so only when stderr is a
// terminal, --quiet is not given and the report is one a person reads; a
// JSON report (json, jsonl) is read by a script, which may well capture
// stderr with it.
func wantProgress(stderrIsTerminal, quiet bool, format render.Format) bool {
	return stderrIsTerminal && !quiet && format != render.FormatJSON && format != render.FormatJSONL
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newTicker is the production progress ticker.
func newTicker() (<-chan time.Time, func()) {
	t := time.NewTicker(progressInterval)
	return t.C, t.Stop
}

// progressLine draws a pass's live counters and its elapsed time against
// -runtime as one line, redrawn in place:
//
//	replayed 1234  walked 56789  deleted 800/812 1.9/s  limiter 3s  7m12s/1h  12% [=>........]
//
// replayed counts meta-log events, walked the entries the walks listed;
// deleted is DONE deletes of actions dispatched, then DONE deletes per
// second since the start (a dry run: "would delete" and the actions it
// would dispatch); limiter is the time dispatches waited on the rate
// limiter. The line never reaches the terminal's last column, or a
// redraw would wrap and leave lines behind: past the width the limiter,
// the rate and the walked count are left out, in that order.
type progressLine struct {
	p       *dailyrun.Progress
	runtime time.Duration
	start   time.Time
	width   int
	dryRun  bool
	bar     *progressbar.ProgressBar
}

// progressBarWidth is the bar's inner width; barOverhead is what the
// library draws around the description: the percentage, the brackets and
// the padding.
const (
	progressBarWidth = 10
	barOverhead      = progressBarWidth + 10
)

// newProgressLine draws on w, a terminal width columns wide (80 when it
// cannot be told).
func newProgressLine(w io.Writer, p *dailyrun.Progress, runtime time.Duration, start time.Time, width int, dryRun bool) *progressLine {
	// The bar is elapsed time against -runtime, in milliseconds. The
	// library's own clock-driven parts (elapsed, ETA, rate) are off: the
	// line's times come from the ticks, so tests can give them.
	bar := progressbar.NewOptions64(max(runtime.Milliseconds(), 2),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(progressBarWidth),
		progressbar.OptionSetTheme(progressbar.ThemeASCII),
		progressbar.OptionSetElapsedTime(false),
		progressbar.OptionSetPredictTime(false),
	)
	if width <= 0 {
		width = 80
	}
	return &progressLine{p: p, runtime: runtime, start: start, width: width, dryRun: dryRun, bar: bar}
}

// text is the line's counters at now, as many as fit beside the bar.
func (l *progressLine) text(now time.Time) string {
	elapsed := max(now.Sub(l.start), 0)
	done := l.p.Done.Load()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	replayed := fmt.Sprintf("replayed %d", l.p.EventsReplayed.Load())
	walked := fmt.Sprintf("  walked %d", l.p.EntriesWalked.Load())
	deleted := fmt.Sprintf("  deleted %d/%d", done, l.p.Dispatched.Load())
	perSecond := fmt.Sprintf(" %.1f/s", rate)
	if l.dryRun {
		deleted, perSecond = fmt.Sprintf("  would delete %d", l.p.Dispatched.Load()), ""
	}
	limiter := "  limiter " + dailyrun.FormatDuration(l.p.LimiterWait())
	clock := fmt.Sprintf("  %s/%s ", dailyrun.FormatDuration(elapsed), dailyrun.FormatDuration(l.runtime))
	room := l.width - 1 - barOverhead
	for _, drop := range []*string{nil, &limiter, &perSecond, &walked} {
		if drop != nil {
			*drop = ""
		}
		if s := replayed + walked + deleted + perSecond + limiter + clock; len(s) <= room {
			return s
		}
	}
	s := replayed + deleted + clock
	return s[:max(min(len(s), room), 0)]
}

// draw redraws the line as of now. The bar stops one step short of full:
// a full bar is finished and no longer redrawn, and the pass is still
// running (it stops the line itself).
func (l *progressLine) draw(now time.Time) {
	ms := min(max(now.Sub(l.start), 0).Milliseconds(), l.bar.GetMax64()-1)
	_ = l.bar.Set64(ms) // errors are the terminal's; the pass goes on
	l.bar.Describe(l.text(now))
}

// startProgress draws p on w now and at every tick until stop, which
// waits for the last draw and clears the line, so what the command prints next
// starts on a clean line.
func startProgress(w io.Writer, p *dailyrun.Progress, runtime time.Duration, start time.Time, width int, dryRun bool, ticks <-chan time.Time) (stop func()) {
	l := newProgressLine(w, p, runtime, start, width, dryRun)
	l.draw(start) // at once: the first tick is progressInterval away
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case now := <-ticks:
				l.draw(now)
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-exited
		_ = l.bar.Clear()
	}
}
