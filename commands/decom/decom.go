// Package decom is `ilmctl decom`: read-only checks of a RustFS pool
// decommission's durable ILM receipts (docs/design/decommission.md).
package decom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	coredecom "github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
)

const metaHelp = "metadata pool: dir:PATH, PATH, or s3://host:port/bucket[/prefix]"

// NewCommand returns `ilmctl decom`.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "decom",
		Short: "Check a RustFS pool decommission's ILM receipts (read-only)",
		Long: `decom reads what a RustFS pool decommission leaves in the internal metadata
bucket for its durable ILM records: one receipt per record under
decommission/ilm-receipts/<run-token>/ on the target pools, and the
expected-receipt manifest decommission/ilm-manifests/<run-token>.json on the
source pool. 'decom verify' says whether the source pool may be removed;
'decom receipts ls' lists a run's receipts; 'decom run-token' computes the
token that names a run. Nothing is written or deleted.

docs/design/decommission.md describes the receipts, the checks and every
reason code.`,
		Example: `  ilmctl decom run-token --cmd-line 'http://node{1...4}:9000/data{1...4}' \
      --start-unix-nanos 1750000000123456789
  TOKEN=ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661
  ilmctl decom receipts ls --run-token "$TOKEN" \
      --meta testdata/decom/complete/target-a
  ilmctl decom verify --run-token "$TOKEN" \
      --meta testdata/decom/complete/source \
      --meta testdata/decom/complete/target-a \
      --meta testdata/decom/complete/target-b`,
	}
	cmd.AddCommand(newVerify(), newReceipts(), newRunToken())
	return cmdutil.Group(cmd)
}

func openPools(ctx context.Context, metas []string) ([]metastore.Reader, error) {
	var out []metastore.Reader
	for _, m := range metas {
		s, err := clientmeta.Open(ctx, m)
		if err != nil {
			return nil, cmdutil.Usage("--meta %q: %v", m, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func checkToken(tok string) error {
	if tok == "" {
		return hint.With(cmdutil.Usage("--run-token is required"), "'ilmctl decom run-token --help' says how to compute it")
	}
	if !coredecom.ValidRunToken(tok) {
		return cmdutil.Usage("--run-token %q is not 64 lowercase hex digits: compute it with 'ilmctl decom run-token'", tok)
	}
	return nil
}

// verifyPools reads verify's --meta list: a target that is the source
// pool under another spelling would let the source's own receipts and
// records stand for a copy no target holds; two spellings of one target
// are refused too rather than counted once, so no list is silently read
// as another (docs/design/decommission.md#pool-identity).
var verifyPools = cmdutil.PoolFlag{Flag: "--meta", Noun: "target pool", First: "source pool", FirstRule: "a pool cannot be its own target"}

type verifyOptions struct {
	token string
	metas []string
}

func newVerify() *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Say whether the source pool of a decommission run may be removed",
		Long: `verify checks one decommission run. The first --meta is the source pool (the
one being decommissioned), every further --meta a target pool. It checks:

  - the expected-receipt manifest on the source: schema v1, this run token,
    and a receipt count and receipt_paths_sha256 equal to the receipts the
    source lists for the run;
  - every receipt on every target: it decodes (schema v2, checksum, key),
    it is expected, its identity is the expected one, its checkpoint and
    terminal checkpoint equal or legally follow the expected ones, and each
    target copy of its record equals or legally follows it (only a terminal
    receipt may stand for a copy that is gone; a terminal receipt never
    covers a copy that is not terminal);
  - every expected receipt is on some target;
  - every key under ilm/ on the source is a registered, decodable record
    covered by a receipt whose checkpoint equals or follows the record's;
    ilmctl's own recovery artifacts (ilm/recovery-*) are decoded by
    'ilmctl recovery': live work blocks (recovery_control_live,
    recovery_disposition_in_flight), finished history is covered by a
    byte-identical copy on a target.

It prints one row per receipt and per uncovered source record, with a
verdict (covered, covered_terminal, blocked) and a reason code, then the
completion predicate. Exit codes: 0 the pool may be removed; 5 blocked (the
reasons are printed); 1 could not check (a pool could not be read); 2 bad
usage, among it a target that is the source pool, or another target, under
another spelling (dir:SRC, ./SRC/, a link to it; see
docs/design/decommission.md#pool-identity). Nothing is written.`,
		Example: `  TOKEN=ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661
  ilmctl decom verify --run-token "$TOKEN" \
      --meta testdata/decom/complete/source \
      --meta testdata/decom/complete/target-a \
      --meta testdata/decom/complete/target-b
  ilmctl decom verify --run-token "$TOKEN" -o json \
      --meta s3://10.0.0.5:9000/.rustfs.sys \
      --meta s3://10.0.0.6:9000/.rustfs.sys`,
		Args: cmdutil.NoArgs,
	}
	cmd.Flags().StringVar(&o.token, "run-token", "", "the run's token, 64 hex digits (see 'ilmctl decom run-token')")
	cmd.Flags().StringArrayVar(&o.metas, "meta", nil, metaHelp+";\nthe first is the source pool, the others its targets")
	output := cmdutil.AddOutputFlag(cmd, render.FormatTable, render.FormatWide, render.FormatJSON)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		return runVerify(cmd.Context(), cmd.OutOrStdout(), o, format, cmdutil.Width(cmd.OutOrStdout()))
	}
	return cmd
}

func runVerify(ctx context.Context, w io.Writer, o verifyOptions, format render.Format, width int) error {
	if err := checkToken(o.token); err != nil {
		return err
	}
	if len(o.metas) < 2 {
		return cmdutil.Usage("verify needs the source pool and at least one target: pass --meta SOURCE --meta TARGET")
	}
	if err := cmdutil.DistinctPools(verifyPools, o.metas); err != nil {
		return err
	}
	pools, err := openPools(ctx, o.metas)
	if err != nil {
		return err
	}
	rep, err := coredecom.VerifyWith(ctx, o.token, pools[0], pools[1:], coredecom.VerifyOptions{Artifacts: recovery.DecomArtifact})
	if errors.Is(err, coredecom.ErrBadInput) {
		return cmdutil.Usage("%v", err)
	}
	if err != nil {
		return err
	}
	if err := render.DecomVerify(w, format, rep, width); err != nil {
		return err
	}
	p := rep.Predicate
	switch {
	case len(p.ReadErrors) > 0:
		return fmt.Errorf("could not check: %d read error(s), first: %s", len(p.ReadErrors), p.ReadErrors[0])
	case !p.Removable:
		return cmdutil.Blocked(fmt.Errorf("source pool %s may not be removed: %s", rep.Source, render.DecomBlocking(p.Blocking)))
	}
	return nil
}

type receiptsOptions struct {
	token string
	metas []string
}

func newReceipts() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "receipts",
		Short: "List a decommission run's receipts",
	}
	var o receiptsOptions
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List and classify a run's receipts and expected-receipt manifest",
		Long: `ls lists, in every --meta pool, the receipts under
decommission/ilm-receipts/<run-token>/ and the manifest
decommission/ilm-manifests/<run-token>.json, each decoded on its own: status
valid, terminal (a receipt with a terminal checkpoint), corrupt or
unknown_schema, with the record it covers. It does not compare receipts with
each other or with records; 'decom verify' does. Exit 1 when a pool could
not be read.`,
		Example: `  TOKEN=ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661
  ilmctl decom receipts ls --run-token "$TOKEN" \
      --meta testdata/decom/complete/source \
      --meta testdata/decom/complete/target-a
  ilmctl decom receipts ls --run-token "$TOKEN" -o wide \
      --meta s3://10.0.0.6:9000/.rustfs.sys`,
		Args: cmdutil.NoArgs,
	}
	ls.Flags().StringVar(&o.token, "run-token", "", "the run's token, 64 hex digits (see 'ilmctl decom run-token')")
	ls.Flags().StringArrayVar(&o.metas, "meta", nil, metaHelp+" (repeat once per pool)")
	output := cmdutil.AddOutputFlag(ls, render.FormatTable, render.FormatWide, render.FormatJSON)
	ls.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		return runReceiptsLs(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o, format, cmdutil.Width(cmd.OutOrStdout()))
	}
	cmd.AddCommand(ls)
	return cmdutil.Group(cmd)
}

func runReceiptsLs(ctx context.Context, w, errw io.Writer, o receiptsOptions, format render.Format, width int) error {
	if err := checkToken(o.token); err != nil {
		return err
	}
	if len(o.metas) == 0 {
		return hint.With(cmdutil.Usage("no metadata pool given"), "pass --meta PATH, once per pool")
	}
	if err := cmdutil.DistinctPools(cmdutil.PoolFlag{Flag: "--meta", Noun: "pool"}, o.metas); err != nil {
		return err
	}
	pools, err := openPools(ctx, o.metas)
	if err != nil {
		return err
	}
	var entries []render.DecomEntry
	var readErrs []string
	for _, p := range pools {
		mk := coredecom.ManifestKey(o.token)
		if data, _, err := p.Get(ctx, mk); err == nil {
			entries = append(entries, render.NewDecomEntry(p.Name(), coredecom.ClassifyManifest(mk, data)))
		} else if !errors.Is(err, metastore.ErrNotFound) {
			readErrs = append(readErrs, err.Error())
		}
		err := metastore.ListAll(ctx, p, coredecom.ReceiptPrefix(o.token), 1000, func(objs []metastore.Object) error {
			for _, obj := range objs {
				data, _, err := p.Get(ctx, obj.Key)
				if err != nil {
					readErrs = append(readErrs, err.Error())
					continue
				}
				entries = append(entries, render.NewDecomEntry(p.Name(), coredecom.ClassifyReceipt(obj.Key, data)))
			}
			return nil
		})
		if err != nil {
			readErrs = append(readErrs, err.Error())
		}
	}
	if err := render.DecomReceipts(w, format, o.token, entries, readErrs, width); err != nil {
		return err
	}
	if len(readErrs) > 0 {
		return fmt.Errorf("%d read error(s), first: %s", len(readErrs), readErrs[0])
	}
	if len(entries) == 0 {
		fmt.Fprintf(errw, "ilmctl: warning: no receipts or manifest for run %s in %s; check the token ('ilmctl decom run-token') and that each --meta names a metadata bucket root\n",
			o.token[:render.ShortIDLen], strings.Join(o.metas, ", "))
	}
	return nil
}

func newRunToken() *cobra.Command {
	var cmdLine string
	var start int64
	cmd := &cobra.Command{
		Use:   "run-token",
		Short: "Compute the token that names a decommission run",
		Long: `run-token prints the token RustFS names a decommission run by: the lowercase
hex SHA-256 of the pool's command line, a NUL byte, and the decommission
start time in decimal Unix nanoseconds. Both come from the pool's
decommission status (the pool's cmdline and its decommission startTime).
A resumed run keeps both, so it keeps its token and finds its receipts.`,
		Example: `  ilmctl decom run-token --cmd-line 'http://node{1...4}:9000/data{1...4}' \
      --start-unix-nanos 1750000000123456789
  ilmctl decom run-token --cmd-line "$CMDLINE" -o json \
      --start-unix-nanos "$(date -d 2025-06-15T15:06:40.123456789Z +%s%N)"`,
		Args: cmdutil.NoArgs,
	}
	cmd.Flags().StringVar(&cmdLine, "cmd-line", "", "the pool's command line, exactly as RustFS records it")
	cmd.Flags().Int64Var(&start, "start-unix-nanos", 0, "the decommission start time, Unix nanoseconds")
	output := cmdutil.AddOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		if !cmd.Flags().Changed("cmd-line") || !cmd.Flags().Changed("start-unix-nanos") {
			return cmdutil.SeeHelp(cmd.CommandPath(), "run-token needs --cmd-line and --start-unix-nanos")
		}
		tok := coredecom.RunToken(cmdLine, start)
		return render.DecomRunToken(cmd.OutOrStdout(), format, tok, cmdLine, start)
	}
	return cmd
}
