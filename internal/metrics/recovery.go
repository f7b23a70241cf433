package metrics

import (
	"time"

	"github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/internal/atomicfile"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Recovery metric names (docs/design/recovery.md#metrics-and-audit).
const (
	RecoveryRecords         = "ilmctl_ilm_recovery_records"
	RecoveryOldestAge       = "ilmctl_ilm_recovery_oldest_age_seconds"
	RecoveryAttempts        = "ilmctl_ilm_recovery_attempts_total"
	RecoveryOperatorActions = "ilmctl_ilm_recovery_operator_actions_total"
	RecoveryScanComplete    = "ilmctl_ilm_recovery_scan_complete"
	RecoveryCorruptRecords  = "ilmctl_ilm_recovery_corrupt_records"
	RecoveryOrphanControls  = "ilmctl_ilm_recovery_orphan_controls"
	RecoveryCorruptControls = "ilmctl_ilm_recovery_corrupt_controls"
)

// Fallback label values: every label is a closed enum and anything else
// maps to one of these, never to the input text.
const (
	LabelUnknown     = "unknown"
	LabelUnsupported = "unsupported"
)

// knownSchemas are the source schemas a label may show. Recovery
// artifacts' own schemas are recognized but not sources of controls.
var knownSchemas = map[string]string{
	"v1": "v1", "v2": "v2", "v3": "v3", "v4": "v4", "v5": "v5", "v6": "v6",
	"v1 chunked_parent":                         "v1_chunked_parent",
	"rustfs-transition-transaction-v1":          "rustfs-transition-transaction-v1",
	"rustfs-manual-transition-job-v1":           "rustfs-manual-transition-job-v1",
	"rustfs-manual-transition-task-v1":          "rustfs-manual-transition-task-v1",
	"rustfs-manual-transition-worker-result-v1": "rustfs-manual-transition-worker-result-v1",
	// Recognized, but not implemented by any reader here.
	"rustfs-transition-transaction-v2": LabelUnsupported,
}

// SchemaLabel maps a source schema to its bounded label.
func SchemaLabel(s string) string {
	if l, ok := knownSchemas[s]; ok {
		return l
	}
	return LabelUnknown
}

// ProtocolLabel maps a protocol to its bounded label.
func ProtocolLabel(p string) string {
	if _, err := recovery.ParseProtocol(p); err == nil {
		return p
	}
	return LabelUnknown
}

// ClassificationLabel maps a classification to its bounded label.
func ClassificationLabel(c string) string {
	if recovery.Classification(c).Valid() {
		return c
	}
	return LabelUnknown
}

// ErrorCodeLabel maps an error code to its bounded label.
func ErrorCodeLabel(c string) string {
	if recovery.ErrorCode(c).Valid() {
		return c
	}
	return LabelUnknown
}

var attemptOutcomes = map[string]bool{
	string(recovery.AttemptSuccess): true, string(recovery.AttemptFailure): true,
	string(recovery.AttemptEscalate): true, string(recovery.AttemptClassify): true,
}

// ActionLabels and OutcomeLabels are the operator-action label values.
var (
	ActionLabels  = map[string]bool{"scan": true, "inspect": true, "export": true, "export_get": true, "abandon": true, "abandon_dry_run": true, "retry": true, "prune": true}
	OutcomeLabels = map[string]bool{"ok": true, "refused": true, "conflict": true, "incomplete": true, "capacity": true, "error": true}
)

func closed(set map[string]bool, v string) string {
	if set[v] {
		return v
	}
	return LabelUnknown
}

// Recovery holds one recovery command's metrics.
type Recovery struct {
	reg                                  *prometheus.Registry
	records, oldest                      *prometheus.GaugeVec
	attempts, actions                    *prometheus.CounterVec
	complete, corrupt, orphans, badCtrls prometheus.Gauge
}

// NewRecovery returns an empty recorder (its own registry).
func NewRecovery() *Recovery {
	r := &Recovery{reg: prometheus.NewRegistry()}
	lbl := []string{"protocol", "classification", "schema"}
	r.records = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: RecoveryRecords,
		Help: "Recovery controls by source protocol, classification and source schema; one per canonical source generation, whatever its copy count."}, lbl)
	r.oldest = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: RecoveryOldestAge,
		Help: "Age of the oldest control in the group, seconds since its durable first-seen time."}, lbl)
	r.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: RecoveryAttempts,
		Help: "Recovery attempts this scan counted, once per coordinator attempt."}, []string{"protocol", "outcome", "error_code"})
	r.actions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: RecoveryOperatorActions,
		Help: "Operator recovery actions this command ran, by outcome."}, []string{"protocol", "action", "outcome"})
	r.complete = prometheus.NewGauge(prometheus.GaugeOpts{Name: RecoveryScanComplete,
		Help: "1 when the scan read every pool completely; 0 means the counts are incomplete, not zero."})
	r.corrupt = prometheus.NewGauge(prometheus.GaugeOpts{Name: RecoveryCorruptRecords, Help: "Source records that failed strict decoding."})
	r.orphans = prometheus.NewGauge(prometheus.GaugeOpts{Name: RecoveryOrphanControls, Help: "Non-final controls whose source record is gone."})
	r.badCtrls = prometheus.NewGauge(prometheus.GaugeOpts{Name: RecoveryCorruptControls, Help: "Control records that failed strict decoding."})
	return r
}

// RecordScan sets the scan metrics. Record gauges are published only for a
// complete scan: an incomplete one exports scan_complete 0 and no counts,
// never a false zero.
func (r *Recovery) RecordScan(rep *recovery.ScanReport, now time.Time) {
	r.reg.MustRegister(r.complete, r.attempts)
	for _, it := range rep.Items {
		if it.Attempt != "" {
			r.attempts.WithLabelValues(ProtocolLabel(string(it.Protocol)), closed(attemptOutcomes, string(it.Attempt)), ErrorCodeLabel(string(it.ErrorCode))).Inc()
		}
	}
	if rep.Incomplete {
		r.complete.Set(0)
		return
	}
	r.complete.Set(1)
	r.reg.MustRegister(r.records, r.oldest, r.corrupt, r.orphans, r.badCtrls)
	r.corrupt.Set(float64(rep.CorruptRecords))
	r.orphans.Set(float64(rep.OrphanControls))
	r.badCtrls.Set(float64(rep.CorruptControl))
	for _, c := range rep.Controls {
		l := []string{ProtocolLabel(string(c.Protocol)), ClassificationLabel(string(c.Classification)), SchemaLabel(c.Observed.SourceSchema)}
		r.records.WithLabelValues(l...).Inc()
		age := now.Sub(time.Unix(0, c.FirstSeenAtUnixNanos)).Seconds()
		g := r.oldest.WithLabelValues(l...)
		if cur := gaugeValue(g); age > cur {
			g.Set(age)
		}
	}
}

// RecordAction counts one operator action.
func (r *Recovery) RecordAction(protocol, action, outcome string) {
	if err := r.reg.Register(r.actions); err != nil {
		if _, ok := err.(prometheus.AlreadyRegisteredError); !ok {
			panic(err)
		}
	}
	r.actions.WithLabelValues(ProtocolLabel(protocol), closed(ActionLabels, action), closed(OutcomeLabels, outcome)).Inc()
}

// WriteTextfile replaces path atomically with the recorder's metrics
// (mode TextfileMode).
func (r *Recovery) WriteTextfile(path string) error {
	data, err := encodeText(r.reg)
	if err != nil {
		return err
	}
	return atomicfile.WriteFileMode(path, data, TextfileMode)
}

// Text renders the metrics in the text format (tests).
func (r *Recovery) Text() ([]byte, error) { return encodeText(r.reg) }

func gaugeValue(g prometheus.Gauge) float64 {
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		return 0
	}
	return m.GetGauge().GetValue()
}
