package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ilmctl/ilmctl/core/dailyrun"
)

// JSON line types of `ilmctl run -o jsonl`, the "type" field.
const (
	LineAction  = "action"
	LineSummary = "summary"
)

// ActionLine is one line of `ilmctl run -o jsonl` per action, written as
// the action completes: "type":"action" and the fields of ActionReport.
type ActionLine struct {
	Type string `json:"type"`
	ActionReport
}

// SummaryLine is the last line of `ilmctl run -o jsonl`: "type":"summary"
// and the fields of RunReport (`ilmctl run -o json`) but actions, which
// came before it one per line.
type SummaryLine struct {
	Type string `json:"type"`
	RunReport
	// Actions shadows RunReport.Actions; always nil, so omitted.
	Actions *struct{} `json:"actions,omitempty"`
}

// ActionStream writes `ilmctl run -o jsonl`: one compact JSON object per
// line, each action as the pass records it (use Action as
// dailyrun.Config.OnAction), then the summary. Each line is one Write, so
// a reader sees whole lines as they come. After the first write error it
// writes nothing more and Err returns it; the pass is not stopped for it.
type ActionStream struct {
	w       io.Writer
	buf     bytes.Buffer // one line, reused: a pass may record millions
	enc     *json.Encoder
	actions int64
	err     error
}

// NewActionStream streams to w. Calls must not overlap, as OnAction's
// don't.
func NewActionStream(w io.Writer) *ActionStream {
	s := &ActionStream{w: w}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
}

// Action writes a's line.
func (s *ActionStream) Action(a dailyrun.Action) {
	if s.err != nil {
		return
	}
	if s.err = s.line(ActionLine{Type: LineAction, ActionReport: NewActionReport(a)}); s.err != nil {
		s.err = fmt.Errorf("write -o jsonl after %d actions: %w", s.actions, s.err)
		return
	}
	s.actions++
}

// Summary writes the summary line, unless a write failed before.
func (s *ActionStream) Summary(rep RunReport) error {
	if s.err != nil {
		return s.err
	}
	if err := s.line(SummaryLine{Type: LineSummary, RunReport: rep}); err != nil {
		s.err = fmt.Errorf("write -o jsonl summary after %d actions: %w", s.actions, err)
	}
	return s.err
}

// Err is the first write error, if any.
func (s *ActionStream) Err() error { return s.err }

// line writes v as one line of compact JSON in one Write, HTML
// characters unescaped as in -o json.
func (s *ActionStream) line(v any) error {
	s.buf.Reset()
	if err := s.enc.Encode(v); err != nil {
		return err
	}
	_, err := s.w.Write(s.buf.Bytes())
	return err
}
