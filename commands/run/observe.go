package run

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/internal/metrics"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/pflag"
)

// observeFlags are what a cron job watches a pass with: metrics sinks and
// the live progress line (docs/metrics.md).
type observeFlags struct {
	textfile    string
	pushgateway string
	instance    string
	quiet       bool
}

func (f *observeFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.textfile, "metrics-textfile", "", "after the pass, write its metrics to this *.prom file for node_exporter's textfile collector (atomically, mode 0644)")
	fs.StringVar(&f.pushgateway, "pushgateway", "", "after the pass, push its metrics to this Prometheus Pushgateway URL (job ilmctl_run)")
	fs.StringVar(&f.instance, "pushgateway-instance", "", "instance grouping label of the push (default: this host's name)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line on stderr (drawn only on a terminal, and never with -o json or jsonl)")
}

// sinks validates the metrics flags before anything runs, so a bad flag
// stops the run with exit 2 and writes nothing.
func (f observeFlags) sinks(dryRun bool, stderr io.Writer) (metrics.Sinks, error) {
	s := metrics.Sinks{Textfile: f.textfile, Pushgateway: f.pushgateway, Instance: f.instance,
		Warn: func(msg string) { fmt.Fprintf(stderr, "ilmctl: metrics: %s\n", msg) }}
	if f.instance != "" && f.pushgateway == "" {
		return s, cmdutil.Usage("--pushgateway-instance needs --pushgateway")
	}
	if !s.Enabled() {
		return s, nil
	}
	if dryRun {
		return s, cmdutil.Usage("--metrics-textfile and --pushgateway record real passes: a --dry-run's metrics would replace the last real pass's")
	}
	if f.textfile != "" {
		if filepath.Ext(f.textfile) != ".prom" {
			return s, cmdutil.Usage("--metrics-textfile %q: node_exporter's textfile collector reads only files named *.prom (example: /var/lib/node_exporter/textfile/ilmctl.prom)", f.textfile)
		}
		if fi, err := os.Stat(filepath.Dir(f.textfile)); err != nil || !fi.IsDir() {
			return s, cmdutil.Usage("--metrics-textfile %q: directory %s does not exist", f.textfile, filepath.Dir(f.textfile))
		}
	}
	if f.pushgateway != "" {
		raw := f.pushgateway
		if !strings.Contains(raw, "://") {
			raw = "http://" + raw // as the push client reads it
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, cmdutil.Usage("--pushgateway %q is not an http(s) URL (example: http://pushgateway:9091)", f.pushgateway)
		}
		if s.Instance == "" {
			host, err := os.Hostname()
			if err != nil || host == "" {
				return s, cmdutil.Usage("--pushgateway: this host's name is unknown (%v); give --pushgateway-instance", err)
			}
			s.Instance = host
		}
	}
	return s, nil
}

// observer is one pass's metrics recorder and progress line, each nil
// when not asked for.
type observer struct {
	sinks    metrics.Sinks
	rec      *metrics.Recorder
	progress func() // stops and clears the progress line
}

// observe hooks the metrics recorder and the progress line into cfg
// before the pass.
func (o *options) observe(cfg *dailyrun.Config, sinks metrics.Sinks, format render.Format, stderr io.Writer) *observer {
	obs := &observer{sinks: sinks, progress: func() {}}
	if sinks.Enabled() {
		obs.rec = metrics.New()
		cfg.OnLimiterWait = obs.rec.ObserveLimiterWait
	}
	if wantProgress(o.terminal(stderr), o.obsFlags.quiet, format) {
		cfg.Progress = &dailyrun.Progress{}
		ticks, stopTicks := o.ticker()
		stop := startProgress(stderr, cfg.Progress, o.runtime, time.Now(), cmdutil.Width(stderr), o.dryRun, ticks)
		obs.progress = func() {
			stopTicks()
			stop()
		}
	}
	return obs
}

// stopProgress clears the progress line; call it before anything else is
// printed on stderr.
func (obs *observer) stopProgress() {
	obs.progress()
	obs.progress = func() {}
}

// write records the pass and writes its metrics: a pass that failed
// writes them too. The command's context may be cancelled already (Ctrl-C
// ended the pass); the push still goes out, bounded by its own timeout.
func (obs *observer) write(ctx context.Context, res *dailyrun.Result) error {
	if obs.rec == nil {
		return nil
	}
	obs.rec.Record(res, time.Now())
	return obs.sinks.Write(context.WithoutCancel(ctx), obs.rec)
}

// metricsError is what becomes of a metrics write that failed: the error
// of a run that would otherwise exit 0 (exit 1), else a line on stderr
// beside the exit code the pass earned (3 incomplete, 4 rejected
// configuration), which says more.
func metricsError(err error, res *dailyrun.Result, rep render.RunReport, stderr io.Writer) error {
	if err == nil {
		return nil
	}
	if !res.Unfinished() && len(rep.BucketErrors) == 0 {
		return fmt.Errorf("pass ok, but its metrics were not written: %w", err)
	}
	fmt.Fprintf(stderr, "ilmctl: metrics not written: %v\n", err)
	return nil
}
