package render

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// journalSummaryRow is one line of the summary 'journal ls' prints: how many of
// the listed records have this protocol and classification.
type journalSummaryRow struct {
	Protocol       string `json:"protocol"`
	Classification string `json:"classification"`
	Count          int    `json:"count"`
}

func summarizeJournal(rows []journal.Record) []journalSummaryRow {
	counts := map[[2]string]int{}
	for _, r := range rows {
		counts[[2]string{string(r.Protocol), string(r.Classification)}]++
	}
	var out []journalSummaryRow
	for k, n := range counts {
		out = append(out, journalSummaryRow{k[0], k[1], n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Protocol != out[j].Protocol {
			return out[i].Protocol < out[j].Protocol
		}
		return out[i].Classification < out[j].Classification
	})
	return out
}

// recordAge is the AGE column: how long before the classification clock
// the record was written; "future" for one written after it (a --now
// earlier than the record's files; -o json keeps the negative
// age_seconds).
func recordAge(r journal.Record) string {
	switch {
	case r.AgeSeconds == nil:
		return "-"
	case *r.AgeSeconds < 0:
		return "future"
	}
	return Duration(time.Duration(*r.AgeSeconds) * time.Second)
}

// JournalLs prints 'journal ls': rows are the records of rep its filters
// kept, ids each record's short ID by path (which 'journal show' takes).
// The table leads with what decides what to do (classification,
// decision), then age, and names each record by its short ID, in 80
// columns; the summary under it counts by protocol. -o wide adds
// protocol, schema, state, owner and the full path.
func JournalLs(w io.Writer, f Format, rep *journal.Report, rows []journal.Record, ids map[string]string) error {
	sum := summarizeJournal(rows)
	if f == FormatJSON {
		if rows == nil {
			rows = []journal.Record{}
		}
		return JSON(w, map[string]any{
			"records": rows, "summary": sum, "incomplete": rep.Incomplete, "pool_errors": rep.PoolErrors,
		})
	}
	wide := f == FormatWide
	header := []string{"CLASSIFICATION", "DECISION"}
	if wide {
		header = []string{"PROTOCOL", "CLASSIFICATION", "DECISION", "SCHEMA", "STATE", "OWNER"}
	}
	header = append(header, "AGE", "ID")
	if wide {
		header = append(header, "PATH")
	}
	var tr [][]string
	for _, r := range rows {
		row := []string{string(r.Classification), string(r.Decision)}
		if wide {
			row = []string{string(r.Protocol), string(r.Classification), string(r.Decision), r.Schema, r.State, r.Owner}
		}
		row = append(row, recordAge(r), ids[r.Path])
		if wide {
			row = append(row, r.Path)
		}
		tr = append(tr, row)
	}
	if err := Table(w, "Records", header, tr); err != nil {
		return err
	}
	title := "\nSummary"
	if rep.Incomplete {
		title = "\nSummary (incomplete: counts do not cover every pool)"
	}
	var sr [][]string
	for _, s := range sum {
		n := strconv.Itoa(s.Count)
		if rep.Incomplete {
			n += " (incomplete)"
		}
		sr = append(sr, []string{s.Protocol, s.Classification, n})
	}
	if err := Table(w, title, []string{"PROTOCOL", "CLASSIFICATION", "COUNT"}, sr); err != nil {
		return err
	}
	for _, pe := range rep.PoolErrors {
		if _, err := fmt.Fprintf(w, "pool %s: %s\n", pe.Pool, pe.Error); err != nil {
			return err
		}
	}
	return nil
}

// JournalShow prints 'journal show': one record, classified within the
// scan rep, named by its short ID id; bucket, object, tier and remote
// version as short digests unless raw. Values wrap to width (Fields).
func JournalShow(w io.Writer, f Format, rec *journal.Record, rep *journal.Report, id string, raw bool, width int) error {
	fields := recordFields(rec, raw)
	if f == FormatJSON {
		return JSON(w, map[string]any{"record": rec, "fields": fields, "incomplete": rep.Incomplete})
	}
	rows := [][]string{
		{"path", rec.Path}, {"id", id}, {"protocol", string(rec.Protocol)}, {"schema", rec.Schema}, {"state", rec.State},
		{"owner", rec.Owner}, {"age", recordAge(*rec)}, {"classification", string(rec.Classification)},
		{"decision", string(rec.Decision)}, {"reason", rec.Reason},
	}
	if rec.DecidedBy != "" {
		rows = append(rows, []string{"decided_by", rec.DecidedBy})
	}
	if rec.KeyFormat != "" {
		rows = append(rows, []string{"scope_key_format", rec.KeyFormat})
	}
	for _, fl := range fields {
		rows = append(rows, []string{fl[0], fl[1]})
	}
	for _, cp := range rec.Copies {
		rows = append(rows, []string{"copy", cp.Pool + " etag=" + cp.ETag})
	}
	if rep.Incomplete {
		rows = append(rows, []string{"scan", "incomplete"})
	}
	return Fields(w, "Record", [2]string{"FIELD", "VALUE"}, rows, width)
}

// redact shows a sensitive value as a short digest unless raw.
func redact(v string, raw bool) string {
	if raw {
		return v
	}
	return "sha256:" + envelope.SHA256Hex([]byte(v))[:16]
}

// recordFields are the decoded fields of r that 'journal show' prints
// beyond its classification, by record kind.
func recordFields(r *journal.Record, raw bool) [][2]string {
	var f [][2]string
	switch d := r.Decoded.(type) {
	case *tierdelete.Journal:
		f = append(f, [2]string{"tier", redact(d.TierName, raw)}, [2]string{"remote_object", redact(d.ObjName, raw)},
			[2]string{"remote_version", redact(d.VersionID, raw)}, [2]string{"version_state", string(d.EffectiveVersionState())})
		if d.Source != nil {
			f = append(f, [2]string{"bucket", redact(d.Source.Bucket, raw)}, [2]string{"object", redact(d.Source.Object, raw)})
		}
		if d.Dispatch != nil {
			f = append(f, [2]string{"manifest", d.Dispatch.ManifestObject}, [2]string{"topology_generation", d.Dispatch.TopologyGeneration})
		}
	case *tierdelete.Manifest:
		f = append(f, [2]string{"bucket", redact(d.Bucket, raw)}, [2]string{"prefix", redact(d.Prefix, raw)},
			[2]string{"journal_count", strconv.FormatUint(d.JournalCount, 10)}, [2]string{"journal_set_sha256", d.JournalSetSHA256})
	case *tierdelete.Parent:
		f = append(f, [2]string{"bucket", redact(d.Bucket, raw)}, [2]string{"prefix", redact(d.Prefix, raw)},
			[2]string{"next_chunk_sequence", strconv.FormatUint(d.NextChunkSequence, 10)},
			[2]string{"completed_journal_count", strconv.FormatUint(d.CompletedJournalCount, 10)})
		if d.ActiveChunk != nil {
			f = append(f, [2]string{"active_chunk", d.ActiveChunk.ManifestObject})
		}
	case *decom.Classified:
		if d.Manifest != nil {
			f = append(f, [2]string{"run_token", d.Manifest.RunToken}, [2]string{"receipt_count", strconv.FormatUint(d.Manifest.ReceiptCount, 10)},
				[2]string{"receipt_paths_sha256", d.Manifest.ReceiptPathsSHA256})
		}
		if d.Receipt != nil && d.Locator != nil {
			f = append(f, [2]string{"run_token", d.Locator.RunToken}, [2]string{"source_path", d.Receipt.SourcePath},
				[2]string{"id_kind", d.Receipt.IDKind}, [2]string{"id", d.Receipt.ID}, [2]string{"terminal", strconv.FormatBool(d.Receipt.Terminal())})
		}
	case *transition.Transaction:
		rv := ""
		if d.RemoteVersion.VersionID != nil {
			rv = *d.RemoteVersion.VersionID
		}
		f = append(f, [2]string{"bucket", redact(d.Source.Bucket, raw)}, [2]string{"object", redact(d.Source.Object, raw)},
			[2]string{"tier", redact(d.TierName, raw)}, [2]string{"remote_version_kind", string(d.RemoteVersion.Kind)},
			[2]string{"remote_version", redact(rv, raw)},
			[2]string{"not_after", time.Unix(0, d.NotAfterUnixNanos).UTC().Format(time.RFC3339)})
	}
	return f
}
