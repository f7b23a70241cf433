package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/recovery"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"
)

// The alerting rules and the dashboard under deploy/ may name only metrics
// ilmctl exports: a renamed or dropped metric would otherwise leave an
// alert that never fires and a panel that stays empty, silently. The
// promtool unit tests beside the rules cannot see this: they feed the
// rules whatever series they name.
const (
	rulesFile     = "../../deploy/prometheus/ilmctl-rules.yml"
	rulesTestFile = "../../deploy/prometheus/ilmctl-rules_test.yml"
	dashboardFile = "../../deploy/grafana/ilmctl-dashboard.json"
)

// exportedNames is every series name ilmctl writes: the families a daily
// pass and a recovery scan gather once every vector has a child, with a
// histogram's or summary's _bucket/_sum/_count series.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	run := record(pass(dailyrun.StatusOK), end1, 0, 20*time.Millisecond)
	rec := NewRecovery()
	c := &recovery.Control{Protocol: recovery.ProtoJournal, Classification: recovery.OperatorRequired,
		FirstSeenAtUnixNanos: runNow.Add(-time.Hour).UnixNano(),
		Observed:             recovery.Generation{SourceSchema: "v1", Copies: []recovery.Copy{{Pool: "pool:a"}}}}
	rec.RecordScan(&recovery.ScanReport{Controls: []*recovery.Control{c},
		Items: []recovery.ScanItem{{Protocol: recovery.ProtoJournal, Attempt: recovery.AttemptFailure}}}, runNow)
	rec.RecordAction(string(recovery.ProtoJournal), "inspect", "ok")

	names := map[string]bool{}
	for _, g := range []prometheus.Gatherer{run.gatherer(0, false), rec.reg} {
		mfs, err := g.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			names[mf.GetName()] = true
			switch mf.GetType() {
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
				names[mf.GetName()+"_bucket"] = true
				fallthrough
			case dto.MetricType_SUMMARY:
				names[mf.GetName()+"_sum"] = true
				names[mf.GetName()+"_count"] = true
			}
		}
	}
	// Guard against a fixture that leaves a vector without children, which
	// gathers as no family at all.
	for _, want := range []string{LastSuccess, DispatchTotal, LimiterWait + "_bucket", RecoveryRecords, RecoveryAttempts, RecoveryOperatorActions} {
		if !names[want] {
			t.Fatalf("the fixture does not export %s; exported: %v", want, slices.Sorted(maps.Keys(names)))
		}
	}
	return names
}

// PromQL metric names are found without a PromQL parser (the one in
// github.com/prometheus/prometheus would pull that whole module in): the
// parts of an expression that cannot hold one are removed (string
// literals, Grafana variables, {label matchers}, [ranges] and the label
// lists of by/without/on/ignoring/group_left/group_right), then every
// identifier that is not a keyword and is not followed by "(" (a function
// or aggregation) is a metric name. Numbers and durations are consumed as
// tokens of their own so "1e9" or "49h" yield no identifier. A selector
// by {__name__=...} is refused rather than skipped.
var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	grafanaVar   = regexp.MustCompile(`\$\{[^}]*\}|\$\w+`)
	promMatchers = regexp.MustCompile(`\{[^{}]*\}`)
	promRange    = regexp.MustCompile(`\[[^\[\]]*\]`)
	promGrouping = regexp.MustCompile(`(?i)\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	promToken    = regexp.MustCompile(`[0-9.][0-9A-Za-z_.]*|[A-Za-z_:][A-Za-z0-9_:]*`)
	promKeywords = map[string]bool{"and": true, "or": true, "unless": true, "by": true, "without": true, "on": true,
		"ignoring": true, "group_left": true, "group_right": true, "offset": true, "bool": true, "inf": true, "nan": true}
	labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$`)
)

func metricNames(expr string) ([]string, error) {
	if strings.Contains(expr, "__name__") {
		return nil, errUnsupported
	}
	s := promString.ReplaceAllString(expr, " ")
	s = grafanaVar.ReplaceAllString(s, " ")
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRange.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	var names []string
	for _, loc := range promToken.FindAllStringIndex(s, -1) {
		tok := s[loc[0]:loc[1]]
		if tok[0] >= '0' && tok[0] <= '9' || tok[0] == '.' || promKeywords[strings.ToLower(tok)] {
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(s[loc[1]:], " \t\n"), "(") {
			continue
		}
		if !slices.Contains(names, tok) {
			names = append(names, tok)
		}
	}
	return names, nil
}

var errUnsupported = errors.New("a {__name__=...} selector: name the metric before the braces")

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (outcome) (s3_x_total{outcome=~"STUCK|ERROR", instance=~"$instance"}) > 0`:        {"s3_x_total"},
		`(time() - a_ns / 1e9 > 92 * 86400) and a_ns > 0`:                                         {"a_ns"},
		`min_over_time(x{status="incomplete"}[49h]) == 1 and present_over_time(x[1h] offset 48h)`: {"x"},
		`label_replace(a > 0, "kind", "corrupt_records", "", "")`:                                 {"a"},
		`histogram_quantile(0.99, sum by (instance, le) (h_bucket[$__rate_interval]))`:            {"h_bucket"},
		"(x unless y)\nunless ignoring(status) (z{status=\"incomplete\"} == 1)":                   {"x", "y", "z"},
		`a OR on(job) group_left(foo) b`:                                                          {"a", "b"},
		`sum(a) without (shard)`:                                                                  {"a"},
	} {
		got, err := metricNames(expr)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("metricNames(%q) = %q, %v; want %q", expr, got, err, want)
		}
	}
	if _, err := metricNames(`{__name__="a"}`); err == nil {
		t.Error("a __name__ selector was accepted")
	}
}

// ruleFile is the Prometheus rule file format, decoded strictly so a
// misspelt key (say "anotations") fails here rather than in Prometheus.
type ruleFile struct {
	Groups []struct {
		Name     string `yaml:"name"`
		Interval string `yaml:"interval"`
		Rules    []struct {
			Alert         string            `yaml:"alert"`
			Record        string            `yaml:"record"`
			Expr          string            `yaml:"expr"`
			For           string            `yaml:"for"`
			KeepFiringFor string            `yaml:"keep_firing_for"`
			Labels        map[string]string `yaml:"labels"`
			Annotations   map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func decodeYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
}

func checkExpr(t *testing.T, where, expr string, exported map[string]bool) int {
	t.Helper()
	names, err := metricNames(expr)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return 0
	}
	if len(names) == 0 {
		t.Errorf("%s: no metric name found in %q", where, expr)
	}
	for _, n := range names {
		if !exported[n] {
			t.Errorf("%s: %s is not a metric ilmctl exports", where, n)
		}
	}
	return len(names)
}

func TestAlertRulesUseExportedMetrics(t *testing.T) {
	exported := exportedNames(t)
	var rf ruleFile
	decodeYAML(t, rulesFile, &rf)
	alerts := map[string]bool{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			where := g.Name + "/" + r.Alert + r.Record
			checkExpr(t, where, r.Expr, exported)
			if r.Alert == "" {
				continue
			}
			alerts[r.Alert] = true
			if s := r.Labels["severity"]; s != "critical" && s != "warning" && s != "info" {
				t.Errorf("%s: severity %q, want critical, warning or info", where, s)
			}
			// The description tells the operator which command to run.
			if r.Annotations["summary"] == "" || !strings.Contains(r.Annotations["description"], "`ilmctl ") {
				t.Errorf("%s: needs a summary and a description naming an `ilmctl ...` command", where)
			}
		}
	}
	if len(alerts) == 0 {
		t.Fatal("no alerts in " + rulesFile)
	}

	// Every alert has a promtool unit test in which it fires.
	var tf struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	data, err := os.ReadFile(rulesTestFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &tf); err != nil {
		t.Fatal(err)
	}
	fires := map[string]bool{}
	for _, tc := range tf.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			}
		}
	}
	for a := range alerts {
		if !fires[a] {
			t.Errorf("%s: no test in %s expects it to fire", a, filepath.Base(rulesTestFile))
		}
	}
}

func TestDashboardUsesExportedMetrics(t *testing.T) {
	exported := exportedNames(t)
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", filepath.Base(dashboardFile), err)
	}
	found := 0
	// Every "expr" anywhere (panels, rows' panels) is PromQL.
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if s, ok := c.(string); ok && k == "expr" {
					found += checkExpr(t, path, s, exported)
				}
				walk(path+"."+k, c)
			}
		case []any:
			for i, c := range v {
				walk(path+"["+strconv.Itoa(i)+"]", c)
			}
		}
	}
	walk("dashboard", dash["panels"])
	// Template variables query label_values(METRIC_SELECTOR, label).
	templating, _ := dash["templating"].(map[string]any)
	vars, _ := templating["list"].([]any)
	for _, v := range vars {
		v, _ := v.(map[string]any)
		q := v["query"]
		if m, ok := q.(map[string]any); ok {
			q = m["query"]
		}
		if s, ok := q.(string); ok && v["type"] == "query" {
			m := labelValues.FindStringSubmatch(s)
			if m == nil {
				t.Errorf("variable %v: query %q is not label_values(metric, label)", v["name"], s)
				continue
			}
			found += checkExpr(t, "variable "+v["name"].(string), m[1], exported)
		}
	}
	if found < 20 {
		t.Errorf("only %d metric references found in the dashboard: is the walk missing its panels?", found)
	}
}
