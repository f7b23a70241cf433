package recovery

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/render"
)

func newPrune() *cobra.Command {
	var c common
	var confirm bool
	cmd := &cobra.Command{
		Use:   "prune [CONTROL-ID...] --confirm",
		Short: "Retire finished controls and exports (dry run unless confirmed)",
		Long: `prune removes recovery controls that are finished (terminal or
abandoned) from the control pool, with their exports, so a decommission of
that pool no longer has to move them ('ilmctl decom verify' blocks on
finished history no target holds) and they stop filling it. Disposition
receipts are kept: they are the compact record of what an operator
abandoned, and a decommission moves them like any finished history.

A control is removed only when all of these hold:
  - it has been terminal or abandoned for at least --older-than (default
    90d, the retention floor of the exports removed with it), counted from
    the control's last write as the control pool dates it; one finished
    moments ago, or whose finishing time cannot be told, is kept;
  - no disposition of it is still in flight;
  - its source record is absent from every --meta pool (otherwise a later
    record at that path would lose its history);
  - no decommission receipt covers it or its exports.
Each export and then the control is deleted at the exact ETag it was
checked at. Running it again is always safe: an interrupted run is
finished by the next one, and a run with nothing to do writes nothing.
--older-than 0 retires what is finished now (before a decommission of the
control pool, say).

Without --confirm it is a dry run: it prints what it would remove and why,
and what it keeps and why. Without names, every terminal or abandoned
control is considered (live ones are not candidates) and one that must
stay is listed as kept, with the reason. A named control that must stay
(live, too recent, its source still present, covered by a decommission)
refuses the whole run with a one-line reason, and nothing is written.

Deletes must be conditional: before removing anything from an s3://
control pool it checks, with a probe object under the pool's
.ilmctl-tmp/, that the server honours If-Match on DELETE. A server that
ignores it (MinIO does) refuses the run, exit 1, and nothing is removed;
keep the pool on a server that honours If-Match (AWS S3, SeaweedFS).
Exit codes: 0 done (a dry run included), 1 refused or conflict, 2 bad
usage, 3 a pool could not be read.

The table fits the terminal (or $COLUMNS, else 80 columns), reasons
wrapped; -o wide adds the EXPORTS and KEPT RECEIPTS counts, with full IDs.`,
		Example: `  # what would go, and why (dry run)
  ilmctl recovery prune --meta dir:/srv/meta0 --meta dir:/srv/meta1
  # remove every finished control and its exports
  ilmctl recovery prune --meta dir:/srv/meta0 --meta dir:/srv/meta1 --confirm
  # only controls finished for more than a year
  ilmctl recovery prune --meta dir:/srv/meta0 --meta dir:/srv/meta1 \
    --older-than 365d --confirm
  # one control, as a script would
  ilmctl recovery prune 160f3effd967 --meta dir:/srv/meta0 \
    --meta dir:/srv/meta1 --confirm -o json`,
		Args: cobra.ArbitraryArgs,
	}
	c.flags(cmd)
	cmd.Flags().BoolVar(&confirm, "confirm", false, "remove what the dry run lists (default: dry run)")
	floor := retention(defaultPruneFloor)
	cmd.Flags().Var(&floor, "older-than", "retention floor: keep a control finished less than this long ago\n(days as 90d, or a Go duration as 36h; 0 = no floor)")
	output := cmdutil.AddOutputFlag(cmd, render.FormatTable, render.FormatWide, render.FormatJSON)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		e, err := c.begin(cmd, output, nil)
		if err != nil {
			return err
		}
		res, err := core.Prune(ctxOf(cmd), e.pools, core.PruneRequest{ControlIDs: args, Execute: confirm, Now: now(), MinAge: time.Duration(floor)})
		if confirm {
			audited := false
			for _, it := range res.Items {
				if it.Action == core.PruneRemoved {
					e.audit(auditLine{Action: "prune", Protocol: string(it.Protocol), ControlID: it.ControlID, Outcome: "ok"})
					audited = true
				}
			}
			if err != nil || !audited {
				e.audit(auditLine{Action: "prune", Outcome: outcomeOf(err)})
			}
		}
		if rerr := render.RecoveryPrune(e.out, e.format, res, err, e.width); rerr != nil {
			return rerr
		}
		if err != nil {
			return c.fail(e, err)
		}
		return c.finish(e)
	}
	return cmd
}

// defaultPruneFloor is the design's retention floor for exports (90
// days), the longest of what prune removes: a control's tombstone floor
// is 30 days, and its exports go with it (docs/design/recovery.md#prune).
const defaultPruneFloor = 90 * 24 * time.Hour

// retention is --older-than: whole days ("90d") or a Go duration ("36h").
type retention time.Duration

func (r *retention) String() string {
	d := time.Duration(*r)
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

func (r *retention) Set(v string) error {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		days, err := strconv.ParseUint(n, 10, 16)
		if err != nil {
			return fmt.Errorf("%q: want whole days (90d) or a Go duration (36h)", v)
		}
		*r = retention(time.Duration(days) * 24 * time.Hour)
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q: want whole days (90d) or a Go duration (36h), not negative", v)
	}
	*r = retention(d)
	return nil
}

func (r *retention) Type() string { return "age" }
