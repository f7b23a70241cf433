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

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/envelope"
	corejournal "github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
	"github.com/ilmctl/ilmctl/render"
)

// now is the clock; tests replace it.
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
bucket (s3://host:port/bucket[/prefix], credentials from AWS_ACCESS_KEY_ID
and AWS_SECRET_ACCESS_KEY).`,
		Example: `  ilmctl journal ls --meta testdata/ilm/pool-a --meta testdata/ilm/pool-b
  ilmctl journal ls --meta testdata/ilm/pool-a --protocol tier_delete_journal -o json`,
	}
	cmd.AddCommand(newLs(), newShow())
	return cmd
}

type common struct {
	metas []string
	filer string
}

func (c *common) flags(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&c.metas, "meta", nil, "metadata pool: dir:PATH, PATH, or s3://host:port/bucket[/prefix] (repeat once per pool)")
	cmd.Flags().StringVar(&c.filer, "filer", "", "filer used for all-pool source/free-version proof of v5/v6 journals and transactions")
}

func (c *common) open(ctx context.Context) ([]metastore.Store, error) {
	if len(c.metas) == 0 {
		return nil, cmdutil.Usage("no metadata pool given: pass --meta PATH (once per pool)")
	}
	if c.filer != "" {
		return nil, cmdutil.Usage("--filer %q: source proof against a filer is not supported yet; omit --filer and affected records show needs_source_proof", c.filer)
	}
	var pools []metastore.Store
	for _, m := range c.metas {
		s, err := clientmeta.Open(ctx, m)
		if err != nil {
			return nil, cmdutil.Usage("--meta %q: %v", m, err)
		}
		pools = append(pools, s)
	}
	return pools, nil
}

func newLs() *cobra.Command {
	var c common
	var protocol, class string
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List and classify every durable ILM record in the given pools",
		Long: `ls scans every pool under ilm/, decodes each record and prints path,
protocol, schema/version, state, owner, age, classification and decision,
then a summary by protocol and classification. Copies of one key in several
pools are one row; copies that differ are operator_required. If any pool
could not be listed completely (including a page marked truncated without a
continuation token), counts are labelled incomplete and the command exits 3.`,
		Example: `  ilmctl journal ls --meta testdata/ilm/pool-a
  ilmctl journal ls --meta dir:/srv/meta0 --meta s3://10.0.0.5:9000/meta --classification corrupt -o json`,
		Args: cobra.NoArgs,
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&protocol, "protocol", "", "only this protocol: tier_delete_journal, tier_delete_manifest, transition_transaction, manual_transition, other")
	cmd.Flags().StringVar(&class, "classification", "", "only this classification (see docs/journal.md)")
	output := cmdutil.AddOutputFlag(cmd)
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
		pools, err := c.open(cmd.Context())
		if err != nil {
			return err
		}
		rep, err := corejournal.Scan(cmd.Context(), pools, corejournal.Options{Clock: now})
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
	return (time.Duration(*r.AgeSeconds) * time.Second).String()
}

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
	var tr [][]string
	for _, r := range rows {
		tr = append(tr, []string{r.Path, string(r.Protocol), r.Schema, r.State, r.Owner, age(r), string(r.Classification), string(r.Decision)})
	}
	if err := render.Table(w, "Records", []string{"PATH", "PROTOCOL", "SCHEMA", "STATE", "OWNER", "AGE", "CLASSIFICATION", "DECISION"}, tr); err != nil {
		return err
	}
	title := "Summary"
	if rep.Incomplete {
		title = "Summary (incomplete: counts do not cover every pool)"
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
		Use:   "show PATH",
		Short: "Decode and classify one durable ILM record",
		Long: `show prints one record, decoded, with its classification, decision and the
copies each pool holds. Bucket, object, tier and remote version are shown as
short SHA-256 digests unless --raw is given, so output can be shared without
revealing names. PATH is the key inside the metadata bucket, e.g.
ilm/tier-delete-journal/<digest>.json.`,
		Example: `  ilmctl journal show ilm/tier-delete-journal/0f3c….json --meta testdata/ilm/pool-a
  ilmctl journal show ilm/transition-transactions/records/ab/cd/abcd….json --meta testdata/ilm/pool-a --raw -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Usage("journal show needs exactly one PATH, e.g. ilm/tier-delete-journal/<digest>.json")
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
		pools, err := c.open(cmd.Context())
		if err != nil {
			return err
		}
		rec, rep, err := corejournal.Show(cmd.Context(), pools, args[0], corejournal.Options{Clock: now})
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
			{"path", rec.Path}, {"protocol", string(rec.Protocol)}, {"schema", rec.Schema}, {"state", rec.State},
			{"owner", rec.Owner}, {"age", age(*rec)}, {"classification", string(rec.Classification)},
			{"decision", string(rec.Decision)}, {"reason", rec.Reason},
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
		return render.Table(cmd.OutOrStdout(), "Record", []string{"FIELD", "VALUE"}, rows)
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
