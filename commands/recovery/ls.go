package recovery

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/render"
)

// controlRow is one control as `ls -o json` prints it.
type controlRow struct {
	ControlID               string              `json:"control_id"`
	Protocol                core.Protocol       `json:"protocol"`
	SourcePath              string              `json:"source_path"`
	SourceSchema            string              `json:"source_schema"`
	SourceState             string              `json:"source_state"`
	Classification          core.Classification `json:"classification"`
	FirstSeenAt             string              `json:"first_seen_at"`
	AgeSeconds              int64               `json:"age_seconds"`
	Revision                uint64              `json:"revision"`
	AttemptCount            uint64              `json:"attempt_count"`
	ConsecutiveFailureCount uint64              `json:"consecutive_failure_count"`
	NextAttemptAt           string              `json:"next_attempt_at,omitempty"`
	LastErrorCode           core.ErrorCode      `json:"last_error_code"`
	Copies                  int                 `json:"copies"`
	ETag                    string              `json:"etag"`
}

func rowOf(c *core.Control, etag string, at time.Time) controlRow {
	r := controlRow{
		ControlID: c.ID, Protocol: c.Protocol, SourcePath: c.SourcePath, SourceSchema: c.Observed.SourceSchema,
		SourceState: c.Observed.SourceState, Classification: c.Classification,
		FirstSeenAt: time.Unix(0, c.FirstSeenAtUnixNanos).UTC().Format(time.RFC3339), AgeSeconds: int64(at.Sub(time.Unix(0, c.FirstSeenAtUnixNanos)) / time.Second),
		Revision: c.Revision, AttemptCount: c.AttemptCount, ConsecutiveFailureCount: c.ConsecutiveFailureCount,
		LastErrorCode: c.LastErrorCode, Copies: len(c.Observed.Copies), ETag: etag,
	}
	if c.NextAttemptAtUnixNanos != 0 {
		r.NextAttemptAt = time.Unix(0, c.NextAttemptAtUnixNanos).UTC().Format(time.RFC3339)
	}
	return r
}

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
		format, err := output()
		if err != nil {
			return err
		}
		var f core.ListFilter
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
		e, err := c.open(cmd)
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
		at := now()
		rows := make([]controlRow, 0, len(page.Controls))
		for _, ctl := range page.Controls {
			rows = append(rows, rowOf(ctl, page.ETags[ctl.ID], at))
		}
		poolErrs := core.PoolListingErrors(ctxOf(cmd), e.pools)
		incomplete := len(page.BadKeys) > 0 || len(poolErrs) > 0
		if err := renderLs(e.out, format, rows, page, poolErrs, incomplete, at, cmdutil.Width(e.out)); err != nil {
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

func renderLs(w io.Writer, f render.Format, rows []controlRow, page *core.ListPage, poolErrs []string, incomplete bool, at time.Time, width int) error {
	if f == render.FormatJSON {
		bad := page.BadKeys
		if bad == nil {
			bad = []string{}
		}
		if poolErrs == nil {
			poolErrs = []string{}
		}
		return render.JSON(w, map[string]any{"controls": rows, "next_marker": page.NextMarker, "incomplete": incomplete,
			"corrupt_controls": bad, "pool_errors": poolErrs})
	}
	wide := f == render.FormatWide
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ControlID
	}
	short := render.Abbrev(ids, render.ShortIDLen)
	var paths []string
	for _, r := range rows {
		paths = append(paths, r.SourcePath)
	}
	shortPath := render.ShortPaths(paths)
	header := []string{"CONTROL", "CLASSIFICATION", "AGE", "RETRY IN", "SOURCE"}
	if wide {
		header = []string{"CONTROL", "PROTOCOL", "CLASSIFICATION", "AGE", "ATTEMPTS", "FAILURES", "NEXT ATTEMPT", "LAST ERROR", "SOURCE"}
	}
	var tr [][]string
	for _, r := range rows {
		age := render.Duration(time.Duration(r.AgeSeconds) * time.Second)
		if wide {
			tr = append(tr, []string{r.ControlID, string(r.Protocol), string(r.Classification), age,
				strconv.FormatUint(r.AttemptCount, 10), strconv.FormatUint(r.ConsecutiveFailureCount, 10),
				r.NextAttemptAt, string(r.LastErrorCode), r.SourcePath})
			continue
		}
		tr = append(tr, []string{short[r.ControlID], string(r.Classification), age, retryIn(r.NextAttemptAt, at), shortPath(r.SourcePath)})
	}
	if !wide {
		tr = render.FitRowsWith(render.ShortenPath, header, tr, width, 4)
	}
	title := "Controls"
	if incomplete {
		title = "Controls (incomplete: unreadable controls or pools)"
	}
	if err := render.Table(w, title, header, tr); err != nil {
		return err
	}
	if page.NextMarker != "" {
		if _, err := fmt.Fprintf(w, "\nmore controls: --marker %s\n", page.NextMarker); err != nil {
			return err
		}
	}
	for _, pe := range poolErrs {
		if _, err := fmt.Fprintf(w, "pool %s\n", pe); err != nil {
			return err
		}
	}
	return nil
}

// retryIn is how long until a control's next attempt (RFC3339) as a table
// prints it: "-" when none is scheduled, "due" when it is not in the
// future.
func retryIn(next string, at time.Time) string {
	t, err := time.Parse(time.RFC3339, next)
	switch {
	case next == "" || err != nil:
		return "-"
	case !t.After(at):
		return "due"
	}
	return render.Duration(t.Sub(at))
}
