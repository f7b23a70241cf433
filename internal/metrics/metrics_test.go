package metrics

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var (
	runNow = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	end1   = time.Date(2026, 11, 30, 0, 0, 7, 0, time.UTC)
	end2   = time.Date(2026, 12, 1, 0, 1, 0, 500_000_000, time.UTC)
)

// pass is a two-shard result: shard 3 ok with a cursor and a walk, shard
// 12 halted on a STUCK delete without a cursor, 2 of its recovery walk's
// 5 buckets done.
func pass(status dailyrun.ShardStatus) *dailyrun.Result {
	return &dailyrun.Result{
		RunNow:   runNow,
		Duration: 7 * time.Second,
		Shards: []dailyrun.ShardResult{
			{Shard: 3, Status: dailyrun.StatusOK, EventsScanned: 42, Duration: 5 * time.Second,
				Cursor: dailyrun.Cursor{TsNs: runNow.UnixNano(), LastWalkedNs: runNow.Add(-time.Hour).UnixNano()},
				Walk:   dailyrun.WalkSteadyState, WalkKeys: 250, WalkBucketsDone: 3, WalkBuckets: 3},
			{Shard: 12, Status: status, EventsScanned: 1, Duration: 6500 * time.Millisecond,
				Walk: dailyrun.WalkRecovery, WalkKeys: 4096, WalkBucketsDone: 2, WalkBuckets: 5},
		},
		Buckets: []dailyrun.BucketKindCounts{
			{Bucket: "logs", Kind: lifecycle.AbortMPU, Outcomes: map[filer.Outcome]int64{"NOOP_RESOLVED": 1}},
			{Bucket: "logs", Kind: lifecycle.ExpirationDays, Outcomes: map[filer.Outcome]int64{"DONE": 2}},
			{Bucket: "ver", Kind: lifecycle.NoncurrentDays, Outcomes: map[filer.Outcome]int64{"STUCK": 1}},
		},
		Notices:          []dailyrun.Notice{{Kind: dailyrun.NoticeAmbiguousLayout, Shard: 3, Bucket: "ver", Key: "k"}},
		AmbiguousSinceNs: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).UnixNano(),
	}
}

func record(res *dailyrun.Result, end time.Time, bucketErrs int, waits ...time.Duration) *Recorder {
	r := New()
	for _, w := range waits {
		r.ObserveLimiterWait(w)
	}
	res.RejectedBuckets = bucketErrs
	r.Record(res, end)
	return r
}

// The textfile of a pass that succeeded, in full: every metric with the
// pass's numbers, families sorted by name.
const okTextfile = `# HELP ilmctl_daily_run_ambiguous_keys Keys the last pass left alone for an ambiguous layout: those it met and those still on its shards' lists (the heartbeat's ambiguous=).
# TYPE ilmctl_daily_run_ambiguous_keys gauge
ilmctl_daily_run_ambiguous_keys 1
# HELP ilmctl_daily_run_ambiguous_keys_first_seen_timestamp_seconds When the longest-standing of those keys was first found ambiguous, Unix seconds; 0 when there is none.
# TYPE ilmctl_daily_run_ambiguous_keys_first_seen_timestamp_seconds gauge
ilmctl_daily_run_ambiguous_keys_first_seen_timestamp_seconds 1.795824e+09
# HELP ilmctl_daily_run_bucket_errors Buckets whose lifecycle configuration the last pass rejected; they got no action.
# TYPE ilmctl_daily_run_bucket_errors gauge
ilmctl_daily_run_bucket_errors 0
# HELP ilmctl_daily_run_duration_seconds Wall-clock seconds of the last pass.
# TYPE ilmctl_daily_run_duration_seconds gauge
ilmctl_daily_run_duration_seconds 7
# HELP ilmctl_daily_run_errors The last pass's heartbeat errors=: what did not end ok.
# TYPE ilmctl_daily_run_errors gauge
ilmctl_daily_run_errors 0
# HELP ilmctl_daily_run_last_run_timestamp_seconds When the last pass ended, Unix seconds, whatever its status.
# TYPE ilmctl_daily_run_last_run_timestamp_seconds gauge
ilmctl_daily_run_last_run_timestamp_seconds 1.795996807e+09
# HELP ilmctl_daily_run_last_success_timestamp_seconds When the last successful pass (exit 0) ended, Unix seconds; a pass that fails carries it over.
# TYPE ilmctl_daily_run_last_success_timestamp_seconds gauge
ilmctl_daily_run_last_success_timestamp_seconds 1.795996807e+09
# HELP ilmctl_daily_run_notices_total What the last pass saw and deliberately did not act on, by notice kind (ambiguous_layout: a key whose layout or version order is ambiguous, left alone; ambiguous_list_unreadable: a shard's list of such keys that could not be read or saved; transition_not_executed: a transition action, which ilmctl does not run; conditional_delete_unproven: an s3:// pass without --check-cas).
# TYPE ilmctl_daily_run_notices_total counter
ilmctl_daily_run_notices_total{kind="ambiguous_layout"} 1
# HELP ilmctl_daily_run_status 1 for the last pass's status (ok, leased: another host held some of its shards and ran them, incomplete: -runtime ended it, cancelled: a signal did, halted, error), 0 for the others.
# TYPE ilmctl_daily_run_status gauge
ilmctl_daily_run_status{status="cancelled"} 0
ilmctl_daily_run_status{status="error"} 0
ilmctl_daily_run_status{status="halted"} 0
ilmctl_daily_run_status{status="incomplete"} 0
ilmctl_daily_run_status{status="leased"} 0
ilmctl_daily_run_status{status="ok"} 1
# HELP ilmctl_daily_run_walk_buckets Buckets the shard's walk in the last pass covers; 0 when it did not walk.
# TYPE ilmctl_daily_run_walk_buckets gauge
ilmctl_daily_run_walk_buckets{shard="12"} 5
ilmctl_daily_run_walk_buckets{shard="3"} 3
# HELP ilmctl_daily_run_walk_buckets_done Of those, buckets whose every due action of the shard completed, a continued recovery walk's earlier passes included; below ilmctl_daily_run_walk_buckets: the walk is unfinished.
# TYPE ilmctl_daily_run_walk_buckets_done gauge
ilmctl_daily_run_walk_buckets_done{shard="12"} 2
ilmctl_daily_run_walk_buckets_done{shard="3"} 3
# HELP ilmctl_daily_run_walk_keys Keys of the shard (objects and incomplete uploads) its walk listed in the last pass; 0 when it did not walk.
# TYPE ilmctl_daily_run_walk_keys gauge
ilmctl_daily_run_walk_keys{shard="12"} 4096
ilmctl_daily_run_walk_keys{shard="3"} 250
# HELP s3_lifecycle_cursor_min_ts_ns Shard's replay cursor, Unix ns, as saved by the last pass (or kept from before it); now minus this is the replay lag. 0: no replay cursor (cold, or only walked rules).
# TYPE s3_lifecycle_cursor_min_ts_ns gauge
s3_lifecycle_cursor_min_ts_ns{shard="12"} 0
s3_lifecycle_cursor_min_ts_ns{shard="3"} 1.7959968e+18
# HELP s3_lifecycle_daily_run_events_scanned_total Meta-log events the shard's replay decided in the last pass.
# TYPE s3_lifecycle_daily_run_events_scanned_total counter
s3_lifecycle_daily_run_events_scanned_total{shard="12"} 1
s3_lifecycle_daily_run_events_scanned_total{shard="3"} 42
# HELP s3_lifecycle_daily_run_last_walked_ns When the shard's last completed walk ran, Unix ns of the pass clock; now minus this is walker freshness. 0: never walked.
# TYPE s3_lifecycle_daily_run_last_walked_ns gauge
s3_lifecycle_daily_run_last_walked_ns{shard="12"} 0
s3_lifecycle_daily_run_last_walked_ns{shard="3"} 1.7959932e+18
# HELP s3_lifecycle_daily_run_shard_duration_seconds Wall-clock seconds from the start of the last pass until the shard finished (walk, replay, cursor save).
# TYPE s3_lifecycle_daily_run_shard_duration_seconds gauge
s3_lifecycle_daily_run_shard_duration_seconds{shard="12"} 6.5
s3_lifecycle_daily_run_shard_duration_seconds{shard="3"} 5
# HELP s3_lifecycle_dispatch_limiter_wait_seconds Per-dispatch wait on the cluster rate limiter before a LifecycleDelete in the last pass; no observation when --deletes-per-second is 0 (unlimited).
# TYPE s3_lifecycle_dispatch_limiter_wait_seconds histogram
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="0.0001"} 1
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="0.001"} 1
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="0.01"} 1
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="0.05"} 2
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="0.1"} 2
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="0.25"} 2
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="0.5"} 2
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="1"} 2
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="2.5"} 3
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="5"} 3
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="10"} 3
s3_lifecycle_dispatch_limiter_wait_seconds_bucket{le="+Inf"} 3
s3_lifecycle_dispatch_limiter_wait_seconds_sum 2.02
s3_lifecycle_dispatch_limiter_wait_seconds_count 3
# HELP s3_lifecycle_dispatch_total Actions dispatched in the last pass by bucket, action kind and outcome (DONE, NOOP_RESOLVED, SKIPPED_OBJECT_LOCK, RETRY_LATER, BLOCKED, STUCK, ERROR).
# TYPE s3_lifecycle_dispatch_total counter
s3_lifecycle_dispatch_total{bucket="logs",kind="AbortMPU",outcome="NOOP_RESOLVED"} 1
s3_lifecycle_dispatch_total{bucket="logs",kind="ExpirationDays",outcome="DONE"} 2
s3_lifecycle_dispatch_total{bucket="ver",kind="NoncurrentDays",outcome="STUCK"} 1
`

func TestTextfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ilmctl.prom")
	r := record(pass(dailyrun.StatusOK), end1, 0, 0, 20*time.Millisecond, 2*time.Second)
	if err := (Sinks{Textfile: path}).Write(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(okTextfile, string(got)); diff != "" {
		t.Errorf("textfile (-want +got):\n%s", diff)
	}
	// node_exporter's parser reads it.
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(got))
	if err != nil {
		t.Fatalf("textfile does not parse: %v", err)
	}
	if len(mfs) != 18 {
		t.Errorf("%d metric families, want 18", len(mfs))
	}
}

// sample is the value of name's sample with exactly labels in a text
// exposition; ok is false when there is none.
func sample(t *testing.T, mfs map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	for _, m := range mfs[name].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if len(labels) == 0 && len(got) == 0 || cmp.Equal(got, labels) {
			switch {
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue(), true
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), true
			}
		}
	}
	return 0, false
}

func parseFile(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return mfs
}

// A pass that fails still writes its metrics, with its status, and keeps
// the last success of the file it replaces; so does a pass whose status is
// ok but that rejected a bucket's lifecycle configuration (exit 4). A
// first pass that fails has no last success; a textfile that cannot be
// parsed loses it, with a warning.
func TestTextfileFailedPassCarriesLastSuccess(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "ilmctl.prom")
	var warnings []string
	sinks := Sinks{Textfile: path, Warn: func(m string) { warnings = append(warnings, m) }}

	if err := sinks.Write(context.Background(), record(pass(dailyrun.StatusHalted), end1, 0)); err != nil {
		t.Fatal(err)
	}
	mfs := parseFile(t, path)
	if _, ok := sample(t, mfs, LastSuccess, nil); ok {
		t.Error("a first pass that failed has a last success")
	}

	if err := sinks.Write(context.Background(), record(pass(dailyrun.StatusOK), end1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := sinks.Write(context.Background(), record(pass(dailyrun.StatusHalted), end2, 0)); err != nil {
		t.Fatal(err)
	}
	mfs = parseFile(t, path)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{LastSuccess, nil, 1795996807}, // end1
		{LastRun, nil, 1796083260.5},   // end2
		{Status, map[string]string{"status": "halted"}, 1},
		{Status, map[string]string{"status": "ok"}, 0},
		{Errors, nil, 1},
		{DispatchTotal, map[string]string{"bucket": "ver", "kind": "NoncurrentDays", "outcome": "STUCK"}, 1},
	} {
		if got, ok := sample(t, mfs, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if err := sinks.Write(context.Background(), record(pass(dailyrun.StatusOK), end2, 1)); err != nil {
		t.Fatal(err)
	}
	mfs = parseFile(t, path)
	if got, _ := sample(t, mfs, LastSuccess, nil); got != 1795996807 {
		t.Errorf("after an ok pass with a rejected configuration, last success = %v, want end1 carried over", got)
	}
	if got, _ := sample(t, mfs, BucketErrors, nil); got != 1 {
		t.Errorf("bucket errors = %v, want 1", got)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	// The file is readable by node_exporter's user whatever the umask,
	// and the atomic write left nothing beside it.
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != TextfileMode {
		t.Errorf("mode %v, %v; want %v", fi.Mode().Perm(), err, TextfileMode)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("directory holds %d entries, want only the textfile", len(es))
	}

	if err := os.WriteFile(path, []byte("not { a metric\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sinks.Write(context.Background(), record(pass(dailyrun.StatusError), end2, 0)); err != nil {
		t.Fatal(err)
	}
	if _, ok := sample(t, parseFile(t, path), LastSuccess, nil); ok || len(warnings) != 1 || !strings.Contains(warnings[0], "unreadable") {
		t.Errorf("unparseable previous file: last success present %v, warnings %q", ok, warnings)
	}
}

// A textfile in a directory that does not exist fails the write and names
// the flag.
func TestTextfileError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "ilmctl.prom")
	err := Sinks{Textfile: path}.Write(context.Background(), record(pass(dailyrun.StatusOK), end1, 0))
	if err == nil || !strings.Contains(err.Error(), "--metrics-textfile "+path) {
		t.Fatalf("Write = %v", err)
	}
}

// gateway is a fake Pushgateway: it records each push and serves a fixed
// exposition at /metrics.
type gateway struct {
	mu      sync.Mutex
	exposed string
	gets    int
	pushes  []pushed
}

type pushed struct {
	method, path string
	families     map[string]*dto.MetricFamily
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if req.Method == http.MethodGet && req.URL.Path == "/metrics" {
		g.gets++
		_, _ = io.WriteString(w, g.exposed)
		return
	}
	dec := expfmt.NewDecoder(req.Body, expfmt.ResponseFormat(req.Header))
	fams := map[string]*dto.MetricFamily{}
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); err != nil {
			if !errors.Is(err, io.EOF) {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			break
		}
		fams[mf.GetName()] = mf
	}
	g.pushes = append(g.pushes, pushed{req.Method, req.URL.Path, fams})
	w.WriteHeader(http.StatusOK)
}

// A push replaces the group job="ilmctl_run",instance=<instance> with the
// pass's metrics; a failed pass first reads its group's last success from
// the gateway and pushes it again, not another instance's.
func TestPush(t *testing.T) {
	gw := &gateway{exposed: `# TYPE ilmctl_daily_run_last_success_timestamp_seconds gauge
ilmctl_daily_run_last_success_timestamp_seconds{instance="host-b",job="ilmctl_run"} 1700000000
ilmctl_daily_run_last_success_timestamp_seconds{instance="host-a",job="ilmctl_run"} 1796083207
# TYPE push_time_seconds gauge
push_time_seconds{instance="host-a",job="ilmctl_run"} 1.7e+09
`}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	sinks := Sinks{Pushgateway: srv.URL + "/", Instance: "host-a", Client: srv.Client()}

	if err := sinks.Write(context.Background(), record(pass(dailyrun.StatusOK), end1, 0, time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := sinks.Write(context.Background(), record(pass(dailyrun.StatusCancelled), end2, 0)); err != nil {
		t.Fatal(err)
	}
	if gw.gets != 1 || len(gw.pushes) != 2 {
		t.Fatalf("%d GETs, %d pushes; want 1 GET (for the failed pass), 2 pushes", gw.gets, len(gw.pushes))
	}
	for i, want := range []struct {
		lastSuccess float64
		status      string
		waits       uint64
	}{{1795996807, "ok", 1}, {1796083207, "cancelled", 0}} {
		p := gw.pushes[i]
		if p.method != http.MethodPut || p.path != "/metrics/job/ilmctl_run/instance/host-a" {
			t.Errorf("push %d: %s %s, want PUT /metrics/job/ilmctl_run/instance/host-a", i, p.method, p.path)
		}
		if got, ok := sample(t, p.families, LastSuccess, nil); !ok || got != want.lastSuccess {
			t.Errorf("push %d: last success %v (present %v), want %v", i, got, ok, want.lastSuccess)
		}
		if got, _ := sample(t, p.families, Status, map[string]string{"status": want.status}); got != 1 {
			t.Errorf("push %d: status %s not set", i, want.status)
		}
		if got, _ := sample(t, p.families, DispatchTotal, map[string]string{"bucket": "logs", "kind": "ExpirationDays", "outcome": "DONE"}); got != 2 {
			t.Errorf("push %d: DONE dispatches %v, want 2", i, got)
		}
		if h := p.families[LimiterWait].GetMetric()[0].GetHistogram(); h.GetSampleCount() != want.waits {
			t.Errorf("push %d: %d limiter waits, want %d", i, h.GetSampleCount(), want.waits)
		}
		if len(p.families) != 18 {
			t.Errorf("push %d: %d families, want 18", i, len(p.families))
		}
	}
}

// A gateway that refuses the push fails the write; its last success
// unreadable is only a warning.
func TestPushError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	var warnings []string
	sinks := Sinks{Pushgateway: srv.URL, Instance: "h", Client: srv.Client(), Warn: func(m string) { warnings = append(warnings, m) }}
	err := sinks.Write(context.Background(), record(pass(dailyrun.StatusHalted), end1, 0))
	if err == nil || !strings.Contains(err.Error(), "--pushgateway "+srv.URL) || !strings.Contains(err.Error(), "503") {
		t.Errorf("Write = %v", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "503") {
		t.Errorf("warnings = %q", warnings)
	}
}
