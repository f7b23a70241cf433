package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func parseMetrics(t *testing.T, r io.Reader) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		t.Fatalf("metrics do not parse: %v", err)
	}
	return mfs
}

// series maps each sample of name to its value, keyed by its label values
// joined with "/" in label-name order ("" without labels).
func series(mfs map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range mfs[name].GetMetric() {
		var key []string
		for _, l := range m.GetLabel() {
			key = append(key, l.GetValue())
		}
		v := m.GetGauge().GetValue()
		if m.GetCounter() != nil {
			v = m.GetCounter().GetValue()
		}
		out[strings.Join(key, "/")] = v
	}
	return out
}

type passReport struct {
	Status string
	Shards []struct {
		Shard         int
		CursorTsNs    int64 `json:"cursor_ts_ns"`
		LastWalkedNs  int64 `json:"last_walked_ns"`
		EventsScanned int64 `json:"events_scanned"`
	}
	Actions []struct{ Bucket, Kind, Outcome string }
}

// The textfile of a pass on the embedded filer carries that pass's own
// numbers, the ones its JSON report gives: per shard the cursor, the last
// walk and the events replayed, per bucket, kind and outcome the
// dispatches. A pass that then fails rewrites the file with its status and
// keeps the last success.
func TestRunMetricsTextfile(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	prom := filepath.Join(t.TempDir(), "ilmctl.prom")

	stdout, stderr, code := execute(t, "run", "--filer", dir, "--now", "2026-11-30T00:00:00Z", "-o", "json", "--metrics-textfile", prom)
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	var rep passReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(prom)
	if err != nil {
		t.Fatal(err)
	}
	mfs := parseMetrics(t, f)
	f.Close()

	cursor, walked, events := series(mfs, "s3_lifecycle_cursor_min_ts_ns"), series(mfs, "s3_lifecycle_daily_run_last_walked_ns"), series(mfs, "s3_lifecycle_daily_run_events_scanned_total")
	if len(rep.Shards) != 16 || len(cursor) != 16 || len(walked) != 16 || len(events) != 16 || len(series(mfs, "s3_lifecycle_daily_run_shard_duration_seconds")) != 16 {
		t.Fatalf("%d shards in the report; per-shard series: %d cursors, %d walks, %d event counts", len(rep.Shards), len(cursor), len(walked), len(events))
	}
	for _, s := range rep.Shards {
		id := strconv.Itoa(s.Shard)
		if cursor[id] != float64(s.CursorTsNs) || walked[id] != float64(s.LastWalkedNs) || events[id] != float64(s.EventsScanned) {
			t.Errorf("shard %s: metrics cursor %v walked %v events %v; report %d %d %d",
				id, cursor[id], walked[id], events[id], s.CursorTsNs, s.LastWalkedNs, s.EventsScanned)
		}
	}
	want := map[string]float64{}
	for _, a := range rep.Actions {
		want[a.Bucket+"/"+a.Kind+"/"+a.Outcome]++
	}
	dispatch := series(mfs, "s3_lifecycle_dispatch_total")
	if len(dispatch) != len(want) {
		t.Errorf("dispatch_total %v, report %v", dispatch, want)
	}
	for k, v := range want {
		if dispatch[k] != v {
			t.Errorf("dispatch_total{%s} = %v, report %v", k, dispatch[k], v)
		}
	}
	// The pass's known numbers (TestRunEndToEnd): the legal hold and the
	// retention of bucket lock each skip one noncurrent version.
	if got := dispatch["lock/NoncurrentDays/SKIPPED_OBJECT_LOCK"]; got != 2 {
		t.Errorf("SKIPPED_OBJECT_LOCK = %v, want 2", got)
	}
	status := series(mfs, "ilmctl_daily_run_status")
	if status["ok"] != 1 || status["halted"]+status["error"]+status["cancelled"] != 0 {
		t.Errorf("status %v, want ok", status)
	}
	success := series(mfs, "ilmctl_daily_run_last_success_timestamp_seconds")[""]
	if success == 0 || success != series(mfs, "ilmctl_daily_run_last_run_timestamp_seconds")[""] {
		t.Errorf("last success %v, last run %v: want the same, set", success, series(mfs, "ilmctl_daily_run_last_run_timestamp_seconds")[""])
	}
	if fi, err := os.Stat(prom); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("textfile mode %v (%v), want 0644", fi.Mode().Perm(), err)
	}

	// A pass out of time before it starts: exit 3, metrics still written.
	_, stderr, code = execute(t, "run", "--filer", dir, "--now", "2026-12-01T00:00:00Z", "-runtime", "1ns", "--metrics-textfile", prom)
	if code != cmdutil.ExitIncomplete {
		t.Fatalf("run -runtime 1ns exit %d, want 3: %s", code, stderr)
	}
	f, err = os.Open(prom)
	if err != nil {
		t.Fatal(err)
	}
	mfs = parseMetrics(t, f)
	f.Close()
	if status := series(mfs, "ilmctl_daily_run_status"); status["ok"] != 0 {
		t.Errorf("failed pass: status %v", status)
	}
	if got := series(mfs, "ilmctl_daily_run_last_success_timestamp_seconds")[""]; got != success {
		t.Errorf("failed pass: last success %v, want %v carried over", got, success)
	}
	if got := series(mfs, "ilmctl_daily_run_last_run_timestamp_seconds")[""]; got < success {
		t.Errorf("failed pass: last run %v before the last success %v", got, success)
	}
}

// Bad metrics flags stop the run before the pass, with exit 2, and write
// nothing.
func TestRunMetricsFlagErrors(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	before := remaining(t, dir)
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--metrics-textfile", filepath.Join(out, "ilmctl.txt")}, "*.prom"},
		{[]string{"--metrics-textfile", filepath.Join(out, "missing", "ilmctl.prom")}, "does not exist"},
		{[]string{"--metrics-textfile", filepath.Join(out, "ilmctl.prom"), "--dry-run"}, "--dry-run"},
		{[]string{"--pushgateway-instance", "h"}, "needs --pushgateway"},
		{[]string{"--pushgateway", "ftp://gw:9091"}, "not an http(s) URL"},
	} {
		args := append([]string{"run", "--filer", dir, "--now", "2026-11-30T00:00:00Z"}, tc.args...)
		_, stderr, code := execute(t, args...)
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d stderr %q, want exit 2 mentioning %q", tc.args, code, stderr, tc.msg)
		}
		if strings.Contains(stderr, "daily_run:") {
			t.Errorf("%v: a pass ran", tc.args)
		}
	}
	if es, _ := os.ReadDir(out); len(es) != 0 {
		t.Errorf("bad flags wrote %d files", len(es))
	}
	if got := remaining(t, dir); len(got) != len(before) {
		t.Errorf("bad flags changed the filer: %d versions and uploads left of %d", len(got), len(before))
	}
}

// --pushgateway replaces the group job="ilmctl_run",instance=<instance>
// with the pass's metrics.
func TestRunMetricsPushgateway(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	var mu sync.Mutex
	var paths []string
	var fams map[string]*dto.MetricFamily
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, req.Method+" "+req.URL.Path)
		fams = map[string]*dto.MetricFamily{}
		dec := expfmt.NewDecoder(req.Body, expfmt.ResponseFormat(req.Header))
		for {
			mf := &dto.MetricFamily{}
			if err := dec.Decode(mf); err != nil {
				if !errors.Is(err, io.EOF) {
					http.Error(w, err.Error(), http.StatusBadRequest)
				}
				return
			}
			fams[mf.GetName()] = mf
		}
	}))
	defer srv.Close()
	_, stderr, code := execute(t, "run", "--filer", dir, "--now", "2026-11-30T00:00:00Z", "--pushgateway", srv.URL, "--pushgateway-instance", "cron-host")
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "PUT /metrics/job/ilmctl_run/instance/cron-host" {
		t.Fatalf("requests %v, want one PUT /metrics/job/ilmctl_run/instance/cron-host", paths)
	}
	if got := series(fams, "s3_lifecycle_dispatch_total")["lock/NoncurrentDays/SKIPPED_OBJECT_LOCK"]; got != 2 {
		t.Errorf("pushed SKIPPED_OBJECT_LOCK = %v, want 2", got)
	}
	if got := series(fams, "ilmctl_daily_run_status")["ok"]; got != 1 {
		t.Errorf("pushed status ok = %v", got)
	}
}

// A pass whose metrics cannot be pushed exits 1 after its report, naming
// the sink.
func TestRunMetricsPushFails(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "full", http.StatusInsufficientStorage)
	}))
	defer srv.Close()
	stdout, stderr, code := execute(t, "run", "--filer", dir, "--now", "2026-11-30T00:00:00Z", "--pushgateway", srv.URL, "--pushgateway-instance", "h")
	if code != cmdutil.ExitFailure || !strings.Contains(stderr, "metrics were not written") || !strings.Contains(stderr, "--pushgateway "+srv.URL) {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "Shards") {
		t.Errorf("no report on stdout: %q", stdout)
	}
}
