package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// RulesCheckReport is `ilmctl rules check -o json`, printed whether the
// configuration was accepted or not. Field names are a stable interface.
type RulesCheckReport struct {
	File     string `json:"file"`
	Accepted bool   `json:"accepted"`
	// Error is the parser's verdict on a rejected configuration.
	Error *RulesErrorReport `json:"error,omitempty"`
	Rules []RuleReport      `json:"rules"`
}

// RulesErrorReport is a rejected configuration's AWS error.
type RulesErrorReport struct {
	Code      string `json:"code"`
	RuleID    string `json:"rule_id,omitempty"`
	RuleIndex int    `json:"rule_index,omitempty"`
	Message   string `json:"message"`
}

// RuleReport is one accepted rule: its 1-based position in the document,
// what it selects and what it does (lifecycle.Rule.Describe).
type RuleReport struct {
	Index   int      `json:"index"`
	ID      string   `json:"id"`
	Status  string   `json:"status"`
	Filter  string   `json:"filter"`
	Actions []string `json:"actions"`
}

// NewRulesCheckReport is the report on file given the parser's result:
// cfg when it accepted the document, else err.
func NewRulesCheckReport(file string, cfg *lifecycle.Configuration, err error) RulesCheckReport {
	rep := RulesCheckReport{File: file, Accepted: err == nil, Rules: []RuleReport{}}
	if err != nil {
		var le *lifecycle.Error
		if errors.As(err, &le) {
			rep.Error = &RulesErrorReport{Code: le.Code, RuleID: le.RuleID, RuleIndex: le.RuleIndex, Message: le.Message}
		} else {
			rep.Error = &RulesErrorReport{Message: err.Error()}
		}
		return rep
	}
	for i := range cfg.Rules {
		r := &cfg.Rules[i]
		rep.Rules = append(rep.Rules, RuleReport{Index: i + 1, ID: r.ID, Status: r.Status(), Filter: r.Filter.String(), Actions: r.Describe()})
	}
	return rep
}

// ruleCellMax is the widest a rule ID or filter cell gets in the rules
// table, longer ones shortened in the middle: a row of four columns
// (# up to 1000, STATUS up to Disabled) then fits 80.
const ruleCellMax = 28

// actionIndent sets a rule's actions under its row, as explain sets a
// verdict's sentence under its own; wrapIndent sets an action's further
// lines apart from the next action.
const (
	actionIndent = "    "
	wrapIndent   = "  "
)

// RulesTable writes an accepted configuration's rules within width
// columns: a row per rule (#, RULE, STATUS, FILTER; long IDs and filters
// shortened in the middle), and under it each action of the rule on a
// line of its own, wrapped at spaces.
func RulesTable(w io.Writer, rep RulesCheckReport, width int) error {
	n := len(rep.Rules)
	title := fmt.Sprintf("%s: accepted, %d rule", rep.File, n)
	if n != 1 {
		title += "s"
	}
	if _, err := fmt.Fprintln(w, Title(w, title)); err != nil {
		return err
	}
	// The rows are aligned on their own first: a line without cells would
	// end tabwriter's column block and misalign the rows around it.
	var rows bytes.Buffer
	tw := tabwriter.NewWriter(&rows, 0, 0, columnGap, ' ', 0)
	fmt.Fprintln(tw, "#\tRULE\tSTATUS\tFILTER")
	for _, r := range rep.Rules {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", r.Index, Cell(Middle(r.ID, ruleCellMax)), r.Status, Cell(Middle(r.Filter, ruleCellMax)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(rows.String(), "\n"), "\n")
	var b strings.Builder
	b.WriteString(lines[0] + "\n")
	actionW := max(20, width-1-len(actionIndent)-len(wrapIndent))
	for i, r := range rep.Rules {
		b.WriteString(lines[i+1] + "\n")
		for _, a := range r.Actions {
			for j, part := range wrap(Cell(a), actionW) {
				if j > 0 {
					b.WriteString(wrapIndent)
				}
				b.WriteString(actionIndent + part + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Middle shortens s to at most n runes by replacing its middle with "…",
// keeping its start and end, which tell identifiers apart best.
func Middle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 3 {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
