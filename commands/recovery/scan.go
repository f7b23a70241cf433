package recovery

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/render"
)

func isConflict(err error) bool   { return errors.Is(err, core.ErrConflict) }
func isIncomplete(err error) bool { return errors.Is(err, core.ErrIncomplete) }
func isRefused(err error) bool    { return errors.Is(err, core.ErrRefused) }
func isCapacity(err error) bool   { return errors.Is(err, core.ErrCapacity) }

func newScan() *cobra.Command {
	var c common
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "Create or advance one recovery control per stuck source record",
		Long: `scan classifies every durable ILM record in every pool (as 'ilmctl journal ls'
does) and keeps one recovery control per stuck source generation in the
control pool (the first --meta):

  retained_ambiguous,                recorded once, never retried
  operator_required, corrupt
  needs_source_proof                 a retryable failure: retrying, next
                                     attempt after
                                     min(60s x 2^min(n-1,6), 1h) x 80-100%
  32 consecutive failures or 7 days  operator_required, retries stop

A control is created create-only and advanced only by ETag compare-and-swap.
A record whose next attempt is not due is not touched (deferred), so
running scan from cron every minute never hot-loops. If a pool cannot be
read completely nothing new is created, due controls record a
metadata_unavailable failure, and scan exits 3.

The table fits the terminal (or $COLUMNS, else 80 columns): short control
IDs, source paths shortened in the middle; -o wide adds PROTOCOL and
ATTEMPT with full IDs and paths.`,
		Example: `  ilmctl recovery scan --meta dir:/srv/meta0 --meta dir:/srv/meta1
  ilmctl recovery scan --meta s3://10.0.0.5:9000/rustfs-meta -o json \
      --metrics-textfile /var/lib/node_exporter/textfile/ilmctl-recovery.prom`,
		Args: cmdutil.NoArgs,
	}
	c.flags(cmd)
	output := cmdutil.AddOutputFlag(cmd, render.FormatTable, render.FormatWide, render.FormatJSON)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, e, err := c.begin(cmd, output)
		if err != nil {
			return err
		}
		rep, err := core.Scan(ctxOf(cmd), e.pools, core.ScanOptions{Clock: now})
		if err != nil {
			return err
		}
		e.rec.RecordScan(rep, now())
		if err := renderScan(e.out, format, rep, cmdutil.Width(e.out)); err != nil {
			return err
		}
		if err := c.finish(e); err != nil {
			return err
		}
		if rep.Incomplete {
			return cmdutil.Incomplete(fmt.Errorf("scan incomplete: %d pool(s) could not be read completely; no control was created from them", len(rep.PoolErrors)))
		}
		return nil
	}
	return cmd
}

// renderScan prints the controls scan touched, then counts. The table
// fits width: each control by its short ID (which inspect takes), its
// classification and outcome, and its source record shortened in the
// middle; -o wide adds protocol and attempt outcome, with full IDs and
// paths.
func renderScan(w io.Writer, f render.Format, rep *core.ScanReport, width int) error {
	if f == render.FormatJSON {
		items := rep.Items
		if items == nil {
			items = []core.ScanItem{}
		}
		return render.JSON(w, map[string]any{
			"items": items, "incomplete": rep.Incomplete, "pool_errors": rep.PoolErrors,
			"corrupt_records": rep.CorruptRecords, "corrupt_controls": rep.CorruptControl, "orphan_controls": rep.OrphanControls,
			"corrupt_dispositions": nonNil(rep.CorruptDispositions),
		})
	}
	wide := f == render.FormatWide
	ids := shortIDs(rep.Items)
	var paths []string
	for _, it := range rep.Items {
		paths = append(paths, it.SourcePath)
	}
	shortPath := render.ShortPaths(paths)
	var rows [][]string
	counts := map[core.ScanOutcome]int{}
	for _, it := range rep.Items {
		counts[it.Outcome]++
		if wide {
			rows = append(rows, []string{it.ControlID, string(it.Protocol), dash(string(it.Classification)), string(it.Outcome), dash(string(it.Attempt)), it.SourcePath})
		} else {
			rows = append(rows, []string{ids[it.ControlID], dash(string(it.Classification)), string(it.Outcome), shortPath(it.SourcePath)})
		}
	}
	header := []string{"CONTROL", "CLASSIFICATION", "OUTCOME", "SOURCE"}
	if wide {
		header = []string{"CONTROL", "PROTOCOL", "CLASSIFICATION", "OUTCOME", "ATTEMPT", "SOURCE"}
	} else {
		rows = render.FitRowsWith(render.ShortenPath, header, rows, width, 3)
	}
	if err := render.Table(w, "Controls", header, rows); err != nil {
		return err
	}
	var sum [][]string
	for _, o := range []core.ScanOutcome{core.OutcomeCreated, core.OutcomeUpdated, core.OutcomeUnchanged, core.OutcomeDeferred, core.OutcomeConflict, core.OutcomeIncomplete} {
		if counts[o] > 0 {
			sum = append(sum, []string{string(o), strconv.Itoa(counts[o])})
		}
	}
	sum = append(sum, []string{"corrupt_records", strconv.Itoa(rep.CorruptRecords)}, []string{"orphan_controls", strconv.Itoa(rep.OrphanControls)})
	if rep.CorruptControl > 0 {
		sum = append(sum, []string{"corrupt_controls", strconv.Itoa(rep.CorruptControl)})
	}
	if n := len(rep.CorruptDispositions); n > 0 {
		sum = append(sum, []string{"corrupt_dispositions", strconv.Itoa(n)})
	}
	title := "\nSummary"
	if rep.Incomplete {
		title = "\nSummary (incomplete: not every pool was read)"
	}
	if err := render.Table(w, title, []string{"", "COUNT"}, sum); err != nil {
		return err
	}
	for _, pe := range rep.PoolErrors {
		if _, err := fmt.Fprintf(w, "pool %s: %s\n", pe.Pool, pe.Error); err != nil {
			return err
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func shortIDs(items []core.ScanItem) map[string]string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ControlID
	}
	return render.Abbrev(ids, render.ShortIDLen)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
