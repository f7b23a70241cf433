package recovery

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/render"
)

func joinEnum[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

func newLs() *cobra.Command {
	var c common
	var protocol, class, marker string
	var limit int
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List recovery controls",
		Long: `ls lists the recovery controls in the control pool (the first --meta) with
their source record, age (from the control's durable first-seen time, not
the record's modification time), classification and counters. It reads
controls only; run 'recovery scan' to create or advance them.

Pages hold --limit controls (default 100, at most 1000); when more remain,
the output ends with the --marker for the next page. A control record that
fails strict decoding makes the listing incomplete (exit 3) rather than
silently shorter, and so does any --meta pool that cannot be listed
completely (a scan over it could not have created every control).

The table fits the terminal (or $COLUMNS, else 80 columns): short control
IDs, age, time until the next retry (due: now), source paths shortened in
the middle; -o wide adds protocol, counters, the next attempt's time and
the last error, with full IDs and paths.`,
		Example: `  ilmctl recovery ls --meta dir:/srv/meta0
  ilmctl recovery ls --meta dir:/srv/meta0 --protocol tier_delete_journal \
      --classification retained_ambiguous -o json
  ilmctl recovery ls --meta dir:/srv/meta0 --limit 50 \
      --marker aWxtL3JlY292ZXJ5LWNvbnRyb2xz`,
		Args: cmdutil.NoArgs,
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&protocol, "protocol", "", "only this protocol: "+joinEnum(core.Protocols))
	cmd.Flags().StringVar(&class, "classification", "", "only this classification: "+joinEnum(core.Classifications))
	cmd.Flags().IntVar(&limit, "limit", core.DefaultListLimit, fmt.Sprintf("controls per page, 1..%d", core.MaxListLimit))
	cmd.Flags().StringVar(&marker, "marker", "", "continue after this marker (printed at the end of the previous page)")
	output := cmdutil.AddOutputFlag(cmd, render.FormatTable, render.FormatWide, render.FormatJSON)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var f core.ListFilter
		e, err := c.begin(cmd, output, func() (err error) {
			if protocol != "" {
				if f.Protocol, err = core.ParseProtocol(protocol); err != nil {
					return cmdutil.Usage("--protocol %q: use one of %s", protocol, joinEnum(core.Protocols))
				}
			}
			if class != "" {
				if f.Classification, err = core.ParseClassification(class); err != nil {
					return cmdutil.Usage("--classification %q: use one of %s", class, joinEnum(core.Classifications))
				}
			}
			if limit < 1 || limit > core.MaxListLimit {
				return cmdutil.Usage("--limit %d: use 1..%d", limit, core.MaxListLimit)
			}
			return nil
		})
		if err != nil {
			return err
		}
		page, err := core.ListControls(ctxOf(cmd), e.pools[0], f, limit, marker)
		if errors.Is(err, core.ErrBadMarker) {
			return cmdutil.Usage("--marker %q: %v; pass the marker a previous 'recovery ls' printed", marker, err)
		}
		if err != nil {
			return err
		}
		poolErrs := core.PoolListingErrors(ctxOf(cmd), e.pools)
		incomplete := len(page.BadKeys) > 0 || len(poolErrs) > 0
		if err := render.RecoveryLs(e.out, e.format, page, poolErrs, incomplete, now(), e.width); err != nil {
			return err
		}
		if err := c.finish(e); err != nil {
			return err
		}
		if incomplete {
			return cmdutil.Incomplete(fmt.Errorf("listing incomplete: %d unreadable control record(s), %d pool(s) that cannot be listed completely; counts do not cover every record",
				len(page.BadKeys), len(poolErrs)))
		}
		return nil
	}
	return cmd
}
