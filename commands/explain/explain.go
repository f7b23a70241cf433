// Package explain is `ilmctl explain`: why one object is (still) there,
// or what lifecycle will do to it, rule by rule.
package explain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/client"
	s3store "github.com/ilmctl/ilmctl/client/s3"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	coreexplain "github.com/ilmctl/ilmctl/core/explain"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

type options struct {
	bucket, key, versionID string
	filer                  string
	pass                   cmdutil.PassFlags
	metaLogRetention       time.Duration
	walkerInterval         time.Duration
	s3PathStyle            bool
	region, state          string
	output                 func() (render.Format, error)
}

// NewCommand returns `ilmctl explain`.
func NewCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "explain --bucket B --key K",
		Short: "Explain one object: each rule's verdict on each version",
		Long: `Explain why an object is still there, or what lifecycle will do to it.

For every version of the key (or the one --version-id names) and every
incomplete multipart upload of it, explain lists each rule of the bucket's
lifecycle configuration and its verdict at --now: whether the filter
selects the target or which predicate failed (prefix, tag, size bound, And
member), the action kind, the due time and the arithmetic behind it (the
base time and where it came from: creation, noncurrent-since, upload
initiation; Days; rounding), and the outcome:

  due          the action applies and is due; the next pass dispatches the
               earliest due action of all rules (marked * in the table)
  not_yet_due  the action applies and becomes due at DUE
  held         (table only) the next pass dispatches it, and Object Lock
               makes the store skip it; JSON says never with the reason
  never        the action does not apply as the key is now, or cannot take
               effect; the line beneath says why: a disabled rule, the
               filter, a delete marker with versions beneath it, newer
               noncurrent object versions kept (delete markers do not
               count toward NewerNoncurrentVersions), a transition, which
               ilmctl does not execute, a rejected configuration, Object
               Lock retention until a date or a legal hold, under which
               the store answers SKIPPED_OBJECT_LOCK

The verdicts are the pass's own: the same engine calls decide them, with
the same --due-rounding, --expired-marker-days and --newer-noncurrent-count.
Then explain shows where the next pass stands for the key: the shard that
walks it, that shard's cursor and last walk, the walk the pass will fire,
and the key's last meta-log event and whether it lies after its shard's
cursor (the next pass replays it) or before (already replayed). An upload
completed or aborted while its initiation event is still ahead of the
cursor is listed as gone: replay still dispatches its abort, which ends
NOOP_RESOLVED.

--rules BUCKET=FILE.xml explains with the lifecycle configuration in FILE
in place of BUCKET's stored one, as 'ilmctl run --dry-run --rules' does.

Explain only reads: the key's entries as the pass reads them, the uploads
listing, the cursors and the meta-log.

Exit codes: 0 ok; 1 error (no such bucket or version, unreadable filer);
2 bad flags; 4 the --rules candidate for --bucket was rejected (the
explanation says so, as for a rejected stored configuration).`,
		Example: `  # Why is this object still here?
  ilmctl explain --bucket logs --key app/old.log

  # One version, as a pass on New Year's Day would see it
  ilmctl explain --bucket logs --key app/batch.log --version-id a01 \
      --now 2027-01-01T00:00:00Z

  # What a candidate configuration would do to this object
  ilmctl explain --bucket logs --key app/old.log \
      --rules logs=testdata/rules/accepted.xml

  # Every due verdict, for a script
  ilmctl explain --bucket logs --key app/old.log -o json |
      jq '.versions[].verdicts[] | select(.outcome=="due")'

  # A live SeaweedFS filer, or any S3 endpoint (cursors in --state)
  ilmctl explain --filer seaweedfs://127.0.0.1:8888 --bucket logs \
      --key app/a.log
  ilmctl explain --filer s3://127.0.0.1:8333 --s3-path-style \
      --state s3://ilmctl/state --bucket logs --key app/a.log`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.bucket, "bucket", "", "the bucket (required)")
	f.StringVar(&o.key, "key", "", "the object key (required)")
	f.StringVar(&o.versionID, "version-id", "", "explain this version only (default: every version and every incomplete upload)")
	f.StringVar(&o.filer, "filer", cmdutil.DefaultFilerPath, "filer to read: a directory holding an embedded filer, seaweedfs://host:port or s3://host:port")
	f.StringVar(&o.pass.Now, "now", "", "the pass clock to explain for, RFC3339 (default: the current time), e.g. 2027-01-01T00:00:00Z")
	f.StringVar(&o.pass.DueRounding, "due-rounding", "aws", "as ilmctl run: aws (next midnight UTC) or exact (SeaweedFS)")
	f.StringVar(&o.pass.ExpiredMarkers, "expired-marker-days", "aws", "as ilmctl run: aws or keep")
	f.StringVar(&o.pass.NewerNoncurrent, "newer-noncurrent-count", "versions", "as ilmctl run: versions or versions-and-markers")
	f.DurationVar(&o.metaLogRetention, "meta-log-retention", 0, "as ilmctl run: how far back the filer's meta-log reaches; 0 = unbounded")
	f.DurationVar(&o.walkerInterval, "walker-interval", 0, "as ilmctl run: minimum time between steady-state walks per shard")
	f.BoolVar(&o.s3PathStyle, "s3-path-style", false, "s3:// only: address buckets as host/bucket")
	f.StringVar(&o.region, "region", "", "s3:// only: signing region (default $AWS_REGION, else us-east-1)")
	f.StringVar(&o.state, "state", "", "s3:// only: where the pass keeps cursors (default ./ilmctl-state)")
	f.StringArrayVar(&o.pass.Rules, "rules", nil, cmdutil.RulesFlagHelp)
	o.output = cmdutil.AddOutputFlag(cmd)
	return cmd
}

// explainExample is the hint of a missing --bucket or --key.
const explainExample = "for example: ilmctl explain --bucket logs --key app/a.log"

func (o *options) check() error {
	switch {
	case o.bucket == "":
		return hint.With(cmdutil.Usage("--bucket is required"), explainExample)
	case o.key == "":
		return hint.With(cmdutil.Usage("--key is required"), explainExample)
	case o.metaLogRetention < 0 || o.walkerInterval < 0:
		return cmdutil.Usage("--walker-interval and --meta-log-retention must be >= 0")
	}
	if err := client.CheckSpec(o.filer); err != nil {
		return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err}
	}
	if !strings.HasPrefix(o.filer, "s3://") && (o.s3PathStyle || o.region != "" || o.state != "") {
		return cmdutil.Usage("--s3-path-style, --region and --state apply to s3:// filers only (got --filer %s)", o.filer)
	}
	return nil
}

func (o *options) run(ctx context.Context, stdout io.Writer) error {
	format, err := o.output()
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	in, err := o.pass.Read()
	if err != nil {
		return err
	}
	now, cands := in.Now, in.Candidates
	fl, err := client.Open(ctx, o.filer, client.Options{
		Clock: func() time.Time { return now }, MustExist: true, ReadOnly: true,
		S3: s3store.Options{PathStyle: o.s3PathStyle, Region: o.region, State: o.state},
	})
	if err != nil {
		return err
	}
	defer fl.Close()

	rules, err := cmdutil.LoadRules(ctx, fl, cands)
	if err != nil {
		return err
	}
	cfg := coreexplain.Config{
		Store: fl, Key: o.key, VersionID: o.versionID, Now: now,
		MetaLogRetention: o.metaLogRetention, WalkerInterval: o.walkerInterval,
		Snapshot: engine.CompileWith(rules.Accepted, in.Semantics).Snapshot(),
	}
	found := false
	for _, b := range rules.Listed {
		if b.Name == o.bucket {
			cfg.Bucket, found = b, true
		}
	}
	if !found {
		return cmdutil.NoSuchBucket(o.bucket, o.filer)
	}
	for i := range rules.Accepted {
		if rules.Accepted[i].Name == o.bucket {
			cfg.Rules = &rules.Accepted[i]
		}
	}
	// A rejected candidate is explained as a rejected stored configuration
	// is, and then fails as a pass with it would: exit 4.
	var candidateErr error
	for _, be := range rules.Rejected {
		if be.Bucket == o.bucket {
			cfg.ConfigErr = be.Err.Error()
			if _, ok := cands[be.Bucket]; ok {
				candidateErr = cmdutil.Rejected(cmdutil.RejectedConfiguration(be))
			}
		}
	}
	// As `ilmctl run` does: a store without a meta-log walks every rule.
	if !filer.HasMetaLog(fl) {
		cfg.NoMetaLog, cfg.MetaLogRetention = true, dailyrun.EffectiveRetention(fl, o.metaLogRetention)
	}
	if sc, ok := fl.(filer.ServerClock); ok {
		if cfg.ServerNow, err = sc.ServerTime(ctx); err != nil {
			return fmt.Errorf("read the filer's clock: %w", err)
		}
	}
	rep, err := coreexplain.Explain(ctx, cfg)
	if err != nil {
		if errors.Is(err, coreexplain.ErrNoVersion) {
			return hint.With(err, "omit --version-id to explain every version")
		}
		return err
	}
	out := render.NewExplainReport(rep)
	if format == render.FormatJSON {
		err = render.JSON(stdout, out)
	} else {
		err = render.ExplainTables(stdout, out, cmdutil.Width(stdout))
	}
	if err != nil {
		return err
	}
	if len(rep.Versions)+len(rep.Uploads) == 0 && rep.KeyError == "" && o.versionID == "" {
		// Nothing by that key: say so, with the likeliest slip, unless
		// the meta-log shows the key removed (the report's last event).
		if ev := rep.Pass.LastEvent; ev != nil && ev.Type == filer.EventRemove {
			return hint.With(fmt.Errorf("no object %q in bucket %s: removed at %s",
				o.key, o.bucket, time.Unix(0, ev.TsNs).UTC().Format(time.RFC3339)),
				"a pass's -o jsonl names the rule behind each delete")
		}
		err := fmt.Errorf("no object %q in bucket %s on %s: check --key", o.key, o.bucket, o.filer)
		if k := strings.TrimLeft(o.key, "/"); k != o.key && k != "" {
			return hint.With(err, fmt.Sprintf("keys have no leading '/': try --key %s", k))
		}
		return hint.With(err, fmt.Sprintf("ilmctl filer ls --bucket %s lists an embedded filer's keys", o.bucket))
	}
	return candidateErr
}
