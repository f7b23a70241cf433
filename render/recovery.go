package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/recovery"
)

// ControlRow is one recovery control as 'recovery ls -o json' lists it
// and 'recovery inspect -o json' names it under "control".
type ControlRow struct {
	ControlID               string                  `json:"control_id"`
	Protocol                recovery.Protocol       `json:"protocol"`
	SourcePath              string                  `json:"source_path"`
	SourceSchema            string                  `json:"source_schema"`
	SourceState             string                  `json:"source_state"`
	Classification          recovery.Classification `json:"classification"`
	FirstSeenAt             string                  `json:"first_seen_at"`
	AgeSeconds              int64                   `json:"age_seconds"`
	Revision                uint64                  `json:"revision"`
	AttemptCount            uint64                  `json:"attempt_count"`
	ConsecutiveFailureCount uint64                  `json:"consecutive_failure_count"`
	NextAttemptAt           string                  `json:"next_attempt_at,omitempty"`
	LastErrorCode           recovery.ErrorCode      `json:"last_error_code"`
	Copies                  int                     `json:"copies"`
	ETag                    string                  `json:"etag"`
}

// NewControlRow is c, stored at etag, as seen at at: its age counted from
// its durable first-seen time.
func NewControlRow(c *recovery.Control, etag string, at time.Time) ControlRow {
	r := ControlRow{
		ControlID: c.ID, Protocol: c.Protocol, SourcePath: c.SourcePath, SourceSchema: c.Observed.SourceSchema,
		SourceState: c.Observed.SourceState, Classification: c.Classification,
		FirstSeenAt: time.Unix(0, c.FirstSeenAtUnixNanos).UTC().Format(time.RFC3339), AgeSeconds: int64(at.Sub(time.Unix(0, c.FirstSeenAtUnixNanos)) / time.Second),
		Revision: c.Revision, AttemptCount: c.AttemptCount, ConsecutiveFailureCount: c.ConsecutiveFailureCount,
		LastErrorCode: c.LastErrorCode, Copies: len(c.Observed.Copies), ETag: etag,
	}
	if c.NextAttemptAtUnixNanos != 0 {
		r.NextAttemptAt = time.Unix(0, c.NextAttemptAtUnixNanos).UTC().Format(time.RFC3339)
	}
	return r
}

// RecoveryScan prints the controls 'recovery scan' touched, then counts.
// The table fits width: each control by its short ID (which inspect
// takes), its classification and outcome, and its source record
// shortened in the middle; -o wide adds protocol and attempt outcome,
// with full IDs and paths.
func RecoveryScan(w io.Writer, f Format, rep *recovery.ScanReport, width int) error {
	if f == FormatJSON {
		items := rep.Items
		if items == nil {
			items = []recovery.ScanItem{}
		}
		return JSON(w, map[string]any{
			"items": items, "incomplete": rep.Incomplete, "pool_errors": rep.PoolErrors,
			"corrupt_records": rep.CorruptRecords, "corrupt_controls": rep.CorruptControl, "orphan_controls": rep.OrphanControls,
			"corrupt_dispositions": nonNil(rep.CorruptDispositions),
		})
	}
	wide := f == FormatWide
	ids := make([]string, len(rep.Items))
	paths := make([]string, len(rep.Items))
	for i, it := range rep.Items {
		ids[i], paths[i] = it.ControlID, it.SourcePath
	}
	short := Abbrev(ids, ShortIDLen)
	shortPath := ShortPaths(paths)
	var rows [][]string
	counts := map[recovery.ScanOutcome]int{}
	for _, it := range rep.Items {
		counts[it.Outcome]++
		if wide {
			rows = append(rows, []string{it.ControlID, string(it.Protocol), dash(string(it.Classification)), string(it.Outcome), dash(string(it.Attempt)), it.SourcePath})
		} else {
			rows = append(rows, []string{short[it.ControlID], dash(string(it.Classification)), string(it.Outcome), shortPath(it.SourcePath)})
		}
	}
	header := []string{"CONTROL", "CLASSIFICATION", "OUTCOME", "SOURCE"}
	if wide {
		header = []string{"CONTROL", "PROTOCOL", "CLASSIFICATION", "OUTCOME", "ATTEMPT", "SOURCE"}
	} else {
		rows = FitRowsWith(ShortenPath, header, rows, width, 3)
	}
	if err := Table(w, "Controls", header, rows); err != nil {
		return err
	}
	var sum [][]string
	for _, o := range []recovery.ScanOutcome{recovery.OutcomeCreated, recovery.OutcomeUpdated, recovery.OutcomeUnchanged, recovery.OutcomeDeferred, recovery.OutcomeConflict, recovery.OutcomeIncomplete} {
		if counts[o] > 0 {
			sum = append(sum, []string{string(o), strconv.Itoa(counts[o])})
		}
	}
	sum = append(sum, []string{"corrupt_records", strconv.Itoa(rep.CorruptRecords)}, []string{"orphan_controls", strconv.Itoa(rep.OrphanControls)})
	if rep.CorruptControl > 0 {
		sum = append(sum, []string{"corrupt_controls", strconv.Itoa(rep.CorruptControl)})
	}
	if n := len(rep.CorruptDispositions); n > 0 {
		sum = append(sum, []string{"corrupt_dispositions", strconv.Itoa(n)})
	}
	title := "\nSummary"
	if rep.Incomplete {
		title = "\nSummary (incomplete: not every pool was read)"
	}
	if err := Table(w, title, []string{"", "COUNT"}, sum); err != nil {
		return err
	}
	for _, pe := range rep.PoolErrors {
		if _, err := fmt.Fprintf(w, "pool %s: %s\n", pe.Pool, pe.Error); err != nil {
			return err
		}
	}
	return nil
}

// RecoveryLs prints one page of 'recovery ls' as seen at at; incomplete
// says that unreadable controls or pools (poolErrs) make it short. The
// table fits width: short control IDs, age, time to the next retry and
// the source shortened in the middle; -o wide has every column, full IDs
// and paths.
func RecoveryLs(w io.Writer, f Format, page *recovery.ListPage, poolErrs []string, incomplete bool, at time.Time, width int) error {
	rows := make([]ControlRow, 0, len(page.Controls))
	for _, ctl := range page.Controls {
		rows = append(rows, NewControlRow(ctl, page.ETags[ctl.ID], at))
	}
	if f == FormatJSON {
		return JSON(w, map[string]any{"controls": rows, "next_marker": page.NextMarker, "incomplete": incomplete,
			"corrupt_controls": nonNil(page.BadKeys), "pool_errors": nonNil(poolErrs)})
	}
	wide := f == FormatWide
	ids := make([]string, len(rows))
	paths := make([]string, len(rows))
	for i, r := range rows {
		ids[i], paths[i] = r.ControlID, r.SourcePath
	}
	short := Abbrev(ids, ShortIDLen)
	shortPath := ShortPaths(paths)
	header := []string{"CONTROL", "CLASSIFICATION", "AGE", "RETRY IN", "SOURCE"}
	if wide {
		header = []string{"CONTROL", "PROTOCOL", "CLASSIFICATION", "AGE", "ATTEMPTS", "FAILURES", "NEXT ATTEMPT", "LAST ERROR", "SOURCE"}
	}
	var tr [][]string
	for _, r := range rows {
		age := Duration(time.Duration(r.AgeSeconds) * time.Second)
		if wide {
			tr = append(tr, []string{r.ControlID, string(r.Protocol), string(r.Classification), age,
				strconv.FormatUint(r.AttemptCount, 10), strconv.FormatUint(r.ConsecutiveFailureCount, 10),
				r.NextAttemptAt, string(r.LastErrorCode), r.SourcePath})
			continue
		}
		tr = append(tr, []string{short[r.ControlID], string(r.Classification), age, retryIn(r.NextAttemptAt, at), shortPath(r.SourcePath)})
	}
	if !wide {
		tr = FitRowsWith(ShortenPath, header, tr, width, 4)
	}
	title := "Controls"
	if incomplete {
		title = "Controls (incomplete: unreadable controls or pools)"
	}
	if err := Table(w, title, header, tr); err != nil {
		return err
	}
	if page.NextMarker != "" {
		if _, err := fmt.Fprintf(w, "\nmore controls: --marker %s\n", page.NextMarker); err != nil {
			return err
		}
	}
	for _, pe := range poolErrs {
		if _, err := fmt.Fprintf(w, "pool %s\n", pe); err != nil {
			return err
		}
	}
	return nil
}

// retryIn is how long until a control's next attempt (RFC3339) as a table
// prints it: "-" when none is scheduled, "due" when it is not in the
// future.
func retryIn(next string, at time.Time) string {
	t, err := time.Parse(time.RFC3339, next)
	switch {
	case next == "" || err != nil:
		return "-"
	case !t.After(at):
		return "due"
	}
	return Duration(t.Sub(at))
}

// RecoveryInspect prints one control and its record in full as seen at
// at, values wrapped to width (Fields); receiptOut is the file its
// observation receipt was written to, if any.
func RecoveryInspect(w io.Writer, f Format, in *recovery.Inspection, receiptOut string, at time.Time, width int) error {
	ctl := in.Control
	age := int64(at.Sub(time.Unix(0, ctl.FirstSeenAtUnixNanos)) / time.Second)
	if f == FormatJSON {
		out := map[string]any{
			"control": NewControlRow(ctl, in.ControlETag, at), "inspection": in, "age_seconds": age,
		}
		if in.Receipt != nil {
			out["receipt"] = map[string]any{"file": receiptOut, "expires_at": in.Receipt.ExpiresAt, "receipt_sha256": in.Receipt.ReceiptSHA256}
		}
		return JSON(w, out)
	}
	rows := [][]string{
		{"control", ctl.ID}, {"protocol", string(ctl.Protocol)}, {"source", ctl.SourcePath},
		{"classification", string(ctl.Classification)}, {"record_classification", dash(string(in.JournalClassification))},
		{"quarantine_reason", dash(in.QuarantineReason)}, {"schema", dash(in.SourceSchema)}, {"state", dash(in.SourceState)},
		{"age", Duration(time.Duration(age)*time.Second) + " (since first seen " + time.Unix(0, ctl.FirstSeenAtUnixNanos).UTC().Format(time.RFC3339) + ")"},
		{"attempts", fmt.Sprintf("%d (consecutive failures %d)", ctl.AttemptCount, ctl.ConsecutiveFailureCount)},
		{"content_sha256", dash(in.ContentSHA256)}, {"copy_set_sha256", dash(in.CopySetSHA256)},
	}
	for _, cp := range in.Copies {
		rows = append(rows, []string{"copy", fmt.Sprintf("%s etag=%s sha256=%s size=%d", cp.Pool, cp.ETag, cp.SHA256[:16], cp.Size)})
	}
	for _, u := range in.Unreadable {
		rows = append(rows, []string{"unreadable", u})
	}
	dec := "none"
	if in.Decommission.Covered() {
		dec = strings.Join(append(append([]string{}, in.Decommission.Active...), in.Decommission.Unknown...), "; ")
	}
	rows = append(rows, []string{"decommission", dec}, []string{"action_class", string(in.ActionClass)})
	ready := "yes"
	if !in.Ready {
		ready = "no: " + strings.Join(in.NotReady, "; ")
	}
	rows = append(rows, []string{"ready", ready})
	if in.ActionClass == recovery.ClassLegacyDisposition {
		// What 'recovery abandon' would say now (the same decision).
		abandon := "yes"
		if in.AbandonRefusal != "" {
			abandon = "no: " + in.AbandonRefusal
		}
		rows = append(rows, []string{"abandon", abandon})
	}
	if in.Receipt != nil && receiptOut != "" {
		rows = append(rows, []string{"receipt", receiptOut + " (expires " + in.Receipt.ExpiresAt.Format(time.RFC3339) + ")"})
	}
	return Fields(w, "Record", [2]string{"FIELD", "VALUE"}, rows, width)
}

// RecoveryExport prints the export 'recovery export' installed or found;
// out is the file it was downloaded to, if any.
func RecoveryExport(w io.Writer, f Format, res *recovery.ExportResult, out string, width int) error {
	x := res.Export
	if f == FormatJSON {
		return JSON(w, map[string]any{
			"export_id": x.ExportID, "export_sha256": res.SHA256, "key": res.Key, "created": res.Created, "bytes": len(res.Bytes),
			"control_id": x.ControlID, "content_sha256": x.ContentSHA256, "copy_set_sha256": x.CopySetSHA256, "copies": x.Copies, "out": out,
		})
	}
	state := "created"
	if !res.Created {
		state = "already existed (identical; reused)"
	}
	rows := [][]string{{"export_id", x.ExportID}, {"export_sha256", res.SHA256}, {"key", res.Key}, {"state", state},
		{"bytes", strconv.Itoa(len(res.Bytes))}, {"control", x.ControlID}, {"copies", strconv.Itoa(len(x.Copies))}}
	if out != "" {
		rows = append(rows, []string{"written_to", out + " (mode 0600)"})
	}
	return Fields(w, "Export", [2]string{"FIELD", "VALUE"}, rows, width)
}

// RecoveryAbandon prints each step of 'recovery abandon'; runErr, the
// run's error if any, is in -o json's document. The table fits width:
// ETags and the IDs in a result by their first 12 digits, results
// wrapped; -o wide prints them whole.
func RecoveryAbandon(w io.Writer, f Format, res *recovery.AbandonResult, runErr error, width int) error {
	var state string
	var confirmed, total int
	if d := res.Disposition; d != nil {
		state, confirmed, total = string(d.State), len(d.ConfirmedAbsent), len(d.Manifest)
	}
	if f == FormatJSON {
		out := map[string]any{"dry_run": res.DryRun, "steps": res.Steps, "state": state, "confirmed_absent": confirmed, "manifest_copies": total}
		if res.Disposition != nil {
			out["disposition_id"] = res.Disposition.DispositionID
		}
		if runErr != nil {
			out["error"] = runErr.Error()
		}
		return JSON(w, out)
	}
	wide := f == FormatWide
	short := func(s string) string {
		if wide {
			return s
		}
		return ShortHex(s)
	}
	var rows [][]string
	for _, s := range res.Steps {
		rows = append(rows, []string{s.Step, dash(s.Pool), dash(short(s.ETag)), short(s.Result)})
	}
	title := "Abandon"
	if res.DryRun {
		title = "Abandon (dry run: nothing written)"
	}
	header := []string{"STEP", "POOL", "ETAG", "RESULT"}
	if wide {
		if err := Table(w, title, header, rows); err != nil {
			return err
		}
	} else if err := WrapLast(w, title, header, rows, width); err != nil {
		return err
	}
	if res.Disposition != nil && !res.DryRun {
		// Whole: the disposition ID is what a later look-up takes.
		_, err := fmt.Fprintf(w, "\ndisposition %s:\n  %s, %d of %d copies confirmed absent\n", res.Disposition.DispositionID, state, confirmed, total)
		return err
	}
	return nil
}

// RecoveryPrune prints what 'recovery prune' did or would do to each
// control; runErr, the run's error if any, is in -o json's document. The
// table fits width: short control IDs, reasons wrapped; -o wide adds the
// export and kept-receipt counts, with full IDs. With nothing to retire
// it says so in a line, wrapped short of width.
func RecoveryPrune(w io.Writer, f Format, res *recovery.PruneResult, runErr error, width int) error {
	if f == FormatJSON {
		out := map[string]any{"dry_run": res.DryRun, "older_than_seconds": int64(res.MinAge / time.Second), "items": res.Items}
		if runErr != nil {
			out["error"] = runErr.Error()
		}
		return JSON(w, out)
	}
	ids := make([]string, len(res.Items))
	for i, it := range res.Items {
		ids[i] = it.ControlID
	}
	short := Abbrev(ids, ShortIDLen)
	wide := f == FormatWide
	var rows [][]string
	for _, it := range res.Items {
		if wide {
			rows = append(rows, []string{string(it.Action), it.ControlID, string(it.Classification), strconv.Itoa(len(it.Exports)),
				strconv.Itoa(len(it.KeptDispositions)), it.Reason})
			continue
		}
		rows = append(rows, []string{string(it.Action), short[it.ControlID], string(it.Classification), it.Reason})
	}
	title := "Prune"
	if res.DryRun {
		title = "Prune (dry run: nothing written; add --confirm)"
	}
	if len(rows) == 0 {
		return Indented(w, "", title+": no terminal or abandoned control to retire", width)
	}
	if wide {
		return Table(w, title, []string{"ACTION", "CONTROL", "CLASSIFICATION", "EXPORTS", "KEPT RECEIPTS", "REASON"}, rows)
	}
	return WrapLast(w, title, []string{"ACTION", "CONTROL", "CLASSIFICATION", "REASON"}, rows, width)
}

// RecoveryRetry prints the lease 'recovery retry' wrote, or would write
// when dry.
func RecoveryRetry(w io.Writer, f Format, res *recovery.RetryResult, dry bool, width int) error {
	a := res.After
	at := time.Unix(0, a.LeaseExpiresAtUnixNanos).UTC()
	if f == FormatJSON {
		return JSON(w, map[string]any{"dry_run": dry, "control_id": a.ID, "classification_before": res.Before.Classification,
			"classification": a.Classification, "owner_id": a.OwnerID, "owner_epoch": a.OwnerEpoch, "lease_expires_at": at,
			"attempt_count": a.AttemptCount, "consecutive_failure_count": a.ConsecutiveFailureCount, "revision": a.Revision})
	}
	title := "Retry"
	if dry {
		title = "Retry (dry run: nothing written; add --confirm)"
	}
	return Fields(w, title, [2]string{"FIELD", "VALUE"}, [][]string{
		{"control", a.ID}, {"classification", string(res.Before.Classification) + " -> " + string(a.Classification)},
		{"owner", a.OwnerID + " epoch " + a.OwnerEpoch}, {"lease_expires_at", at.Format(time.RFC3339)},
		{"attempts", strconv.FormatUint(a.AttemptCount, 10) + " (kept)"}, {"consecutive_failures", strconv.FormatUint(a.ConsecutiveFailureCount, 10) + " (kept)"},
	}, width)
}

// nonNil is s, or an empty list where JSON must print [] rather than
// null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RecoveryExportWritten is the line 'recovery export get' prints once it
// wrote the export res read to the file out.
func RecoveryExportWritten(w io.Writer, res *recovery.ExportResult, out string) error {
	_, err := fmt.Fprintf(w, "export %s (sha256 %s, %d bytes) written to %s\n", res.Export.ExportID, res.SHA256, len(res.Bytes), out)
	return err
}
