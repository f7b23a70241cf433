// Package journal is `ilmctl journal`: read-only listing and inspection of
// RustFS durable ILM records across metadata pools.
package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ilmctl/ilmctl/client"
	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/envelope"
	corejournal "github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
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
		return nil, cmdutil.Usage("no metadata pool given: pass --meta PATH (once per pool)")
	}
	clock := now
	if c.now != "" {
		t, err := time.Parse(time.RFC3339, c.now)
		if err != nil {
			return nil, cmdutil.Usage("--now %q is not RFC3339: use e.g. 2025-06-15T00:00:00Z", c.now)
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
them), decodes each record and prints its
protocol, classification, decision, age and ID (a short digest of its path,
as git shortens hashes, that 'journal show' takes), then a summary by
protocol and classification. -o wide adds schema/version, state, owner and
the full path. Copies of one key in several
pools are one row; copies that differ are operator_required. If any pool
could not be listed completely (including a page marked truncated without a
continuation token), counts are labelled incomplete and the command exits 3.

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
		if err := renderLs(cmd.OutOrStdout(), format, rep, rows); err != nil {
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

type summaryRow struct {
	Protocol       string `json:"protocol"`
	Classification string `json:"classification"`
	Count          int    `json:"count"`
}

func summarize(rep *corejournal.Report, rows []corejournal.Record) []summaryRow {
	counts := map[[2]string]int{}
	for _, r := range rows {
		counts[[2]string{string(r.Protocol), string(r.Classification)}]++
	}
	var out []summaryRow
	for k, n := range counts {
		out = append(out, summaryRow{k[0], k[1], n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Protocol != out[j].Protocol {
			return out[i].Protocol < out[j].Protocol
		}
		return out[i].Classification < out[j].Classification
	})
	return out
}

func age(r corejournal.Record) string {
	if r.AgeSeconds == nil {
		return "-"
	}
	return render.Duration(time.Duration(*r.AgeSeconds) * time.Second)
}

// renderLs prints the listing. The table leads with what decides what to
// do (classification, decision), then age, and names each record by its
// short ID, which 'journal show' takes, in 80 columns; the summary under
// it counts by protocol. -o wide adds protocol, schema, state, owner and
// the full path.
func renderLs(w io.Writer, f render.Format, rep *corejournal.Report, rows []corejournal.Record) error {
	sum := summarize(rep, rows)
	if f == render.FormatJSON {
		if rows == nil {
			rows = []corejournal.Record{}
		}
		return render.JSON(w, map[string]any{
			"records": rows, "summary": sum, "incomplete": rep.Incomplete, "pool_errors": rep.PoolErrors,
		})
	}
	wide := f == render.FormatWide
	ids := shortIDs(rep.Records)
	header := []string{"CLASSIFICATION", "DECISION"}
	if wide {
		header = []string{"PROTOCOL", "CLASSIFICATION", "DECISION", "SCHEMA", "STATE", "OWNER"}
	}
	header = append(header, "AGE", "ID")
	if wide {
		header = append(header, "PATH")
	}
	var tr [][]string
	for _, r := range rows {
		row := []string{string(r.Classification), string(r.Decision)}
		if wide {
			row = []string{string(r.Protocol), string(r.Classification), string(r.Decision), r.Schema, r.State, r.Owner}
		}
		row = append(row, age(r), ids[r.Path])
		if wide {
			row = append(row, r.Path)
		}
		tr = append(tr, row)
	}
	if err := render.Table(w, "Records", header, tr); err != nil {
		return err
	}
	title := "\nSummary"
	if rep.Incomplete {
		title = "\nSummary (incomplete: counts do not cover every pool)"
	}
	var sr [][]string
	for _, s := range sum {
		n := strconv.Itoa(s.Count)
		if rep.Incomplete {
			n += " (incomplete)"
		}
		sr = append(sr, []string{s.Protocol, s.Classification, n})
	}
	if err := render.Table(w, title, []string{"PROTOCOL", "CLASSIFICATION", "COUNT"}, sr); err != nil {
		return err
	}
	for _, pe := range rep.PoolErrors {
		if _, err := fmt.Fprintf(w, "pool %s: %s\n", pe.Pool, pe.Error); err != nil {
			return err
		}
	}
	return nil
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
		fields := showFields(rec, raw)
		if format == render.FormatJSON {
			return render.JSON(cmd.OutOrStdout(), map[string]any{"record": rec, "fields": fields, "incomplete": rep.Incomplete})
		}
		rows := [][]string{
			{"path", rec.Path}, {"id", shortIDs(rep.Records)[rec.Path]}, {"protocol", string(rec.Protocol)}, {"schema", rec.Schema}, {"state", rec.State},
			{"owner", rec.Owner}, {"age", age(*rec)}, {"classification", string(rec.Classification)},
			{"decision", string(rec.Decision)}, {"reason", rec.Reason},
		}
		if rec.DecidedBy != "" {
			rows = append(rows, []string{"decided_by", rec.DecidedBy})
		}
		if rec.KeyFormat != "" {
			rows = append(rows, []string{"scope_key_format", rec.KeyFormat})
		}
		for _, f := range fields {
			rows = append(rows, []string{f[0], f[1]})
		}
		for _, cp := range rec.Copies {
			rows = append(rows, []string{"copy", cp.Pool + " etag=" + cp.ETag})
		}
		if rep.Incomplete {
			rows = append(rows, []string{"scan", "incomplete"})
		}
		return render.Fields(cmd.OutOrStdout(), "Record", [2]string{"FIELD", "VALUE"}, rows, cmdutil.Width(cmd.OutOrStdout()))
	}
	return cmd
}

// redact shows a sensitive value as a short digest unless raw.
func redact(v string, raw bool) string {
	if raw {
		return v
	}
	return "sha256:" + envelope.SHA256Hex([]byte(v))[:16]
}

func showFields(r *corejournal.Record, raw bool) [][2]string {
	var f [][2]string
	switch d := r.Decoded.(type) {
	case *tierdelete.Journal:
		f = append(f, [2]string{"tier", redact(d.TierName, raw)}, [2]string{"remote_object", redact(d.ObjName, raw)},
			[2]string{"remote_version", redact(d.VersionID, raw)}, [2]string{"version_state", string(d.EffectiveVersionState())})
		if d.Source != nil {
			f = append(f, [2]string{"bucket", redact(d.Source.Bucket, raw)}, [2]string{"object", redact(d.Source.Object, raw)})
		}
		if d.Dispatch != nil {
			f = append(f, [2]string{"manifest", d.Dispatch.ManifestObject}, [2]string{"topology_generation", d.Dispatch.TopologyGeneration})
		}
	case *tierdelete.Manifest:
		f = append(f, [2]string{"bucket", redact(d.Bucket, raw)}, [2]string{"prefix", redact(d.Prefix, raw)},
			[2]string{"journal_count", strconv.FormatUint(d.JournalCount, 10)}, [2]string{"journal_set_sha256", d.JournalSetSHA256})
	case *tierdelete.Parent:
		f = append(f, [2]string{"bucket", redact(d.Bucket, raw)}, [2]string{"prefix", redact(d.Prefix, raw)},
			[2]string{"next_chunk_sequence", strconv.FormatUint(d.NextChunkSequence, 10)},
			[2]string{"completed_journal_count", strconv.FormatUint(d.CompletedJournalCount, 10)})
		if d.ActiveChunk != nil {
			f = append(f, [2]string{"active_chunk", d.ActiveChunk.ManifestObject})
		}
	case *decom.Classified:
		if d.Manifest != nil {
			f = append(f, [2]string{"run_token", d.Manifest.RunToken}, [2]string{"receipt_count", strconv.FormatUint(d.Manifest.ReceiptCount, 10)},
				[2]string{"receipt_paths_sha256", d.Manifest.ReceiptPathsSHA256})
		}
		if d.Receipt != nil && d.Locator != nil {
			f = append(f, [2]string{"run_token", d.Locator.RunToken}, [2]string{"source_path", d.Receipt.SourcePath},
				[2]string{"id_kind", d.Receipt.IDKind}, [2]string{"id", d.Receipt.ID}, [2]string{"terminal", strconv.FormatBool(d.Receipt.Terminal())})
		}
	case *transition.Transaction:
		rv := ""
		if d.RemoteVersion.VersionID != nil {
			rv = *d.RemoteVersion.VersionID
		}
		f = append(f, [2]string{"bucket", redact(d.Source.Bucket, raw)}, [2]string{"object", redact(d.Source.Object, raw)},
			[2]string{"tier", redact(d.TierName, raw)}, [2]string{"remote_version_kind", string(d.RemoteVersion.Kind)},
			[2]string{"remote_version", redact(rv, raw)},
			[2]string{"not_after", time.Unix(0, d.NotAfterUnixNanos).UTC().Format(time.RFC3339)})
	}
	return f
}
