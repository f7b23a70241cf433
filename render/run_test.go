package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

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
			sr.Status, sr.Error = dailyrun.StatusIncomplete.String(), "context deadline exceeded"
			sr.EventsScanned, sr.CursorLagSeconds, sr.WalkerAgeSeconds = 12345678, nil, nil
			sr.Walk, sr.WalkKeys, sr.WalkBucketsDone, sr.WalkBuckets, sr.WalkSaved = "recovery", 250000, 3, 40, true
			sr.WalkResumedFrom = &WalkPointReport{Bucket: "logs", After: "app/2026/01/x.log"}
		default:
			sr.EventsScanned = int64(s)
			sr.WalkKeys, sr.WalkBucketsDone, sr.WalkBuckets = int64(1000*s), 2, 2
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

// The default run tables sum the halting outcomes in FAILED, count in
// the title every shard that did not finish, list only the shards that
// dispatched or did not finish, and say why each stopped, short of 80
// columns; -o wide lists every shard with every outcome column, as wide
// as that is.
func TestRunTablesHaltedGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		wide bool
	}{{"run-halted.txt", false}, {"run-halted-wide.txt", true}} {
		var b bytes.Buffer
		if err := RunTables(&b, haltedReport(), tc.wide, 80); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name, b.String())
		if !tc.wide {
			fitsWidth(t, b.String(), 80)
		}
	}
	var b bytes.Buffer
	if err := RunTables(&b, haltedReport(), false, 80); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "Pass over 16 shards: 2 did not finish" {
		t.Errorf("summary title %q", lines[0])
	}
	if got := strings.Fields(lines[2]); !cmp.Equal(got, []string{"halted", "4", "0", "1", "1", "3.0", "MiB", "1", "1"}) {
		t.Errorf("summary row %q", lines[2])
	}
	for _, quiet := range []string{"\n00 ", "\n07 ", "\n15 "} {
		if strings.Contains(b.String(), quiet) {
			t.Errorf("quiet shard%s listed by default", quiet)
		}
	}
}

// longDryRun is a dry run over names as long as S3 allows them to be
// kept readable: a 63-character bucket, long rule IDs and keys, 32-digit
// version IDs that differ within their first 12 digits.
func longDryRun() RunReport {
	bucket := "analytics-" + strings.Repeat("eu-west-", 6) + "archive"
	due := time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC)
	rep := RunReport{Status: "ok", DryRun: true, BytesFreed: 3 << 30}
	for s := 0; s < 16; s++ {
		rep.Shards = append(rep.Shards, ShardReport{Shard: s, Status: "ok", Walk: "steady_state", Dispatched: map[string]int64{"DRY_RUN": 1}})
	}
	for i, key := range []string{
		"exports/2026/03/17/customers/eu/full-snapshot-part-00001.parquet",
		"exports/2026/03/17/customers/eu/full-snapshot-part-00002.parquet",
		"x",
	} {
		rep.Actions = append(rep.Actions, ActionReport{Bucket: bucket, Key: key, VersionID: fmt.Sprintf("7ffe8b3c1a%d2d9f0c4e8b7a6d5c4b3a2f1e", i),
			Kind: "NoncurrentDays", RuleID: "expire-noncurrent-versions-of-customer-exports-after-thirty-days", Due: &due, Size: 1 << 30})
	}
	rep.Actions = append(rep.Actions, ActionReport{Bucket: "logs", Key: "big", UploadID: "f81d4fae-7dec-11d0-a765-00a0c91e6bf6", Kind: "AbortMPU", RuleID: "abort"})
	rep.Buckets = []BucketReport{
		{Bucket: bucket, RuleID: "expire-noncurrent-versions-of-customer-exports-after-thirty-days", Kind: "NoncurrentDays",
			Outcomes: map[string]int64{"DRY_RUN": 3}, Bytes: map[string]int64{"DRY_RUN": 3 << 30}, BytesFreed: 3 << 30},
		{Bucket: "logs", RuleID: "abort", Kind: "AbortMPU", Outcomes: map[string]int64{"DRY_RUN": 1}, Bytes: map[string]int64{}},
	}
	return rep
}

// At 80 columns and at 120 every default line stays short of the width:
// long keys, bucket names and rule IDs keep their start and end, version
// IDs a unique prefix; the wider terminal shortens less, and -o wide
// nothing.
func TestRunTablesFitWidth(t *testing.T) {
	rep := longDryRun()
	prev := -1
	for _, width := range []int{80, 120} {
		var b bytes.Buffer
		if err := RunTables(&b, rep, false, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		fitsWidth(t, out, width)
		for _, want := range []string{"exports/20", "001.parquet", "002.parquet", "7ffe8b3c1a02 ", "7ffe8b3c1a12 ", "f81d4fae-7de ", "expire-non", "thirty-days", "analytics-eu"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: %q missing:\n%s", width, want, out)
			}
		}
		if strings.Contains(out, "7ffe8b3c1a12d9f0c4e8b7a6d5c4b3a2f1e") {
			t.Errorf("width %d: version ID not shortened:\n%s", width, out)
		}
		if prev >= 0 && utf8.RuneCountInString(out) <= prev {
			t.Errorf("width %d shortens as much as 80:\n%s", width, out)
		}
		prev = utf8.RuneCountInString(out)
	}
	var b bytes.Buffer
	if err := RunTables(&b, rep, true, 80); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"exports/2026/03/17/customers/eu/full-snapshot-part-00001.parquet", "7ffe8b3c1a12d9f0c4e8b7a6d5c4b3a2f1e",
		"upload:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "expire-noncurrent-versions-of-customer-exports-after-thirty-days", "2026-03-17T00:00:00Z"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("-o wide lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "…") {
		t.Errorf("-o wide shortened something:\n%s", b.String())
	}
}

// fitsWidth fails for every line of out that a terminal of width columns
// would wrap (width runes or more: the cursor then sits past the edge) or
// that ends in blanks.
func fitsWidth(t *testing.T, out string, width int) {
	t.Helper()
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n >= width {
			t.Errorf("line %d is %d runes, not under %d:\n%s", i+1, n, width, line)
		}
		if strings.TrimRight(line, " ") != line {
			t.Errorf("line %d ends in blanks: %q", i+1, line)
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
// got; what it wrote before is whole lines.
func TestActionStreamWriteError(t *testing.T) {
	w := &failAfter{n: 1}
	s := NewActionStream(w)
	key := strings.Repeat("k", 1000)
	n := 0
	for s.Err() == nil {
		s.Action(dailyrun.Action{Bucket: "b", Key: key, Outcome: "DONE"})
		n++
		if n > 1000 {
			t.Fatal("no write error after 1000 actions of 1 KiB")
		}
	}
	err := s.Summary(RunReport{})
	want := fmt.Sprintf("write -o jsonl after %d actions: broken pipe", n)
	if err == nil || err.Error() != want || !errors.Is(err, s.Err()) {
		t.Fatalf("err = %v, want %s", err, want)
	}
	out := w.buf.String()
	if lines := strings.Count(out, "\n"); lines == 0 || lines >= n || !strings.HasSuffix(out, "\n") {
		t.Errorf("wrote %d bytes, %d lines of %d actions: want whole lines, fewer than all", len(out), lines, n)
	}
}

// signalWriter reports each Write on wrote.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// Lines are batched, but a line is not held back waiting for the next
// action: the timer writes it on its own, and Summary writes the rest.
func TestActionStreamFlushes(t *testing.T) {
	w := &signalWriter{wrote: make(chan struct{}, 1)}
	s := NewActionStream(w)
	s.Action(dailyrun.Action{Bucket: "b", Key: "k1", Outcome: "DONE"})
	s.Action(dailyrun.Action{Bucket: "b", Key: "k2", Outcome: "DONE"})
	select {
	case <-w.wrote:
	case <-time.After(time.Minute): // the flush comes after 100ms; this only bounds a broken test
		t.Fatal("queued lines never written without another action")
	}
	w.mu.Lock()
	if got := strings.Count(w.buf.String(), "\n"); got != 2 {
		t.Errorf("after the timed flush: %d lines, want 2 in one write: %q", got, w.buf.String())
	}
	w.mu.Unlock()
	s.Action(dailyrun.Action{Bucket: "b", Key: "k3", Outcome: "DONE"})
	if err := s.Summary(RunReport{}); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[2], `"key":"k3"`) || !strings.Contains(lines[3], `"type":"summary"`) {
		t.Errorf("lines %q, want k1, k2, k3, summary", lines)
	}
}

// Each line is what encoding/json writes for it (goccy/go-json encodes).
func TestActionStreamMatchesStdlib(t *testing.T) {
	a := dailyrun.Action{Bucket: "b<&>", Key: "k/\u2028\xff\"x\"", Outcome: "ERROR", Err: errors.New("boom <x> \u2028")}
	var got bytes.Buffer
	s := NewActionStream(&got)
	s.Action(a)
	rep := RunReport{Status: "ok"}
	if err := s.Summary(rep); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ActionLine{Type: LineAction, ActionReport: NewActionReport(a)}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(SummaryLine{Type: LineSummary, RunReport: rep}); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got, "")
}

// A shard another host holds is that host's: the summary counts it apart
// from the shards that did not finish.
func TestRunSummaryCountsLeasedApart(t *testing.T) {
	rep := RunReport{Status: "halted", Shards: []ShardReport{{Shard: 0, Status: "ok"}, {Shard: 1, Status: "leased"}, {Shard: 2, Status: "halted"}}}
	var buf bytes.Buffer
	if err := RunTables(&buf, rep, false, 80); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(buf.String(), "\n"); first != "Pass over 3 shards: 1 did not finish, 1 leased by another host" {
		t.Errorf("title %q", first)
	}
}

// -o json spells each shard's walk progress and resumption with stable
// snake_case fields: a continued walk's point, null otherwise.
func TestRunReportWalkFields(t *testing.T) {
	res := &dailyrun.Result{Shards: []dailyrun.ShardResult{
		{Shard: 1, Status: dailyrun.StatusIncomplete, Walk: dailyrun.WalkRecovery, WalkKeys: 1200, WalkBucketsDone: 2, WalkBuckets: 5,
			WalkSaved: true, WalkResumed: true, WalkResumedFrom: &dailyrun.WalkPoint{Bucket: "logs", After: "app/0042.log"}},
		{Shard: 2, Status: dailyrun.StatusOK, Walk: dailyrun.WalkRecovery, WalkResumed: true, WalkResumedFrom: &dailyrun.WalkPoint{Bucket: "tmp", Uploads: true}},
		{Shard: 3, Status: dailyrun.StatusOK},
	}}
	data, err := json.Marshal(NewRunReport(res, nil))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Shards []map[string]any `json:"shards"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"walk_keys": 1200.0, "walk_buckets_done": 2.0, "walk_buckets": 5.0, "walk_saved": true,
			"walk_resumed_from": map[string]any{"bucket": "logs", "after": "app/0042.log", "uploads": false}},
		{"walk_keys": 0.0, "walk_buckets_done": 0.0, "walk_buckets": 0.0, "walk_saved": false,
			"walk_resumed_from": map[string]any{"bucket": "tmp", "after": "", "uploads": true}},
		{"walk_keys": 0.0, "walk_buckets_done": 0.0, "walk_buckets": 0.0, "walk_saved": false, "walk_resumed_from": nil},
	}
	for i, w := range want {
		got := map[string]any{}
		for k := range w {
			v, ok := doc.Shards[i][k]
			if !ok {
				t.Errorf("shard %d: no %q in %s", i, k, data)
			}
			got[k] = v
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("shard %d (-want +got):\n%s", i, diff)
		}
	}
}
