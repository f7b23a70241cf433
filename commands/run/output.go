package run

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/render"
)

// outputFormats are the -o values `ilmctl run` takes.
var outputFormats = []render.Format{render.FormatTable, render.FormatWide, render.FormatJSON, render.FormatJSONL}

// actionSink is where a pass's actions go while it runs, so it holds
// counts and not its actions: -o jsonl streams them to stdout, -o json
// spools them to a temporary file and writes them into the document at
// the end. Only a dry run's table, which lists what would be dispatched
// sorted by bucket and key, keeps them in memory.
type actionSink struct {
	stream *render.ActionStream
	spool  *render.ActionSpool
	stop   func()
}

// streamActions points cfg's actions at their sink for format.
//
// While -o jsonl streams, a reader that goes away (ilmctl run -o jsonl |
// head) must not kill the pass halfway through its deletes, before any
// cursor is saved: Go ends a program writing to a broken stdout pipe with
// SIGPIPE unless SIGPIPE is notified, so it is, until stop. The write then
// fails with EPIPE, the stream stops writing and the pass goes on.
func streamActions(format render.Format, cfg *dailyrun.Config, stdout io.Writer) (*actionSink, error) {
	sink := &actionSink{stop: func() {}}
	switch format {
	case render.FormatJSONL:
		sink.stream = render.NewActionStream(stdout)
		cfg.OnAction = sink.stream.Action
		sigpipe := make(chan os.Signal, 1)
		signal.Notify(sigpipe, syscall.SIGPIPE)
		sink.stop = func() { signal.Stop(sigpipe) }
	case render.FormatJSON:
		sp, err := render.NewActionSpool("")
		if err != nil {
			return nil, err
		}
		sink.spool = sp
		cfg.OnAction = sp.Action
		sink.stop = func() { sp.Close() }
	}
	cfg.DiscardActions = !(cfg.DryRun && (format == render.FormatTable || format == render.FormatWide))
	return sink, nil
}

// flush writes the -o jsonl lines still queued; a write error is kept in
// the stream and reported with its summary.
func (s *actionSink) flush() {
	if s.stream != nil {
		_ = s.stream.Flush()
	}
}

// writeReport writes the pass's report on stdout in format; for -o jsonl
// the actions are already out and the summary line ends the stream.
func writeReport(stdout io.Writer, format render.Format, rep render.RunReport, sink *actionSink) error {
	switch format {
	case render.FormatJSON:
		return render.JSONSpooled(stdout, rep, sink.spool)
	case render.FormatJSONL:
		if err := sink.stream.Summary(rep); err != nil {
			return fmt.Errorf("%w; the pass itself went on to its end (see the heartbeat)", err)
		}
		return nil
	}
	return render.RunTables(stdout, rep, format == render.FormatWide, cmdutil.Width(stdout))
}
