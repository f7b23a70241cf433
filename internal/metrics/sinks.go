package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/internal/atomicfile"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Job is the Pushgateway job label of every push.
const Job = "ilmctl_run"

// TextfileMode is the textfile's mode: node_exporter usually runs as
// another user.
const TextfileMode fs.FileMode = 0o644

// pushTimeout bounds each Pushgateway request when Sinks.Client is nil.
const pushTimeout = 30 * time.Second

// Sinks are where Write sends a pass's metrics.
type Sinks struct {
	// Textfile is a file for node_exporter's textfile collector
	// (--collector.textfile.directory), "" for none.
	Textfile string
	// Pushgateway is a Pushgateway's base URL, "" for none.
	Pushgateway string
	// Instance is the Pushgateway grouping label instance: the push
	// replaces job="ilmctl_run",instance=Instance.
	Instance string
	// Client makes the Pushgateway requests; nil uses one with a 30s
	// timeout.
	Client *http.Client
	// Warn receives what went wrong without failing the write (the
	// previous last-success timestamp could not be read); nil drops it.
	Warn func(msg string)
}

// Enabled reports whether any sink is set.
func (s Sinks) Enabled() bool { return s.Textfile != "" || s.Pushgateway != "" }

// Write sends r's metrics to every sink set; a failed sink does not stop
// the other, and the error names each that failed.
func (s Sinks) Write(ctx context.Context, r *Recorder) error {
	var errs []error
	if s.Textfile != "" {
		if err := s.writeTextfile(r); err != nil {
			errs = append(errs, fmt.Errorf("--metrics-textfile %s: %w", s.Textfile, err))
		}
	}
	if s.Pushgateway != "" {
		if err := s.push(ctx, r); err != nil {
			errs = append(errs, fmt.Errorf("--pushgateway %s: %w", s.Pushgateway, err))
		}
	}
	return errors.Join(errs...)
}

func (s Sinks) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(fmt.Sprintf(format, args...))
	}
}

// writeTextfile replaces the textfile atomically (a scrape reads the old
// file or the new one, never part of one) with mode TextfileMode.
func (s Sinks) writeTextfile(r *Recorder) error {
	var prev float64
	var ok bool
	if !r.succeeded {
		var err error
		if prev, ok, err = previousTextfile(s.Textfile); err != nil {
			s.warn("%s: the previous %s is unreadable, so this file has none: %v", s.Textfile, LastSuccess, err)
		}
	}
	data, err := encodeText(r.gatherer(prev, ok))
	if err != nil {
		return err
	}
	return atomicfile.WriteFileMode(s.Textfile, data, TextfileMode)
}

// previousTextfile reads the last-success timestamp from the textfile a
// pass is about to replace; a missing file has none (a first pass).
func previousTextfile(path string) (float64, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	return previousSuccess(f, nil)
}

// push replaces the Pushgateway group job="ilmctl_run",instance=Instance
// with r's metrics (HTTP PUT): series of an earlier pass that this one no
// longer has (a shard not run, a bucket without dispatches) do not linger.
func (s Sinks) push(ctx context.Context, r *Recorder) error {
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: pushTimeout}
	}
	var prev float64
	var ok bool
	if !r.succeeded {
		var err error
		if prev, ok, err = s.previousPushed(ctx, client); err != nil {
			s.warn("%s: the previous %s could not be read, so this push has none: %v", s.Pushgateway, LastSuccess, err)
		}
	}
	return push.New(s.Pushgateway, Job).Grouping("instance", s.Instance).
		Gatherer(r.gatherer(prev, ok)).Client(client).PushContext(ctx)
}

// previousPushed reads the group's last-success timestamp from the
// Pushgateway's own exposition, GET <url>/metrics, before a push that
// would otherwise drop it.
func (s Sinks) previousPushed(ctx context.Context, client *http.Client) (float64, bool, error) {
	base := s.Pushgateway
	if !strings.Contains(base, "://") {
		base = "http://" + base // as push.New reads it
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/metrics", nil)
	if err != nil {
		return 0, false, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := client.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, false, fmt.Errorf("GET %s: %s", req.URL, resp.Status)
	}
	return previousSuccess(resp.Body, map[string]string{"job": Job, "instance": s.Instance})
}

// previousSuccess finds the last-success sample in a text exposition whose
// labels include every pair of match.
func previousSuccess(in io.Reader, match map[string]string) (float64, bool, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(in)
	if err != nil {
		return 0, false, err
	}
	mf := mfs[LastSuccess]
	if mf == nil {
		return 0, false, nil
	}
	for _, m := range mf.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		all := true
		for k, v := range match {
			all = all && labels[k] == v
		}
		if all && m.GetGauge() != nil {
			return m.GetGauge().GetValue(), true, nil
		}
	}
	return 0, false, nil
}

// encodeText renders g in the Prometheus text format, families sorted by
// name as Gather returns them.
func encodeText(g prometheus.Gatherer) ([]byte, error) {
	mfs, err := g.Gather()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
