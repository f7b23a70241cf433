package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	goldenfile "github.com/ilmctl/ilmctl/internal/golden"
)

func secs(s float64) *float64 { return &s }

// haltedReport is a pass in trouble: shard 03 halted on a STUCK delete
// after two done, shard 09 was cancelled with events left, shard 05 only
// deleted, the rest had nothing to do; one bucket's rules were rejected
// and one key was left alone.
func haltedReport() RunReport {
	rep := RunReport{
		Status: dailyrun.StatusHalted.String(), BucketErrors: []BucketErrorReport{{Bucket: "bad", Error: "MalformedXML"}},
		Notices:    []NoticeReport{{Kind: "ambiguous_layout", Bucket: "logs", Key: "a", Reason: "two entries for null"}},
		BytesFreed: 3 << 20,
	}
	for s := 0; s < 16; s++ {
		sr := ShardReport{Shard: s, Status: dailyrun.StatusOK.String(), Walk: "steady_state", Dispatched: map[string]int64{},
			CursorLagSeconds: secs(0), WalkerAgeSeconds: secs(3600)}
		switch s {
		case 3:
			sr.Status, sr.Error = dailyrun.StatusHalted.String(), "logs/app/x.log: STUCK"
			sr.EventsScanned, sr.Matches, sr.Pending = 120, 4, 1
			sr.Dispatched = map[string]int64{"DONE": 2, "STUCK": 1}
			sr.CursorLagSeconds = secs(26 * 3600)
		case 5:
			sr.EventsScanned, sr.Matches = 7, 3
			sr.Dispatched = map[string]int64{"DONE": 2, "SKIPPED_OBJECT_LOCK": 1}
		case 9:
			sr.Status, sr.Error = dailyrun.StatusCancelled.String(), "context deadline exceeded"
			sr.EventsScanned, sr.CursorLagSeconds, sr.WalkerAgeSeconds = 12345678, nil, nil
		default:
			sr.EventsScanned = int64(s)
		}
		rep.Shards = append(rep.Shards, sr)
	}
	rep.Buckets = []BucketReport{
		{Bucket: "logs", RuleID: "expire-app-logs", Kind: "ExpirationDays", Outcomes: map[string]int64{"DONE": 4, "STUCK": 1},
			Bytes: map[string]int64{"DONE": 3 << 20, "STUCK": 1024}, BytesFreed: 3 << 20},
		{Bucket: "media", RuleID: "noncurrent", Kind: "NoncurrentDays", Outcomes: map[string]int64{"SKIPPED_OBJECT_LOCK": 1},
			Bytes: map[string]int64{"SKIPPED_OBJECT_LOCK": 5 << 30}},
	}
	return rep
}

// The default run tables sum the halting outcomes in FAILED, count every
// shard that did not finish as HALTED, list only the shards that
// dispatched or did not finish, and say why each stopped; -o wide lists
// every shard with every outcome column.
func TestRunTablesHaltedGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		wide bool
	}{{"run-halted.txt", false}, {"run-halted-wide.txt", true}} {
		var b bytes.Buffer
		if err := RunTables(&b, haltedReport(), tc.wide); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name, b.String())
		if !tc.wide {
			for i, line := range strings.Split(b.String(), "\n") {
				if len(line) > 120 {
					t.Errorf("line %d is %d columns: %s", i+1, len(line), line)
				}
			}
		}
	}
	var b bytes.Buffer
	if err := RunTables(&b, haltedReport(), false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if got := strings.Fields(lines[2]); !cmp.Equal(got, []string{"halted", "16", "14", "2", "4", "0", "1", "1", "3.0", "MiB", "1", "1"}) {
		t.Errorf("summary row %q", lines[2])
	}
	for _, quiet := range []string{"\n00 ", "\n07 ", "\n15 "} {
		if strings.Contains(b.String(), quiet) {
			t.Errorf("quiet shard%s listed by default", quiet)
		}
	}
}

// -o jsonl: a line per action with "type":"action" and ActionReport's
// fields, then a summary line with "type":"summary" and every field of
// the -o json report but actions.
func TestActionStream(t *testing.T) {
	var b bytes.Buffer
	s := NewActionStream(&b)
	due := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	s.Action(dailyrun.Action{Shard: 3, Source: "replay", Bucket: "logs", Key: "a<b>&c", VersionID: "v1", Kind: lifecycle.ActionKind("ExpirationDays"), RuleID: "r", Due: due, Outcome: "DONE", Size: 4096, BytesFreed: 4096})
	s.Action(dailyrun.Action{Shard: 4, Source: "walker", Bucket: "logs", Key: "big", UploadID: "u1", Kind: lifecycle.ActionKind("AbortMPU"), RuleID: "m", Outcome: "ERROR", Err: errors.New("timeout")})
	rep := haltedReport()
	rep.Actions = []ActionReport{{Bucket: "must-not-appear"}}
	if err := s.Summary(rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if want := `{"type":"action","shard":3,"source":"replay","bucket":"logs","key":"a<b>&c","version_id":"v1","kind":"ExpirationDays","rule_id":"r","due":"2026-11-30T00:00:00Z","outcome":"DONE","size":4096,"bytes_freed":4096}`; lines[0] != want {
		t.Errorf("action line\n got %s\nwant %s", lines[0], want)
	}
	if want := `{"type":"action","shard":4,"source":"walker","bucket":"logs","key":"big","upload_id":"u1","kind":"AbortMPU","rule_id":"m","due":null,"outcome":"ERROR","error":"timeout","size":0,"bytes_freed":0}`; lines[1] != want {
		t.Errorf("action line\n got %s\nwant %s", lines[1], want)
	}
	var sum, full map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &sum); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lines[2], `{"type":"summary","status":"halted",`) {
		t.Errorf("summary line starts %.60s", lines[2])
	}
	var jb bytes.Buffer
	if err := JSON(&jb, rep); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(jb.Bytes(), &full); err != nil {
		t.Fatal(err)
	}
	delete(full, "actions")
	full["type"] = "summary"
	if diff := cmp.Diff(full, sum); diff != "" {
		t.Errorf("summary line is not the -o json report without actions (-json +summary):\n%s", diff)
	}
}

type failAfter struct {
	n   int
	buf bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("broken pipe")
	}
	f.n--
	return f.buf.Write(p)
}

// After a failed write the stream writes nothing more and says how far it
// got.
func TestActionStreamWriteError(t *testing.T) {
	w := &failAfter{n: 1}
	s := NewActionStream(w)
	for i := 0; i < 3; i++ {
		s.Action(dailyrun.Action{Bucket: "b", Key: "k", Outcome: "DONE"})
	}
	err := s.Summary(RunReport{})
	if err == nil || err.Error() != "write -o jsonl after 1 actions: broken pipe" || !errors.Is(err, s.Err()) {
		t.Fatalf("err = %v", err)
	}
	if strings.Count(w.buf.String(), "\n") != 1 {
		t.Errorf("written: %q", w.buf.String())
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got, "")
}
