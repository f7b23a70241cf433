// Package reconcile is `ilmctl reconcile get|post`: prove one transitioned
// object version's remote state against its live tier and write the
// missing transitioned-version-state (docs/design/reconcile.md).
package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/client/tier"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	core "github.com/ilmctl/ilmctl/core/reconcile"
	"github.com/ilmctl/ilmctl/render"
)

// prober and lookupEnv are the live probe and the credential source the
// commands hand to core: minio-go against the real tier, and the process
// environment named by --tiers.
var (
	prober    core.Prober = tier.Prober{}
	lookupEnv             = os.LookupEnv
)

// NewCommand returns `ilmctl reconcile`.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Prove and repair one transitioned version against its tier",
		Long: `A transitioned object version written before RustFS recorded
transitioned-version-state has no state, reads as unknown, and every
destructive path refuses it. reconcile upgrades ONE exact version by
proving its remote state live; it never guesses and never lists.

  get    reads the version's internal metadata from every set (--filer),
         probes the tier (--tiers) and prints the plan: the source tuple,
         each set's original keys, the proven target and a digest.
         It changes nothing.
  post   takes that plan (--plan, --confirm), rereads every set, probes
         again, and writes only the state, its remote version id and the
         destination identity under both x-rustfs-internal- and
         x-minio-internal-, with each set's conditional generation.

Outcomes and exit codes: migrated / ready-to-migrate 0, retained-ambiguous 6,
corrupt 7, backend-unavailable 8; 1 when the version is not found or not
transitioned, 2 for bad flags or a plan that cannot be posted.
docs/design/reconcile.md has the contract.`,
		Example: `  ilmctl reconcile get --bucket photos --object 2024/a.jpg \
      --version-id 3f1c... --filer ./pool0 --filer ./pool1 \
      --tiers tiers.json -o json > plan.json
  ilmctl reconcile post --bucket photos --object 2024/a.jpg \
      --version-id 3f1c... --filer ./pool0 --filer ./pool1 \
      --tiers tiers.json --plan plan.json --confirm`,
	}
	cmd.AddCommand(newGet(), newPost())
	return cmdutil.Group(cmd)
}

// common holds the flags get and post share.
type common struct {
	sel     core.Selector
	filers  []string
	tiers   string
	timeout time.Duration
}

func (c *common) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.sel.Bucket, "bucket", "", "bucket of the object version (required)")
	f.StringVar(&c.sel.Object, "object", "", "object key (required)")
	f.StringVar(&c.sel.VersionID, "version-id", "", `exact local version id (required); "null" selects an unversioned object`)
	f.StringArrayVar(&c.filers, "filer", nil, "embedded filer directory holding one set's copy of the version (repeat once per pool/set; default "+cmdutil.DefaultFilerPath+")")
	f.StringVar(&c.tiers, "tiers", "", "tiers file (JSON): each tier's type, endpoint, bucket, prefix, region and credential environment variables (required)")
	f.DurationVar(&c.timeout, "timeout", 30*time.Second, "bound on the live tier probe")
}

// input validates the flags and opens the sets; release closes them.
func (c *common) input(cmd *cobra.Command, readOnly bool) (core.Input, func(), error) {
	none := func() {}
	for _, name := range []string{"bucket", "object", "version-id"} {
		if !cmd.Flags().Changed(name) {
			return core.Input{}, none, cmdutil.SeeHelp(cmd.CommandPath(), "--%s is required: reconcile works on one exact object version", name)
		}
	}
	if err := c.sel.Check(); err != nil {
		return core.Input{}, none, cmdutil.Usage("selector: %v", err)
	}
	if c.tiers == "" {
		return core.Input{}, none, cmdutil.Usage("--tiers is required: name the file that describes the version's tier")
	}
	if c.timeout <= 0 {
		return core.Input{}, none, cmdutil.Usage("--timeout %s: use a positive duration, e.g. 30s", c.timeout)
	}
	tf, err := os.Open(c.tiers)
	if err != nil {
		return core.Input{}, none, cmdutil.Usage("--tiers: %v", err)
	}
	tiers, err := core.ParseTiers(tf)
	_ = tf.Close()
	if err != nil {
		return core.Input{}, none, cmdutil.Usage("--tiers %s: %v", c.tiers, err)
	}
	filers := c.filers
	if len(filers) == 0 {
		filers = []string{cmdutil.DefaultFilerPath}
	}
	sets, release, err := openSets(filers, readOnly)
	if err != nil {
		return core.Input{}, none, err
	}
	return core.Input{Selector: c.sel, Sets: sets, Tiers: tiers, Env: lookupEnv, Prober: timed{prober, c.timeout}}, release, nil
}

// timed bounds each probe by the --timeout.
type timed struct {
	p core.Prober
	d time.Duration
}

func (t timed) Probe(ctx context.Context, tr core.Tier, key string) (core.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	return t.p.Probe(ctx, tr, key)
}

func newGet() *cobra.Command {
	var c common
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Inspect one version and print the reconcile plan (changes nothing)",
		Long: `get reads the version from every --filer, validates its transition keys
under both prefixes, probes the tier and prints the outcome:
ready-to-migrate (with the proven target), migrated (every set already
holds the same explicit state and destination), retained-ambiguous,
corrupt or backend-unavailable, with the reason.

-o json prints the plan 'reconcile post --plan' takes: selector, source,
sets (each set's original keys and generation), target, probe and digest.`,
		Example: `  ilmctl reconcile get --bucket photos --object 2024/a.jpg \
      --version-id null --filer ./ilmctl-data --tiers tiers.json
  ilmctl reconcile get --bucket photos --object 2024/a.jpg \
      --version-id 3f1c... --tiers tiers.json -o json > plan.json`,
		Args: cmdutil.NoArgs,
	}
	c.flags(cmd)
	output := cmdutil.AddOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		in, release, err := c.input(cmd, true)
		if err != nil {
			return err
		}
		defer release()
		rep, err := core.Get(cmd.Context(), in)
		if err != nil {
			return failure(err)
		}
		if err := render.Reconcile(cmd.OutOrStdout(), format, rep, cmdutil.Width(cmd.OutOrStdout())); err != nil {
			return err
		}
		return outcomeError(rep)
	}
	return cmd
}

func newPost() *cobra.Command {
	var c common
	var planFile string
	var confirm bool
	cmd := &cobra.Command{
		Use:   "post",
		Short: "Migrate the version a plan from 'reconcile get -o json' describes",
		Long: `post rereads every set, requires the source tuple to match the plan and
every set to hold either its original keys or the proven target, probes
the tier again and derives the target itself (the plan's target is never
trusted), then writes each set that is still missing the state under
both prefixes, conditionally on the generation it just read, and rereads.

It prints exactly one outcome (migrated, retained-ambiguous, corrupt,
backend-unavailable) and bytes_changed. A retry after backend-unavailable
fills only the sets still missing the state.`,
		Example: `  ilmctl reconcile post --bucket photos --object 2024/a.jpg \
      --version-id 3f1c... --filer ./pool0 --filer ./pool1 \
      --tiers tiers.json --plan plan.json --confirm`,
		Args: cmdutil.NoArgs,
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&planFile, "plan", "", "plan from 'reconcile get -o json' (required; - reads stdin)")
	cmd.Flags().BoolVar(&confirm, "confirm", false, "required: confirm the metadata write")
	output := cmdutil.AddOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		if planFile == "" {
			return cmdutil.Usage("--plan is required: save 'ilmctl reconcile get ... -o json' to a file and pass it")
		}
		if !confirm {
			return cmdutil.Usage("--confirm is required: post writes metadata")
		}
		plan, err := readPlan(cmd.InOrStdin(), planFile)
		if err != nil {
			return err
		}
		in, release, err := c.input(cmd, false)
		if err != nil {
			return err
		}
		defer release()
		rep, err := core.Post(cmd.Context(), in, plan)
		if err != nil {
			return failure(err)
		}
		if err := render.Reconcile(cmd.OutOrStdout(), format, rep, cmdutil.Width(cmd.OutOrStdout())); err != nil {
			return err
		}
		return outcomeError(rep)
	}
	return cmd
}

// readPlan strictly decodes a plan; a bad one is a usage error.
func readPlan(stdin io.Reader, path string) (*core.Report, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, cmdutil.Usage("--plan: %v", err)
		}
		defer f.Close()
		r = f
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var plan core.Report
	if err := dec.Decode(&plan); err != nil {
		return nil, cmdutil.Usage("--plan %s is not a plan from 'reconcile get -o json': %v", path, err)
	}
	return &plan, nil
}

// failure maps core's non-outcome errors to exit codes.
func failure(err error) error {
	switch {
	case errors.Is(err, core.ErrPlan):
		return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err}
	case errors.Is(err, core.ErrVersionNotFound):
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%w; check --version-id and --filer", err)}
	case errors.Is(err, core.ErrNotTransitioned):
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: err}
	}
	return err
}

// outcomeError is nil for migrated and ready-to-migrate and carries the
// outcome's exit code otherwise (docs/design/reconcile.md#exit-codes).
func outcomeError(rep *core.Report) error {
	code := cmdutil.ExitOK
	switch rep.Outcome {
	case core.RetainedAmbiguous:
		code = cmdutil.ExitRetainedAmbiguous
	case core.Corrupt:
		code = cmdutil.ExitCorrupt
	case core.BackendUnavailable:
		code = cmdutil.ExitBackendUnavailable
	}
	if code == cmdutil.ExitOK {
		return nil
	}
	return &cmdutil.ExitError{Code: code, Err: fmt.Errorf("%s: %s", rep.Outcome, rep.Reason)}
}
