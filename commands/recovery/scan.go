package recovery

import (
	"errors"
	"fmt"

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
		e, err := c.begin(cmd, output, nil)
		if err != nil {
			return err
		}
		rep, err := core.Scan(ctxOf(cmd), e.pools, core.ScanOptions{Clock: now})
		if err != nil {
			return err
		}
		e.rec.RecordScan(rep, now())
		if err := render.RecoveryScan(e.out, e.format, rep, e.width); err != nil {
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
