// Package recovery is `ilmctl recovery`: bounded recovery controls and the
// operator disposition of stuck durable ILM records
// (docs/design/recovery.md). Each command parses flags, calls
// core/recovery and hands the result to render (render/recovery.go);
// nothing here or below it creates a tier client.
package recovery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/metastore"
	core "github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/internal/metrics"
	"github.com/ilmctl/ilmctl/render"
)

// now is the clock; tests replace it.
var now = time.Now

// openStore opens one --meta URL; tests replace it to wrap stores.
var openStore = clientmeta.Open

// NewCommand returns `ilmctl recovery`.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "recovery",
		Short: "Recovery controls and operator disposition of stuck ILM records",
		Long: `recovery keeps one recovery control per stuck durable ILM record (a
tier-delete journal, manifest, transition transaction or manual job that
RustFS recovery cannot act on) and gives operators single-record tools for
legacy tier-delete journals v1/v2, which no automatic recovery can ever
clean:

  scan      create or advance controls (retry schedule, operator_required)
  ls        list controls
  inspect   read a record in every pool, redacted; write an observation receipt
  export    install an immutable export of the record's bytes, download it
  abandon   remove a v1/v2 journal after its export (dry run unless confirmed)
  retry     ask for one more bounded attempt after a fix
  prune     retire finished controls and exports (dry run unless confirmed)

Controls, exports and disposition receipts are written to the first --meta
pool (the control pool); source records are read from every pool. No
command creates a tier client or sends any request to a tier backend.
docs/design/recovery.md explains every step.`,
		Example: `  ilmctl recovery scan --meta dir:/srv/meta0 --meta dir:/srv/meta1
  ilmctl recovery ls --meta dir:/srv/meta0 --meta dir:/srv/meta1 \
      --classification retained_ambiguous
  ilmctl recovery inspect 160f3effd967 --meta dir:/srv/meta0 \
      --meta dir:/srv/meta1 --receipt-out receipt.json`,
	}
	cmd.AddCommand(newScan(), newLs(), newInspect(), newExport(), newAbandon(), newRetry(), newPrune())
	oneJSONDocument(cmd)
	return cmdutil.Group(cmd)
}

// common are the flags every recovery command takes.
type common struct {
	metas       []string
	metricsFile string
}

func (c *common) flags(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&c.metas, "meta", nil, "metadata pool: dir:PATH, PATH, or s3://host:port/bucket[/prefix] (repeat once per pool;\nthe first is the control pool that recovery artifacts are written to)")
	cmd.Flags().StringVar(&c.metricsFile, "metrics-textfile", "", "write this command's recovery metrics to this *.prom file (atomically, mode 0644)")
}

// env is what a command runs with.
type env struct {
	pools []metastore.Store
	actor string
	// format is -o (table for a command without it); width is what
	// stdout's tables fit (cmdutil.Width).
	format render.Format
	width  int
	out    io.Writer
	errw   io.Writer
	rec    *metrics.Recovery
}

// begin is every subcommand's first step, in the order its usage errors
// are reported: its output format (output; nil for a command without
// -o), then the command's own flag checks (check, if any), then its
// pools opened and the actor named (open).
func (c *common) begin(cmd *cobra.Command, output func() (render.Format, error), check func() error) (*env, error) {
	format := render.FormatTable
	if output != nil {
		var err error
		if format, err = output(); err != nil {
			return nil, err
		}
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, err
		}
	}
	e, err := c.open(cmd)
	if err != nil {
		return nil, err
	}
	e.format, e.width = format, cmdutil.Width(e.out)
	return e, nil
}

// open validates the common flags, opens every pool and names the actor
// (the control pool's credentials' access key ID, or the OS user).
func (c *common) open(cmd *cobra.Command) (*env, error) {
	if len(c.metas) == 0 {
		return nil, hint.With(cmdutil.Usage("no metadata pool given"), "pass --meta PATH, once per pool; the first holds recovery controls")
	}
	if c.metricsFile != "" && !strings.HasSuffix(c.metricsFile, ".prom") {
		return nil, cmdutil.Usage("--metrics-textfile %q: node_exporter reads only files named *.prom (example: /var/lib/node_exporter/textfile/ilmctl-recovery.prom)", c.metricsFile)
	}
	if c.metricsFile != "" {
		if _, err := filepath.Abs(c.metricsFile); err != nil {
			return nil, cmdutil.Usage("--metrics-textfile %q: %v", c.metricsFile, err)
		}
	}
	ctx := cmd.Context()
	e := &env{out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr(), rec: metrics.NewRecovery()}
	// All-pool reads and copy sets count each pool once; the control pool
	// named again would also be read as a source pool.
	if err := cmdutil.DistinctPools(cmdutil.PoolFlag{Flag: "--meta", Noun: "pool", First: "control pool", FirstRule: "pass each pool once"}, c.metas); err != nil {
		return nil, err
	}
	for _, m := range c.metas {
		s, err := openStore(ctx, m)
		if err != nil {
			return nil, cmdutil.Usage("--meta %q: %v", m, err)
		}
		e.pools = append(e.pools, s)
	}
	actor, err := clientmeta.Actor(ctx, e.pools[0])
	if err != nil {
		return nil, fmt.Errorf("cannot name the actor for receipts and audit lines: %w", err)
	}
	e.actor = actor
	return e, nil
}

// fail ends a subcommand that failed with err: its metrics still written
// (finish), err mapped to its exit code.
func (c *common) fail(e *env, err error) error {
	_ = c.finish(e)
	return exitFor(notFoundHint(err))
}

// finish writes the metrics textfile when one was asked for.
func (c *common) finish(e *env) error {
	if c.metricsFile == "" || e == nil {
		return nil
	}
	if err := e.rec.WriteTextfile(c.metricsFile); err != nil {
		return fmt.Errorf("--metrics-textfile %s: %w", c.metricsFile, err)
	}
	return nil
}

// auditLine is the one line every operator action writes to stderr
// (docs/design/recovery.md#metrics-and-audit): who did what to which
// control generation, and how it ended. Never payloads, names or secrets.
type auditLine struct {
	Audit             string `json:"audit"`
	Time              string `json:"time"`
	Actor             string `json:"actor"`
	Action            string `json:"action"`
	Protocol          string `json:"protocol,omitempty"`
	ControlID         string `json:"control_id,omitempty"`
	SourceGeneration  string `json:"source_generation,omitempty"`
	ControlGeneration string `json:"control_generation,omitempty"`
	ExportID          string `json:"export_id,omitempty"`
	DispositionID     string `json:"disposition_id,omitempty"`
	ReasonCode        string `json:"reason_code,omitempty"`
	// OwnerEpoch is this run's claim on a disposition application;
	// TookOverFrom the claim whose expired lease it took over.
	OwnerEpoch   string `json:"owner_epoch,omitempty"`
	TookOverFrom string `json:"took_over_from,omitempty"`
	Outcome      string `json:"outcome"`
}

// sourceGeneration is the audit line's one spelling of a record's source
// generation: the digest of the control's observed_source_generation
// (schema, state, content and copy-set digests), whatever the action.
func sourceGeneration(ctl *core.Control) string {
	if ctl == nil {
		return ""
	}
	return ctl.Observed.Digest()
}

func (e *env) audit(a auditLine) {
	a.Audit, a.Actor, a.Time = "ilm_recovery", e.actor, now().UTC().Format(time.RFC3339Nano)
	b, _ := json.Marshal(a)
	fmt.Fprintf(e.errw, "%s\n", b)
	proto := a.Protocol
	e.rec.RecordAction(proto, a.Action, a.Outcome)
}

// outcomeOf turns an action's error into its bounded audit outcome.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return "ok"
	case isConflict(err):
		return "conflict"
	case isCapacity(err):
		return "capacity"
	case isIncomplete(err):
		return "incomplete"
	case isRefused(err):
		return "refused"
	}
	return "error"
}

func ctxOf(cmd *cobra.Command) context.Context { return cmd.Context() }
