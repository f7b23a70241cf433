// Package journal is `ilmctl journal`: read-only listing and inspection of
// RustFS durable ILM records across metadata pools.
package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/client"
	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	corejournal "github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
)

// now is the clock when --now is not given.
var now = time.Now

// NewCommand returns `ilmctl journal`.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "journal",
		Short: "Read and classify RustFS durable ILM records (read-only)",
		Long: `journal reads the durable ILM records a RustFS cluster keeps in its internal
metadata bucket (tier-delete journals v1-v6, dispatch manifests and chunk
parents, transition transactions, manual transition jobs) from one or more
metadata pools, decodes each strictly, and says what it is, who owns it and
what RustFS recovery would do with it.

Each record gets a classification (active, recoverable, terminal,
retained_ambiguous, operator_required, corrupt, needs_source_proof) and a
decision naming the design's recovery row (quarantine_retain, abort_record,
commit_then_delete_remote, delete_remote_idempotent, delete_record, ...);
docs/journal.md lists both vocabularies. Nothing is written or deleted.

Pass one --meta per pool: a directory (dir:PATH or a plain path) or an S3
bucket (s3://host:port/bucket[/prefix], credentials from the AWS default
chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE).

v5/v6 journals and local_commit_started/cleanup_pending transactions need
to know whether their source object version still exists. --filer names
the cluster's object namespace and ilmctl looks each source up there (one
read per record). A filer shows object versions but not xl.meta
free-versions or transition tuples, so some records stay needs_source_proof
even with --filer; docs/journal.md has the table.

Classification depends on the clock (lease and owner-window expiry); --now
pins it so a run is reproducible.`,
		Example: `  ilmctl journal ls --meta testdata/ilm/pool-a --meta testdata/ilm/pool-b \
      --now 2025-06-15T15:06:40Z
  ilmctl journal ls --meta testdata/ilm/pool-a -o json \
      --protocol tier_delete_journal
  ilmctl journal ls --meta dir:/srv/meta0 --filer ./ilmctl-data \
      --classification needs_source_proof`,
	}
	cmd.AddCommand(newLs(), newShow())
	return cmdutil.Group(cmd)
}

type common struct {
	metas []string
	filer string
	now   string
}

func (c *common) flags(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&c.metas, "meta", nil, "metadata pool: dir:PATH, PATH, or s3://host:port/bucket[/prefix] (repeat once per pool)")
	cmd.Flags().StringVar(&c.filer, "filer", "", "filer holding the cluster's objects (a directory with an embedded filer, seaweedfs://host:port or s3://host:port);\nused to prove the source of v5/v6 journals and transactions present or absent.\nWithout it those records are needs_source_proof")
	cmd.Flags().StringVar(&c.now, "now", "", "classify as of this RFC3339 time (default: the current time), e.g. 2025-06-15T00:00:00Z;\ndecides lease and owner-window expiry and record ages")
}

// scanInput is what a scan needs; release closes the filer.
type scanInput struct {
	pools   []metastore.Store
	opt     corejournal.Options
	release func()
}

// open validates the flags and opens the pools and, with --filer, the
// filer. Every error is one line naming the flag, the bad value and what
// to do.
func (c *common) open(ctx context.Context) (*scanInput, error) {
	if len(c.metas) == 0 {
		return nil, hint.With(cmdutil.Usage("no metadata pool given"), "pass --meta PATH, once per pool")
	}
	clock := now
	if c.now != "" {
		t, err := time.Parse(time.RFC3339, c.now)
		if err != nil {
			return nil, hint.With(cmdutil.Usage("--now %q is not RFC3339", c.now), "for example --now 2025-06-15T00:00:00Z")
		}
		clock = func() time.Time { return t }
	}
	if c.filer != "" {
		if err := client.CheckSpec(c.filer); err != nil {
			return nil, &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err}
		}
	}
	// One pool given twice would count its records' copies twice.
	if err := cmdutil.DistinctPools(cmdutil.PoolFlag{Flag: "--meta", Noun: "pool"}, c.metas); err != nil {
		return nil, err
	}
	in := &scanInput{opt: corejournal.Options{Clock: clock, Artifacts: recovery.DescribeArtifact}, release: func() {}}
	for _, m := range c.metas {
		s, err := clientmeta.Open(ctx, m)
		if err != nil {
			return nil, cmdutil.Usage("--meta %q: %v", m, err)
		}
		in.pools = append(in.pools, s)
	}
	if c.filer != "" {
		f, err := client.Open(ctx, c.filer, client.Options{ReadOnly: true})
		if err != nil {
			return nil, fmt.Errorf("--filer %q: %w (or omit --filer: affected records then show needs_source_proof)", c.filer, err)
		}
		in.opt.Sources = corejournal.FilerSources{Filer: f}
		in.release = func() { _ = f.Close() }
	}
	return in, nil
}

func newLs() *cobra.Command {
	var c common
	var protocol, class string
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List and classify every durable ILM record in the given pools",
		Long: `ls scans every pool under ilm/ and decommission/ (decommission receipts
and expected-receipt manifests, classified as 'ilmctl decom verify' reads
them), decodes each record and prints its classification, decision, age
and ID (a short digest of its path, as git shortens hashes, that 'journal
show' takes), then a summary by protocol and classification. -o wide adds
the protocol, schema/version, state, owner and the full path. Copies of
one key in several pools are one row; copies that differ are
operator_required. If any pool could not be listed completely (including a
page marked truncated without a continuation token), counts are labelled
incomplete and the command exits 3.

With --filer, each v5/v6 journal and local_commit_started/cleanup_pending
transaction is looked up in the filer and its source_evidence (present,
source_absent or uncertain) is reported in -o json. Without --filer those
records are needs_source_proof. A lookup error is never taken as absence.

--now sets the time records are classified at (default: now); it decides
whether leases and owner windows have expired, and the AGE column.`,
		Example: `  ilmctl journal ls --meta testdata/ilm/pool-a --meta testdata/ilm/pool-b \
      --now 2025-06-15T15:06:40Z
  ilmctl journal ls --meta dir:/srv/meta0 --meta s3://10.0.0.5:9000/meta \
      --classification corrupt -o json
  ilmctl journal ls --meta testdata/ilm/pool-a --filer ./ilmctl-data \
      --protocol tier_delete_journal`,
		Args: cmdutil.NoArgs,
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&protocol, "protocol", "", "only this protocol: tier_delete_journal, tier_delete_manifest, transition_transaction, manual_transition, decommission, other")
	cmd.Flags().StringVar(&class, "classification", "", "only this classification (see docs/journal.md)")
	output := cmdutil.AddOutputFlag(cmd, render.FormatTable, render.FormatWide, render.FormatJSON)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		if protocol != "" && !validProtocol(protocol) {
			return cmdutil.Usage("--protocol %q: use one of %s", protocol, joinProtocols())
		}
		if class != "" && !validClass(class) {
			return cmdutil.Usage("--classification %q: use one of %s", class, joinClasses())
		}
		in, err := c.open(cmd.Context())
		if err != nil {
			return err
		}
		defer in.release()
		rep, err := corejournal.Scan(cmd.Context(), in.pools, in.opt)
		if err != nil {
			return err
		}
		var rows []corejournal.Record
		for _, r := range rep.Records {
			if (protocol == "" || string(r.Protocol) == protocol) && (class == "" || string(r.Classification) == class) {
				rows = append(rows, r)
			}
		}
		if err := render.JournalLs(cmd.OutOrStdout(), format, rep, rows, shortIDs(rep.Records)); err != nil {
			return err
		}
		if len(rep.Records) == 0 && !rep.Incomplete {
			// An empty scan is more often a --meta path one level off than a
			// clean cluster; say so rather than print a quiet (none).
			fmt.Fprintf(cmd.ErrOrStderr(), "ilmctl: warning: no durable ILM records in %s; each --meta must name a metadata bucket root (the directory or prefix that holds ilm/)\n", strings.Join(c.metas, ", "))
		}
		if rep.Incomplete {
			return cmdutil.Incomplete(fmt.Errorf("scan incomplete: %d pool(s) could not be read completely; counts are incomplete", len(rep.PoolErrors)))
		}
		return nil
	}
	return cmd
}

func validProtocol(p string) bool {
	for _, q := range corejournal.Protocols {
		if string(q) == p {
			return true
		}
	}
	return false
}

func joinProtocols() string {
	var s []string
	for _, p := range corejournal.Protocols {
		s = append(s, string(p))
	}
	return strings.Join(s, ", ")
}

func validClass(c string) bool {
	for _, q := range corejournal.Classifications {
		if string(q) == c {
			return true
		}
	}
	return false
}

func joinClasses() string {
	var s []string
	for _, c := range corejournal.Classifications {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}

func newShow() *cobra.Command {
	var c common
	var raw bool
	cmd := &cobra.Command{
		Use:   "show PATH|ID",
		Short: "Decode and classify one durable ILM record",
		Long: `show prints one record, decoded, with its classification, decision and the
copies each pool holds. Bucket, object, tier and remote version are shown as
short SHA-256 digests unless --raw is given, so output can be shared without
revealing names. PATH is the key inside the metadata bucket, as
'ilmctl journal ls -o wide' prints it, e.g.
ilm/tier-delete-journal/<digest>.json; ID is the record's ID as
'ilmctl journal ls' prints it, or any unambiguous prefix of at least 4
characters.

The record is classified in the context of a full scan of every --meta pool
(membership and binding checks need the other records); --filer and --now
work as for 'journal ls'.`,
		Example: `  ilmctl journal show --meta testdata/ilm/pool-a --meta testdata/ilm/pool-b \
      ilm/manual-transition/jobs/f0/00/f0000000000040008000000000000001.json
  ilmctl journal show c72e12fbe5cd --meta testdata/ilm/pool-a \
      --meta testdata/ilm/pool-b   # the same record by ID
  ilmctl journal show 244eebc90583 --meta testdata/ilm/pool-a \
      --meta testdata/ilm/pool-b   # a tier-delete journal record
  ilmctl journal show d816a92a28f8 --meta testdata/ilm/pool-a \
      --now 2025-06-15T15:06:40Z --raw -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Usage("journal show needs exactly one PATH or ID, e.g. ilm/tier-delete-journal/<digest>.json or an ID from 'journal ls'")
			}
			return nil
		},
	}
	c.flags(cmd)
	cmd.Flags().BoolVar(&raw, "raw", false, "print bucket, object, tier and remote version in clear")
	output := cmdutil.AddOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		in, err := c.open(cmd.Context())
		if err != nil {
			return err
		}
		defer in.release()
		rec, rep, err := findRecord(cmd.Context(), in.pools, args[0], in.opt)
		if errors.Is(err, metastore.ErrNotFound) {
			return fmt.Errorf("%v: check the key with 'ilmctl journal ls'", err)
		}
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		return render.JournalShow(out, format, rec, rep, shortIDs(rep.Records)[rec.Path], raw, cmdutil.Width(out))
	}
	return cmd
}
