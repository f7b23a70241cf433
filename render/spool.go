package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	gojson "github.com/goccy/go-json"

	"github.com/ilmctl/ilmctl/core/dailyrun"
)

// ActionSpool keeps a pass's actions in a temporary file while the pass
// runs (use Action as dailyrun.Config.OnAction), so `ilmctl run -o json`
// writes one document with every action without holding them in memory.
// The file is removed by Close; on Unix its name is gone as soon as it is
// created, so a killed run leaves nothing behind.
type ActionSpool struct {
	f   *os.File
	w   *bufio.Writer
	enc *gojson.Encoder // same bytes as encoding/json, cheaper (see ActionStream)
	n   int64
	err error
}

// NewActionSpool creates the spool in dir ("" for the system's temporary
// directory).
func NewActionSpool(dir string) (*ActionSpool, error) {
	f, err := os.CreateTemp(dir, "ilmctl-actions-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("spool -o json actions: %w", err)
	}
	_ = os.Remove(f.Name()) // unlinked: the open file lives on until Close
	s := &ActionSpool{f: f, w: bufio.NewWriterSize(f, 1<<16)}
	s.enc = gojson.NewEncoder(s.w)
	s.enc.SetEscapeHTML(false)
	return s, nil
}

// Action appends a; after a write error it keeps only the error.
func (s *ActionSpool) Action(a dailyrun.Action) {
	if s.err != nil {
		return
	}
	if err := s.enc.Encode(NewActionReport(a)); err != nil {
		s.err = fmt.Errorf("spool -o json actions after %d: %w", s.n, err)
		return
	}
	s.n++
}

// Close removes the spool.
func (s *ActionSpool) Close() error {
	err := s.f.Close()
	_ = os.Remove(s.f.Name())
	return err
}

// JSONSpooled writes rep exactly as JSON(w, rep) would with rep.Actions
// holding the spooled actions, reading them back one at a time.
func JSONSpooled(w io.Writer, rep RunReport, s *ActionSpool) error {
	if s.err != nil {
		return s.err
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool -o json actions: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spool -o json actions: %w", err)
	}
	rep.Actions = []ActionReport{}
	var doc bytes.Buffer
	if err := JSON(&doc, rep); err != nil {
		return err
	}
	// actions is RunReport's last field: the document ends with it.
	const tail = "\"actions\": []\n}\n"
	head, ok := bytes.CutSuffix(doc.Bytes(), []byte(tail))
	if !ok {
		return fmt.Errorf("render: -o json document does not end with its actions")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(head)
	if s.n == 0 {
		bw.WriteString(tail)
		return bw.Flush()
	}
	bw.WriteString("\"actions\": [\n")
	sc := bufio.NewScanner(bufio.NewReaderSize(s.f, 1<<16))
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	var line bytes.Buffer
	var n int64
	for sc.Scan() {
		line.Reset()
		if err := json.Indent(&line, sc.Bytes(), "    ", "  "); err != nil {
			return fmt.Errorf("spool -o json actions: %w", err)
		}
		if n > 0 {
			bw.WriteString(",\n")
		}
		bw.WriteString("    ")
		bw.Write(line.Bytes())
		n++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("spool -o json actions: %w", err)
	}
	if n != s.n {
		return fmt.Errorf("spool -o json actions: read back %d of %d", n, s.n)
	}
	bw.WriteString("\n  ]\n}\n")
	return bw.Flush()
}
