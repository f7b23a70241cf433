// Package run is `ilmctl run`: one daily lifecycle pass against a filer.
package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/client"
	s3store "github.com/ilmctl/ilmctl/client/s3"
	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/hint"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

type options struct {
	runtime          time.Duration
	filer            string
	shards           string
	deletesPerSecond float64
	burst            int
	workers          int
	hostShare        hostShareFlags
	inFlight         int
	walkerInterval   time.Duration
	metaLogRetention time.Duration
	pass             cmdutil.PassFlags
	dryRun           bool
	output           func() (render.Format, error)
	s3               s3Flags
	s3GRPC           string
	obsFlags         observeFlags
	// terminal and ticker drive the progress line; tests replace them.
	terminal func(io.Writer) bool
	ticker   func() (<-chan time.Time, func())
}

// s3Flags configure s3:// filers only (docs/s3.md).
type s3Flags struct {
	pathStyle bool
	region    string
	state     string
	checkCAS  bool
}

// NewCommand returns `ilmctl run`.
func NewCommand() *cobra.Command {
	return newCommand(&options{terminal: isTerminal, ticker: newTicker, hostShare: hostShareFlags{getenv: os.Getenv}})
}

func newCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one lifecycle pass: replay, walk, dispatch due deletes",
		Long: `Run one S3 lifecycle pass against a filer and exit: the daily run.

The pass replays the filer's meta-log from each shard's saved cursor, walks
buckets where replay cannot decide (cold start, rule edits, a SeaweedFS
filer restart that may have lost meta-log events, ExpirationDate,
ExpiredObjectDeleteMarker, NewerNoncurrentVersions), dispatches
identity-checked deletes under one shared rate limit, saves per-shard
cursors, prints a heartbeat line on stderr and a report on stdout.

The report fits the terminal (80 columns off a terminal unless $COLUMNS
says otherwise): a one-line summary of the pass, then only the shards
that dispatched or did not finish, and the outcomes per bucket and rule;
long names are shortened in the middle, version IDs to a unique prefix.
-o wide shows every shard and every column, identifiers in full, however
wide; -o json is one document; -o jsonl writes each action as one JSON
line as it completes, then a summary line (the -o json document without
actions). In JSON every count has its bytes beside it (the sizes of the
versions reached: bytes, dispatched_bytes, size per action; -o wide's
BYTES), and FREED (JSON bytes_freed) is what the pass freed, or a dry run
would free: versions deleted for good, not ones a delete marker only
hides.

Due times follow AWS: Days are counted from creation (or from when a version
became noncurrent, or from upload initiation) and rounded up to the next
midnight UTC; --due-rounding exact uses SeaweedFS's unrounded time.

Only deletion actions run. Transition and NoncurrentVersionTransition are
validated as S3 validates them and reported, never executed: one notice per
action per pass (JSON notices[] of kind transition_not_executed with rule_id
and action; one stderr line per bucket). A rule of transitions alone is
valid and deletes nothing. A bucket whose lifecycle XML is rejected gets no
action at all: it is listed in bucket_errors, counts in errors= and makes
the pass exit 4.

Expiration Days also removes an expired object delete marker (a delete
marker that is its key's only version) once Days old, counted from the
marker's own mtime, as S3, MinIO and RustFS do. SeaweedFS's own worker keeps
such markers: --expired-marker-days keep does the same, for side-by-side
comparisons.

NoncurrentVersionExpiration's NewerNoncurrentVersions N keeps the N newest
noncurrent object versions; noncurrent delete markers do not count toward N,
as the S3 User Guide says, and a marker is itself deleted only once N object
versions newer than it are kept. SeaweedFS's own worker and MinIO count
markers, so they keep fewer versions: --newer-noncurrent-count
versions-and-markers does the same, for side-by-side comparisons.

A shard whose delete ends RETRY_LATER, BLOCKED, STUCK (refused although the
target is unchanged and still due) or in a transport error (after 3 attempts)
halts with its cursor at the last fully processed event; the next pass
resumes there. A key that cannot be read exactly halts only its own shard; a
key whose entries share one version ID gets no action and is reported as a
notice. -runtime and Ctrl-C stop the pass and still save cursors; a
recovery walk (cold start, rule edit, filer restart) they cut short saves
its position, and the next pass continues it there instead of walking from
the first bucket again. Each shard reports how far its walk got: keys walked this
pass and buckets done of the walk's (JSON walk_keys, walk_buckets_done,
walk_buckets; -o wide WALK_KEYS, BUCKETS; in the heartbeat, walk_keys=
and walk_shards_done=, the shards whose walk is done of those that
walked), whether it saved its position (walk_saved), and where a
continued walk picked up (walk_resumed_from).

--dry-run --rules BUCKET=FILE.xml (repeatable) previews a candidate
lifecycle configuration: the pass reads FILE in place of BUCKET's stored
configuration, through the same parser and engine, and reports what it
would do; nothing is written. A candidate the parser rejects is reported
as a rejected stored configuration is (exit 4); 'ilmctl rules check FILE'
checks one alone. --rules without --dry-run is a usage error (exit 2);
for a bucket the filer does not have, an error (exit 1).

Several hosts: --shard-index I/N makes this host I of N running the same
command. It tries every shard's lease, starting at its own block of
16/N (I*16/N, wrapping), runs the first 16/N it takes (a shard held
elsewhere ends leased, and it takes the next free one), and deletes at
1/N of --deletes-per-second: split by N, not by the hosts alive, since
no coordinator counts them. --shards auto reads I from
$JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it) and N from
--hosts or $ILMCTL_HOSTS. Beside --shards or --workers it is a usage
error. deploy/kubernetes and deploy/systemd hold examples.

Against a live filer (seaweedfs://, s3://) the meta-log is read only up to
the server's clock, and a real pass dated more than 2m after it is refused:
use --dry-run to preview a future --now.

Memory does not grow with the pass: past a fixed bound, the targets it
dispatched and the keys a cold walk left pending move to scratch files
under $TMPDIR (24 bytes each, about 120 MB for 5M deletes), removed when
the pass ends.

On a terminal, stderr shows a live progress line while the pass runs
(events replayed, entries walked, deletes done of dispatched and per
second, limiter wait, elapsed against -runtime), cleared before the
heartbeat; --quiet or a JSON report (-o json, jsonl) turns it off.
--metrics-textfile and --pushgateway write the pass's Prometheus metrics
when it is over, whatever its outcome (docs/metrics.md).

Exit codes: 0 pass ok; 1 error (bad filer, unreadable config); 2 bad flags,
or --now ahead of the filer's clock; 3 pass incomplete (-runtime ended it,
status incomplete; or a shard halted, errored or was cancelled; cursors
saved); 4 pass ok but a bucket's lifecycle configuration was rejected (the
bucket got no action). 3 wins over 4.`,
		Example: `  # One pass, capped at an hour, against the embedded filer in ./ilmctl-data
  ilmctl run -runtime 60m

  # Preview what lifecycle will have done by New Year, deleting nothing
  ilmctl run --dry-run --now 2027-01-01T00:00:00Z

  # What would this configuration delete from logs today? (writes nothing)
  ilmctl run --dry-run --rules logs=testdata/rules/accepted.xml

  # Two hosts splitting a cluster capped at 500 deletes/s
  ilmctl run --shards 0-7  --deletes-per-second 500 --workers 2   # host A
  ilmctl run --shards 8-15 --deletes-per-second 500 --workers 2   # host B

  # The same command on four hosts, only the index differs: each leases
  # its quarter of the shards and deletes at 125/s (1/4 of the cap)
  ilmctl run --shard-index 0/4 --deletes-per-second 500   # 1/4, 2/4, 3/4

  # In a Kubernetes Indexed Job of 4 pods ($JOB_COMPLETION_INDEX is set)
  ilmctl run --shards auto --hosts 4 --deletes-per-second 500

  # Machine-readable report
  ilmctl run -o json | jq '.actions[] | select(.outcome=="DONE")'

  # Capacity planning: bytes lifecycle will have freed by each date
  for d in 2027-01-01 2027-02-01 2027-03-01; do
    ilmctl run --dry-run --now ${d}T00:00:00Z -o json |
      jq -r --arg d $d '[$d, .bytes_freed] | @tsv'
  done

  # A stream for passes with millions of actions: every one not DONE
  ilmctl run -o jsonl | jq -c 'select(.type=="action" and .outcome!="DONE")'

  # From cron: metrics for node_exporter's textfile collector (written
  # atomically, mode 0644), no progress line even when run by hand
  ilmctl run --quiet \
      --metrics-textfile /var/lib/node_exporter/textfile/ilmctl.prom

  # Metrics to a Pushgateway, as job ilmctl_run, instance lifecycle-a
  ilmctl run --pushgateway http://pushgateway:9091 \
      --pushgateway-instance lifecycle-a

  # A live SeaweedFS filer (gRPC at port+10000; S3 gRPC for deletes)
  ilmctl run --filer seaweedfs://127.0.0.1:8888 --s3-grpc 127.0.0.1:18333

  # Any S3-compatible endpoint (credentials from the AWS default chain,
  # e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE),
  # cursors in a bucket, refusing to run unless the server honours If-Match
  # on DeleteObject
  ilmctl run --filer s3://127.0.0.1:8333 --s3-path-style \
      --state s3://ilmctl/state --check-cas`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.hostShare.workersSet = cmd.Flags().Changed("workers")
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.runtime, "runtime", 60*time.Minute, "wall-clock cap on the pass (also -runtime); cursors are saved when it expires")
	f.StringVar(&o.filer, "filer", cmdutil.DefaultFilerPath, "filer to run against: a directory holding an embedded filer, seaweedfs://host:port or s3://host:port")
	f.StringVar(&o.shards, "shards", "all", "shards to run: all, a range 0-7, a list 1,5,9, or auto: --shard-index from $JOB_COMPLETION_INDEX and --hosts")
	f.StringVar(&o.hostShare.index, "shard-index", "", "I/N: run as host I of N identical hosts sharing the 16 shards, with 1/N of the rate (docs/run.md, Several hosts)")
	f.IntVar(&o.hostShare.hosts, "hosts", 0, "with --shards auto: N, the hosts sharing the shards (default $ILMCTL_HOSTS)")
	f.Float64Var(&o.deletesPerSecond, "deletes-per-second", 0, "cluster-wide lifecycle delete rate cap; 0 = unlimited")
	f.IntVar(&o.burst, "burst", 0, "cluster-wide token-bucket burst; 0 = twice the rate")
	f.IntVar(&o.workers, "workers", 1, "workers sharing the cluster rate; this one takes rate/workers")
	f.IntVar(&o.inFlight, "deletes-in-flight", 0, "deletes each shard keeps in flight at once (a key's one after the other), all under --deletes-per-second; 0 = the filer's choice: 64 on the embedded filer and s3://, whose deletes share commits or DeleteObjects requests, 8 on seaweedfs://")
	f.DurationVar(&o.walkerInterval, "walker-interval", 0, "minimum time between steady-state walks per shard; 0 = every pass")
	f.DurationVar(&o.metaLogRetention, "meta-log-retention", 0, "how far back the filer's meta-log reaches; rules with longer TTLs are walked; 0 = unbounded")
	f.StringVar(&o.pass.DueRounding, "due-rounding", "aws", "due time rounding: aws (next midnight UTC) or exact (SeaweedFS)")
	f.StringVar(&o.pass.ExpiredMarkers, "expired-marker-days", "aws", "Expiration Days on a delete marker that is its key's only version: aws (remove it once Days old, as S3, MinIO, RustFS) or keep (as SeaweedFS's worker)")
	f.StringVar(&o.pass.NewerNoncurrent, "newer-noncurrent-count", "versions", cmdutil.NewerNoncurrentFlagHelp)
	f.BoolVar(&o.dryRun, "dry-run", false, "list every action that would be dispatched; delete nothing, move no cursor")
	f.StringVar(&o.pass.Now, "now", "", "pass clock as RFC3339 (default: the current time), e.g. 2027-01-01T00:00:00Z")
	f.StringArrayVar(&o.pass.Rules, "rules", nil, "with --dry-run: "+cmdutil.RulesFlagHelp)
	f.StringVar(&o.s3GRPC, "s3-grpc", "", "seaweedfs:// only: SeaweedFS S3 gRPC address for LifecycleDelete (default: the filer host, port 18333)")
	f.BoolVar(&o.s3.pathStyle, "s3-path-style", false, "s3:// only: address buckets as host/bucket (SeaweedFS, MinIO, IP endpoints) instead of bucket.host")
	f.StringVar(&o.s3.region, "region", "", "s3:// only: signing region (default $AWS_REGION, else us-east-1)")
	f.StringVar(&o.s3.state, "state", "", "s3:// only: where cursors live, a directory or s3://bucket/prefix on the same endpoint (default ./ilmctl-state)")
	f.BoolVar(&o.s3.checkCAS, "check-cas", false, "s3:// only: before the pass, check that the server honours If-Match on DeleteObject; exit 1 if it does not (without it, a real s3:// pass warns once: conditional_delete_unproven)")
	o.obsFlags.add(f)
	o.output = cmdutil.AddOutputFlag(cmd, outputFormats...)
	return cmd
}

func (o *options) run(ctx context.Context, stdout, stderr io.Writer) error {
	format, err := o.output()
	if err != nil {
		return err
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	sinks, err := o.obsFlags.sinks(o.dryRun, stderr)
	if err != nil {
		return err
	}
	in, err := o.pass.Read()
	if err != nil {
		return err
	}
	runNow, cands := in.Now, in.Candidates
	fl, err := client.Open(ctx, o.filer, client.Options{
		Clock: passClock(o.pass.Now != "", runNow), MustExist: true, ReadOnly: o.dryRun,
		SeaweedFS: seaweedfs.Options{S3GRPC: o.s3GRPC},
		S3:        s3store.Options{PathStyle: o.s3.pathStyle, Region: o.s3.region, State: o.s3.state},
	})
	if err != nil {
		return err
	}
	defer fl.Close()
	if err := o.s3.apply(ctx, fl, stderr); err != nil {
		return err
	}

	if cfg.ServerNow, err = checkServerClock(ctx, fl, runNow, o.dryRun); err != nil {
		return err
	}

	rules, err := cmdutil.LoadRules(ctx, fl, cands)
	if err != nil {
		return err
	}
	for _, b := range cands.Buckets() {
		fmt.Fprintf(stderr, "ilmctl: bucket %s: previewing the candidate configuration %s in place of the stored one\n", b, cands[b].File)
	}
	buckets, bucketErrs := rules.Accepted, rules.Rejected
	for _, be := range bucketErrs {
		fmt.Fprintf(stderr, "ilmctl: %v\n", cmdutil.RejectedConfiguration(be))
	}
	cfg.Store = fl
	cfg.Snapshot = engine.CompileWith(buckets, in.Semantics).Snapshot()
	cfg.RejectedBuckets = len(bucketErrs)
	cfg.RunNow = runNow
	cfg.Clock = time.Now
	cfg.LeaseOwner = leaseOwner()

	sink, err := streamActions(format, &cfg, stdout)
	if err != nil {
		return err
	}
	defer sink.stop()
	runCtx, cancel := context.WithTimeout(ctx, o.runtime)
	defer cancel()
	obs := o.observe(&cfg, sinks, format, stderr)
	res, err := dailyrun.Run(runCtx, cfg)
	obs.stopProgress()
	sink.flush() // -o jsonl: every action line out before the lines below
	if err != nil {
		return err
	}
	res.AddNotices(dailyrun.TransitionNotices(buckets)...)
	res.AddNotices(o.s3.unproven(fl, o.filer, o.dryRun)...)
	rep := render.NewRunReport(res, bucketErrs)
	metricsErr := obs.write(ctx, res)
	for _, line := range render.NoticeLines(rep.Notices, cmdutil.Width(stderr)) {
		fmt.Fprintln(stderr, line)
	}
	for _, line := range heartbeatLines(res.Heartbeat(), stderr) {
		fmt.Fprintln(stderr, line)
	}
	if err := writeReport(stdout, format, rep, sink); err != nil {
		return err
	}
	if err := metricsError(metricsErr, res, rep, stderr); err != nil {
		return err
	}
	// An unfinished pass (3) outranks a rejected configuration (4): the
	// pass itself needs a rerun, and the rejection is still reported in
	// bucket_errors, errors= and on stderr. Shards another host held
	// (leased) are that host's to run, so they alone need no rerun here.
	if res.Unfinished() {
		return cmdutil.Incomplete(incomplete(res))
	}
	if len(bucketErrs) > 0 {
		return cmdutil.Rejected(rejected(bucketErrs, cands))
	}
	return nil
}

// leaseOwner names this process in the shard leases it takes: what another
// host's report shows as the holder.
func leaseOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return fmt.Sprintf("ilmctl@%s pid %d", host, os.Getpid())
}

// rejected says which buckets got no action because their lifecycle
// configuration was rejected.
func rejected(bucketErrs []engine.BucketError, cands cmdutil.Candidates) error {
	names := make([]string, len(bucketErrs))
	advice := "fix the XML (see the messages above) and put it again"
	for i, be := range bucketErrs {
		names[i] = be.Bucket
		if c, ok := cands[be.Bucket]; ok {
			advice = fmt.Sprintf("fix the candidate (see the messages above; 'ilmctl rules check %s' checks it alone) and preview it again", c.File)
		}
	}
	return hint.With(fmt.Errorf("pass ok, but %d bucket(s) got no lifecycle action because their configuration was rejected: %s",
		len(bucketErrs), strings.Join(names, ", ")), advice)
}

// maxClockSkew is how far a real pass's clock may run ahead of the
// filer's: enough for hosts kept in step by NTP, far too little to date a
// pass in the future.
const maxClockSkew = 2 * time.Minute

// checkServerClock reads the clock of a store that keeps its own
// (filer.ServerClock) and refuses a real pass dated more than maxClockSkew
// after it: deletes would run ahead of their due times and cursors would
// claim events the filer has not written yet. A dry run may look ahead.
// The zero time means the store's clock is the pass clock (embedded).
func checkServerClock(ctx context.Context, fl client.Filer, runNow time.Time, dryRun bool) (time.Time, error) {
	sc, ok := fl.(filer.ServerClock)
	if !ok {
		return time.Time{}, nil
	}
	serverNow, err := sc.ServerTime(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the filer's clock: %w", err)
	}
	if ahead := runNow.Sub(serverNow); ahead > maxClockSkew && !dryRun {
		return time.Time{}, hint.With(cmdutil.Usage("the pass clock %s is %s ahead of the filer's clock %s (at most %s allowed): a real pass dated in the future would delete early and save cursors past events the filer has not written",
			runNow.Format(time.RFC3339), dailyrun.FormatDuration(ahead), serverNow.Format(time.RFC3339), dailyrun.FormatDuration(maxClockSkew)),
			fmt.Sprintf("preview the future with --dry-run --now %s, or fix this host's clock", runNow.Format(time.RFC3339)))
	}
	return serverNow, nil
}

// incomplete says how a pass that did not finish left its cursors: the next
// pass resumes from the saved ones, and continues an unfinished recovery
// walk from the position it saved; a shard without either (a dry run, a
// dead filer) starts over.
func incomplete(res *dailyrun.Result) error {
	saved, walks := 0, 0
	for _, s := range res.Shards {
		if s.CursorSaved {
			saved++
		}
		if s.WalkSaved {
			walks++
		}
	}
	cursors := fmt.Sprintf("cursors saved for %d of %d shards; the next pass resumes from them", saved, len(res.Shards))
	switch {
	case res.DryRun:
		cursors = "dry run: no cursor saved"
	case saved == 0 && walks == 0:
		cursors = "no cursor saved; the next pass starts from the previous cursors"
	case saved == 0:
		cursors = "no cursor saved"
	}
	if walks > 0 && !res.DryRun {
		cursors += fmt.Sprintf("; unfinished recovery walks of %d shards saved their position, and the next pass continues them there", walks)
	}
	return fmt.Errorf("pass %s: %d of %d shards did not finish; %s", res.Status(), res.ShardErrors(), len(res.Shards), cursors)
}

func (o *options) config() (dailyrun.Config, error) {
	var cfg dailyrun.Config
	if o.runtime <= 0 {
		return cfg, cmdutil.Usage("-runtime %v must be positive (example: -runtime 60m)", o.runtime)
	}
	if o.walkerInterval < 0 || o.metaLogRetention < 0 {
		return cfg, cmdutil.Usage("--walker-interval and --meta-log-retention must be >= 0")
	}
	if err := checkFiler(o.filer); err != nil {
		return cfg, err
	}
	if err := o.s3.check(o.filer); err != nil {
		return cfg, err
	}
	if o.s3GRPC != "" && !strings.HasPrefix(o.filer, "seaweedfs://") {
		return cfg, cmdutil.Usage("--s3-grpc applies to seaweedfs:// filers only (got --filer %s)", o.filer)
	}
	share, err := o.hostShare.parse(o.shards)
	if err != nil {
		return cfg, err
	}
	var shards []int
	workers := o.workers
	if share.Hosts > 0 {
		workers = share.Hosts // the split is by the fleet's size: no coordinator counts live hosts
	} else if shards, err = parseShards(o.shards); err != nil {
		return cfg, cmdutil.Usage("%v", err)
	}
	lim, err := newLimiter(o.deletesPerSecond, o.burst, workers)
	if err != nil {
		return cfg, cmdutil.Usage("%v", err)
	}
	if o.inFlight < 0 || o.inFlight > 1024 {
		return cfg, cmdutil.Usage("--deletes-in-flight %d must be between 1 and 1024, or 0 for the filer's choice", o.inFlight)
	}
	if len(o.pass.Rules) > 0 && !o.dryRun {
		return cfg, hint.With(cmdutil.Usage("--rules needs --dry-run"), "a candidate configuration is previewed, never acted on")
	}
	cfg.Shards, cfg.HostShare, cfg.Limiter, cfg.DryRun, cfg.InFlight = shards, share, lim, o.dryRun, o.inFlight
	cfg.WalkerInterval, cfg.MetaLogRetention = o.walkerInterval, o.metaLogRetention
	return cfg, nil
}

// passClock is the clock the filer stamps new versions (delete markers) and
// checks Object Lock with: the pass clock when --now pins it, so a pass
// "at" a date behaves as it would on that date.
func passClock(pinned bool, runNow time.Time) func() time.Time {
	if pinned {
		return func() time.Time { return runNow }
	}
	return time.Now
}

// check refuses s3:// flags on other filers, where they would be ignored.
func (f s3Flags) check(filerSpec string) error {
	if strings.HasPrefix(filerSpec, "s3://") {
		return nil
	}
	if f.pathStyle || f.region != "" || f.state != "" || f.checkCAS {
		return cmdutil.Usage("--s3-path-style, --region, --state and --check-cas apply to s3:// filers only (got --filer %s)", filerSpec)
	}
	return nil
}

// unproven returns the NoticeConditionalDeleteUnproven of a real pass over
// a store whose deletes rely on the server honouring If-Match
// (filer.CASChecker) when --check-cas did not prove it (docs/s3.md). A dry run deletes nothing, so it has none.
func (f s3Flags) unproven(fl client.Filer, filerSpec string, dryRun bool) []dailyrun.Notice {
	if _, ok := fl.(filer.CASChecker); !ok || f.checkCAS || dryRun {
		return nil
	}
	return []dailyrun.Notice{dailyrun.ConditionalDeleteUnproven(filerSpec)}
}

// apply runs --check-cas on a store that can be probed
// (filer.CASChecker). A store without a meta-log needs nothing here:
// dailyrun.Run walks every rule on it (dailyrun.EffectiveRetention).
func (f s3Flags) apply(ctx context.Context, fl client.Filer, stderr io.Writer) error {
	if !f.checkCAS {
		return nil
	}
	c, ok := fl.(filer.CASChecker)
	if !ok {
		return cmdutil.Usage("--check-cas: filer %T cannot be probed", fl)
	}
	finding, err := c.CheckCAS(ctx)
	if err != nil {
		return fmt.Errorf("--check-cas: %w", err)
	}
	fmt.Fprintf(stderr, "ilmctl: --check-cas: %s\n", finding)
	return nil
}
