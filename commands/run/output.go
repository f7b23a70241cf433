package run

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/render"
)

// outputFormats are the -o values `ilmctl run` takes.
var outputFormats = []render.Format{render.FormatTable, render.FormatWide, render.FormatJSON, render.FormatJSONL}

// streamActions makes -o jsonl write each action to stdout as the pass
// records it. Other formats write once the pass is over and get nil.
//
// While it streams, a reader that goes away (ilmctl run -o jsonl | head)
// must not kill the pass halfway through its deletes, before any cursor
// is saved: Go ends a program writing to a broken stdout pipe with SIGPIPE
// unless SIGPIPE is notified, so it is, until stop. The write then fails
// with EPIPE, the stream stops writing and the pass goes on.
func streamActions(format render.Format, cfg *dailyrun.Config, stdout io.Writer) (stream *render.ActionStream, stop func()) {
	if format != render.FormatJSONL {
		return nil, func() {}
	}
	stream = render.NewActionStream(stdout)
	cfg.OnAction = stream.Action
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	return stream, func() { signal.Stop(sigpipe) }
}

// writeReport writes the pass's report on stdout in format; for -o jsonl
// the actions are already out and the summary line ends the stream.
func writeReport(stdout io.Writer, format render.Format, rep render.RunReport, stream *render.ActionStream) error {
	switch format {
	case render.FormatJSON:
		return render.JSON(stdout, rep)
	case render.FormatJSONL:
		if err := stream.Summary(rep); err != nil {
			return fmt.Errorf("%w; the pass itself went on to its end (see the heartbeat)", err)
		}
		return nil
	}
	return render.RunTables(stdout, rep, format == render.FormatWide)
}
