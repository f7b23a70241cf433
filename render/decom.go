package render

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/ilmctl/ilmctl/core/decom"
)

// DecomBlocking spells a decommission's blocking reasons with their
// counts, most frequent first: "receipt_missing×2,
// manifest_digest_mismatch"; "" when none blocks.
func DecomBlocking(b map[decom.Reason]int) string {
	type rc struct {
		r decom.Reason
		n int
	}
	var l []rc
	for r, n := range b {
		l = append(l, rc{r, n})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].n > l[j].n || l[i].n == l[j].n && l[i].r < l[j].r })
	var s []string
	for _, x := range l {
		if x.n > 1 {
			s = append(s, string(x.r)+"×"+strconv.Itoa(x.n))
		} else {
			s = append(s, string(x.r))
		}
	}
	return strings.Join(s, ", ")
}

// DecomVerify prints 'decom verify'. The table leads with what decides:
// verdict and reason, then where (pool, by its shortest unique trailing
// path) and which record, the pool and record shortened to fit width.
// The record is the source path the receipt covers; each blocked row's
// detail follows the table in full, wrapped. -o wide adds the checkpoint
// kind, the receipt id, the full key and the detail.
func DecomVerify(w io.Writer, f Format, rep *decom.Report, width int) error {
	if f == FormatJSON {
		if rep.Rows == nil {
			rep.Rows = []decom.Row{}
		}
		return JSON(w, rep)
	}
	wide := f == FormatWide
	header := []string{"VERDICT", "REASON", "POOL", "RECORD"}
	if wide {
		header = []string{"VERDICT", "REASON", "KIND", "POOL", "RECORD", "CHECKPOINT", "TERMINAL", "ID", "PATH", "DETAIL"}
	}
	var rows [][]string
	var why []string
	var all []string
	for _, r := range rep.Rows {
		all = append(all, r.SourcePath, r.Path)
	}
	short := ShortPaths(all)
	var pools []string
	for _, r := range rep.Rows {
		pools = append(pools, r.Pool)
	}
	pool := ShortNames(pools)
	for _, r := range rep.Rows {
		rec := r.SourcePath
		if rec == "" {
			rec = r.Path
		}
		if wide {
			rows = append(rows, []string{string(r.Verdict), string(r.Reason), string(r.Kind), r.Pool, rec,
				string(r.Checkpoint), strconv.FormatBool(r.Terminal), r.ID, r.Path, r.Detail})
			continue
		}
		if r.Verdict == decom.VerdictBlocked && r.Detail != "" {
			why = append(why, fmt.Sprintf("%s %s: %s", r.Reason, rec, r.Detail))
		}
		rows = append(rows, []string{string(r.Verdict), string(r.Reason), pool(r.Pool), short(rec)})
	}
	title := "Run " + rep.RunToken[:ShortIDLen] + " (source " + rep.Source + ")"
	if !wide {
		rows = FitRowsWith(ShortenPath, header, rows, width, 2, 3)
		title = Middle(title, width-1)
	}
	if err := Table(w, title, header, rows); err != nil {
		return err
	}
	for _, l := range why {
		if err := Indented(w, "  ", l, width); err != nil {
			return err
		}
	}
	p := rep.Predicate
	verdict := "yes"
	if !p.Removable {
		verdict = "no"
	}
	blk := DecomBlocking(p.Blocking)
	if blk == "" {
		blk = "-"
	}
	comp := [][]string{
		{"removable", verdict},
		{"blocking", blk},
		{"receipts", fmt.Sprintf("%d on targets, %d expected", p.Receipts, p.Expected)},
		{"source records", fmt.Sprintf("%d under ilm/, %d covered", p.SourceRecords, p.CoveredRecords)},
	}
	for _, e := range p.ReadErrors {
		comp = append(comp, []string{"read error", e})
	}
	if wide {
		return Table(w, "\nCompletion", []string{"CHECK", "VALUE"}, comp)
	}
	return Fields(w, "\nCompletion", [2]string{"CHECK", "VALUE"}, comp, width)
}

// DecomEntry is one receipt or expected-receipt manifest as 'decom
// receipts ls' lists it (its -o json row).
type DecomEntry struct {
	Pool       string               `json:"pool"`
	Kind       string               `json:"kind"` // receipt | manifest
	Path       string               `json:"path"`
	Status     decom.Status         `json:"status"`
	Reason     decom.Reason         `json:"reason,omitempty"`
	Detail     string               `json:"detail,omitempty"`
	SourcePath string               `json:"source_path,omitempty"`
	IDKind     string               `json:"id_kind,omitempty"`
	ID         string               `json:"id,omitempty"`
	Checkpoint decom.CheckpointKind `json:"checkpoint_kind,omitempty"`
	State      string               `json:"state,omitempty"`
	Count      *uint64              `json:"receipt_count,omitempty"`
}

// NewDecomEntry is the receipt or manifest c, read from pool, as listed:
// a manifest's expected receipt count; a receipt's record, and its
// checkpoint's state with the terminal one it moved to, if any.
func NewDecomEntry(pool string, c decom.Classified) DecomEntry {
	e := DecomEntry{Pool: pool, Kind: c.Kind, Path: c.Key, Status: c.Status, Reason: c.Reason, Detail: c.Detail}
	if c.Manifest != nil {
		e.Count = &c.Manifest.ReceiptCount
	}
	if c.Locator != nil {
		e.SourcePath, e.IDKind, e.ID = c.Locator.SourcePath, c.Locator.IDKind, c.Locator.ID
	}
	if r := c.Receipt; r != nil {
		e.Checkpoint, e.State = r.Ck.Kind, checkpointState(r.Ck)
		if r.TerminalCk != nil {
			e.State = checkpointState(r.Ck) + " → " + checkpointState(r.TerminalCk)
		}
	}
	return e
}

// checkpointState is a checkpoint's state in a word, for the table.
func checkpointState(c *decom.Checkpoint) string {
	switch c.Kind {
	case decom.CkJournal:
		if c.JournalState != nil {
			return *c.JournalState
		}
		if c.Committed {
			return "Committed"
		}
		return "uncommitted"
	case decom.CkManifest:
		return c.ManifestState
	case decom.CkParent:
		if c.Completed {
			return "Completed@" + strconv.FormatUint(c.Revision, 10)
		}
		return "Active@" + strconv.FormatUint(c.Revision, 10)
	case decom.CkTransition, decom.CkProbe:
		return c.State + "@" + strconv.FormatUint(c.Revision, 10)
	case decom.CkManualJob:
		return c.State
	}
	return ""
}

// DecomReceipts prints a run's receipts (token) and the pools' read
// errors, the pool and record shortened to fit width, and each problem's
// detail in full, wrapped, under the table; -o wide adds state, ID and
// reason columns with full paths.
func DecomReceipts(w io.Writer, f Format, token string, entries []DecomEntry, readErrs []string, width int) error {
	if f == FormatJSON {
		if entries == nil {
			entries = []DecomEntry{}
		}
		return JSON(w, map[string]any{"run_token": token, "entries": entries, "read_errors": nonNil(readErrs)})
	}
	wide := f == FormatWide
	header := []string{"STATUS", "POOL", "KIND", "RECORD"}
	if wide {
		header = append(header, "STATE", "ID_KIND", "ID", "REASON", "PATH")
	}
	var rows [][]string
	var all []string
	for _, e := range entries {
		all = append(all, e.SourcePath)
	}
	short := ShortPaths(all)
	var pools []string
	for _, e := range entries {
		pools = append(pools, e.Pool)
	}
	pool := ShortNames(pools)
	for _, e := range entries {
		rec := e.SourcePath
		if e.Kind == "manifest" && e.Count != nil {
			rec = fmt.Sprintf("%d receipt(s) expected", *e.Count)
		}
		if !wide {
			rec = short(rec)
		}
		kind := string(e.Checkpoint)
		if e.Kind == "manifest" {
			kind = "expected_manifest"
		}
		p := e.Pool
		if !wide {
			p = pool(p)
		}
		row := []string{string(e.Status), p, kind, rec}
		if wide {
			row = append(row, e.State, e.IDKind, e.ID, string(e.Reason), e.Path)
		}
		rows = append(rows, row)
	}
	if !wide {
		rows = FitRowsWith(ShortenPath, header, rows, width, 1, 3)
	}
	if err := Table(w, "Run "+token[:ShortIDLen], header, rows); err != nil {
		return err
	}
	if !wide {
		for _, e := range entries {
			if e.Reason != "" {
				if err := Indented(w, "  ", fmt.Sprintf("%s %s: %s", e.Reason, e.Path, e.Detail), width); err != nil {
					return err
				}
			}
		}
	}
	for _, e := range readErrs {
		if err := Indented(w, "", "read error: "+e, width); err != nil {
			return err
		}
	}
	return nil
}

// DecomRunToken prints the token 'decom run-token' computed from a
// pool's command line and its decommission start (Unix nanoseconds):
// the token alone on its line, or with -o json beside its inputs.
func DecomRunToken(w io.Writer, f Format, token, cmdLine string, startUnixNanos int64) error {
	if f == FormatJSON {
		return JSON(w, map[string]any{"run_token": token, "cmd_line": cmdLine, "start_unix_nanos": startUnixNanos})
	}
	_, err := fmt.Fprintln(w, token)
	return err
}
