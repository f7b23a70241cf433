// Package metrics exports one `ilmctl run` pass as Prometheus metrics, with
// the names SeaweedFS's daily-run design gives them (its Observability
// section, weed/s3api/s3lifecycle/DESIGN.md) plus a few of ilmctl's own,
// to a node_exporter textfile or a Pushgateway (docs/metrics.md lists
// them).
//
// A cron job's pass is over before anything could scrape it, so every
// metric describes the last pass, and each write replaces the previous
// pass's whole set: counters count that pass only, as a restarted
// process's do. The one value that outlives a pass is the last-success
// timestamp: a pass that did not succeed carries it over from what it
// replaces (the old textfile, the Pushgateway's group). The registry is
// private, so nothing reaches or comes from the process-wide one.
package metrics

import (
	"strconv"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/prometheus/client_golang/prometheus"
)

// Metric names that other code (and the tests) refer to.
const (
	CursorMinTsNs = "s3_lifecycle_cursor_min_ts_ns"
	LastWalkedNs  = "s3_lifecycle_daily_run_last_walked_ns"
	ShardDuration = "s3_lifecycle_daily_run_shard_duration_seconds"
	EventsScanned = "s3_lifecycle_daily_run_events_scanned_total"
	LimiterWait   = "s3_lifecycle_dispatch_limiter_wait_seconds"
	DispatchTotal = "s3_lifecycle_dispatch_total"
	Status        = "ilmctl_daily_run_status"
	Errors        = "ilmctl_daily_run_errors"
	BucketErrors  = "ilmctl_daily_run_bucket_errors"
	NoticesTotal  = "ilmctl_daily_run_notices_total"
	Duration      = "ilmctl_daily_run_duration_seconds"
	LastRun       = "ilmctl_daily_run_last_run_timestamp_seconds"
	LastSuccess   = "ilmctl_daily_run_last_success_timestamp_seconds"
	Ambiguous     = "ilmctl_daily_run_ambiguous_keys"
	AmbiguousFrom = "ilmctl_daily_run_ambiguous_keys_first_seen_timestamp_seconds"
	WalkKeys      = "ilmctl_daily_run_walk_keys"
	WalkBuckets   = "ilmctl_daily_run_walk_buckets"
	WalkDone      = "ilmctl_daily_run_walk_buckets_done"
)

// limiterWaitBuckets are SeaweedFS's own for this histogram, so one
// dashboard reads ilmctl's and SeaweedFS's worker's alike.
var limiterWaitBuckets = []float64{0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// statuses are every pass status: each is exported, exactly one set to 1,
// so an alert can compare against 0 instead of testing for absence.
var statuses = []dailyrun.ShardStatus{dailyrun.StatusOK, dailyrun.StatusLeased, dailyrun.StatusIncomplete, dailyrun.StatusCancelled, dailyrun.StatusHalted, dailyrun.StatusError}

// Recorder holds one pass's metrics: create it before the pass (its
// ObserveLimiterWait is the pass's Config.OnLimiterWait), Record the
// result after it, then write it with Sinks.
type Recorder struct {
	reg           *prometheus.Registry
	limiterWait   prometheus.Histogram
	cursor        *prometheus.GaugeVec
	lastWalked    *prometheus.GaugeVec
	shardDuration *prometheus.GaugeVec
	events        *prometheus.CounterVec
	walkKeys      *prometheus.GaugeVec
	walkBuckets   *prometheus.GaugeVec
	walkDone      *prometheus.GaugeVec
	dispatch      *prometheus.CounterVec
	status        *prometheus.GaugeVec
	notices       *prometheus.CounterVec
	errors        prometheus.Gauge
	bucketErrors  prometheus.Gauge
	duration      prometheus.Gauge
	lastRun       prometheus.Gauge
	ambiguous     prometheus.Gauge
	ambiguousFrom prometheus.Gauge

	// succeeded and end are set by Record: end is when the pass ended,
	// the last-success timestamp when it succeeded.
	succeeded bool
	end       time.Time
}

// New returns an empty Recorder.
func New() *Recorder {
	r := &Recorder{reg: prometheus.NewRegistry()}
	shard := []string{"shard"}
	r.cursor = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CursorMinTsNs,
		Help: "Shard's replay cursor, Unix ns, as saved by the last pass (or kept from before it); now minus this is the replay lag. 0: no replay cursor (cold, or only walked rules)."}, shard)
	r.lastWalked = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: LastWalkedNs,
		Help: "When the shard's last completed walk ran, Unix ns of the pass clock; now minus this is walker freshness. 0: never walked."}, shard)
	r.shardDuration = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: ShardDuration,
		Help: "Wall-clock seconds from the start of the last pass until the shard finished (walk, replay, cursor save)."}, shard)
	r.events = prometheus.NewCounterVec(prometheus.CounterOpts{Name: EventsScanned,
		Help: "Meta-log events the shard's replay decided in the last pass."}, shard)
	r.walkKeys = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: WalkKeys,
		Help: "Keys of the shard (objects and incomplete uploads) its walk listed in the last pass; 0 when it did not walk."}, shard)
	r.walkBuckets = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: WalkBuckets,
		Help: "Buckets the shard's walk in the last pass covers; 0 when it did not walk."}, shard)
	r.walkDone = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: WalkDone,
		Help: "Of those, buckets whose every due action of the shard completed, a continued recovery walk's earlier passes included; below " + WalkBuckets + ": the walk is unfinished."}, shard)
	r.limiterWait = prometheus.NewHistogram(prometheus.HistogramOpts{Name: LimiterWait,
		Help:    "Per-dispatch wait on the cluster rate limiter before a LifecycleDelete in the last pass; no observation when --deletes-per-second is 0 (unlimited).",
		Buckets: limiterWaitBuckets})
	r.dispatch = prometheus.NewCounterVec(prometheus.CounterOpts{Name: DispatchTotal,
		Help: "Actions dispatched in the last pass by bucket, action kind and outcome (DONE, NOOP_RESOLVED, SKIPPED_OBJECT_LOCK, RETRY_LATER, BLOCKED, STUCK, ERROR)."},
		[]string{"bucket", "kind", "outcome"})
	r.status = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: Status,
		Help: "1 for the last pass's status (ok, leased: another host held some of its shards and ran them, incomplete: -runtime ended it, cancelled: a signal did, halted, error), 0 for the others."}, []string{"status"})
	r.notices = prometheus.NewCounterVec(prometheus.CounterOpts{Name: NoticesTotal,
		Help: "What the last pass saw and deliberately did not act on, by notice kind (ambiguous_layout: a key whose layout or version order is ambiguous, left alone; ambiguous_list_unreadable: a shard's list of such keys that could not be read or saved; transition_not_executed: a transition action, which ilmctl does not run; conditional_delete_unproven: an s3:// pass without --check-cas)."},
		[]string{"kind"})
	r.errors = prometheus.NewGauge(prometheus.GaugeOpts{Name: Errors,
		Help: "The last pass's heartbeat errors=: what did not end ok."})
	r.bucketErrors = prometheus.NewGauge(prometheus.GaugeOpts{Name: BucketErrors,
		Help: "Buckets whose lifecycle configuration the last pass rejected; they got no action."})
	r.duration = prometheus.NewGauge(prometheus.GaugeOpts{Name: Duration,
		Help: "Wall-clock seconds of the last pass."})
	r.lastRun = prometheus.NewGauge(prometheus.GaugeOpts{Name: LastRun,
		Help: "When the last pass ended, Unix seconds, whatever its status."})
	r.ambiguous = prometheus.NewGauge(prometheus.GaugeOpts{Name: Ambiguous,
		Help: "Keys the last pass left alone for an ambiguous layout: those it met and those still on its shards' lists (the heartbeat's ambiguous=)."})
	r.ambiguousFrom = prometheus.NewGauge(prometheus.GaugeOpts{Name: AmbiguousFrom,
		Help: "When the longest-standing of those keys was first found ambiguous, Unix seconds; 0 when there is none."})
	r.reg.MustRegister(r.cursor, r.lastWalked, r.shardDuration, r.events, r.walkKeys, r.walkBuckets, r.walkDone, r.limiterWait, r.dispatch,
		r.status, r.notices, r.errors, r.bucketErrors, r.duration, r.lastRun, r.ambiguous, r.ambiguousFrom)
	return r
}

// ObserveLimiterWait records one dispatch's wait on the rate limiter; it is
// safe for concurrent use, as dailyrun.Config.OnLimiterWait must be.
func (r *Recorder) ObserveLimiterWait(d time.Duration) { r.limiterWait.Observe(d.Seconds()) }

// Record sets every metric from a finished pass; end is the wall-clock
// time the pass ended. The pass succeeded when the run exits 0: its status
// is ok or leased, no bucket's lifecycle configuration was rejected
// (Result.RejectedBuckets), and it was not a dry run.
func (r *Recorder) Record(res *dailyrun.Result, end time.Time) {
	status := res.Status()
	for _, s := range statuses {
		v := 0.0
		if s == status {
			v = 1
		}
		r.status.WithLabelValues(s.String()).Set(v)
	}
	for _, s := range res.Shards {
		id := strconv.Itoa(s.Shard)
		r.cursor.WithLabelValues(id).Set(float64(s.Cursor.TsNs))
		r.lastWalked.WithLabelValues(id).Set(float64(s.Cursor.LastWalkedNs))
		r.shardDuration.WithLabelValues(id).Set(s.Duration.Seconds())
		r.events.WithLabelValues(id).Add(float64(s.EventsScanned))
		r.walkKeys.WithLabelValues(id).Set(float64(s.WalkKeys))
		r.walkBuckets.WithLabelValues(id).Set(float64(s.WalkBuckets))
		r.walkDone.WithLabelValues(id).Set(float64(s.WalkBucketsDone))
	}
	for _, b := range res.Buckets {
		for outcome, n := range b.Outcomes {
			r.dispatch.WithLabelValues(b.Bucket, string(b.Kind), outcome.String()).Add(float64(n))
		}
	}
	// Present at 0 so "> 0" alerts need no absent().
	r.notices.WithLabelValues(dailyrun.NoticeAmbiguousLayout.String())
	for _, n := range res.Notices {
		r.notices.WithLabelValues(n.Kind.String()).Inc()
	}
	r.errors.Set(float64(res.Errors()))
	r.ambiguous.Set(float64(res.AmbiguousKeys()))
	if res.AmbiguousSinceNs > 0 {
		r.ambiguousFrom.Set(float64(res.AmbiguousSinceNs) / 1e9)
	}
	r.bucketErrors.Set(float64(res.RejectedBuckets))
	r.duration.Set(res.Duration.Seconds())
	r.lastRun.Set(unixSeconds(end))
	r.end = end
	r.succeeded = !res.Unfinished() && res.RejectedBuckets == 0 && !res.DryRun
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// gatherer is the pass's metrics plus the last-success timestamp when one
// is known: this pass's end if it succeeded, else prev (ok false: none).
func (r *Recorder) gatherer(prev float64, ok bool) prometheus.Gatherer {
	if r.succeeded {
		prev, ok = unixSeconds(r.end), true
	}
	if !ok {
		return r.reg
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: LastSuccess,
		Help: "When the last successful pass (exit 0) ended, Unix seconds; a pass that fails carries it over."})
	g.Set(prev)
	extra := prometheus.NewRegistry()
	extra.MustRegister(g)
	return prometheus.Gatherers{r.reg, extra}
}
