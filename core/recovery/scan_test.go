package recovery

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/tierdelete"
)

// fixtureNow is the instant the testdata/ilm fixtures are classified at.
var fixtureNow = time.Date(2025, 6, 15, 15, 6, 40, 0, time.UTC)

// loadPool copies a testdata/ilm pool directory into a memStore.
func loadPool(t *testing.T, dir, name string) *memStore {
	t.Helper()
	s := newMem(name)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s.put(filepath.ToSlash(rel), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writes(f *faultStore) int {
	n := 0
	for _, o := range f.Ops {
		if o.Kind == "create" || o.Kind == "cas" || o.Kind == "delete" {
			n++
		}
	}
	return n
}

func byPath(rep *ScanReport) map[string]ScanItem {
	m := map[string]ScanItem{}
	for _, it := range rep.Items {
		m[it.SourcePath] = it
	}
	return m
}

const (
	v1Path  = "ilm/tier-delete-journal/227870e5c0320ca1e9a8296e822983060b0d143fc8353658f44d75dfa5b98d2a.json"
	v2Path  = "ilm/tier-delete-journal/249e5cf0513bc9e2bc12a1cb180aae273bf0f88071a6aa3fdf26014c78ab4436.json"
	v5Path  = "ilm/tier-delete-journal/04bc91d30315aeb20993e6bbb2134faa72bff32e6883c18b434d037a944577ab.json"
	v4Bad   = "ilm/tier-delete-journal/2222222222222222222222222222222222222222222222222222222222222222.json"
	v4Op    = "ilm/tier-delete-journal/a3eca9108685e477bb8096e245161342e7d411ac07a55d490be3782cc892d2a4.json"
	v4Amb   = "ilm/tier-delete-journal/21365f36cc7a31615315dc4a3cb0cc57a780faffe2b999f7b5abf857ee9bb80d.json"
	txOpReq = "ilm/transition-transactions/records/d0/00/d0000000000040008000000000000003.json"
	v4Ok    = "ilm/tier-delete-journal/90d3146b879be889f8b629c02bbbabf8c290ad1fd7488e9c2ddf11895eda057e.json"
)

func TestScanCreatesControlsAndNeverHotLoops(t *testing.T) {
	ctx := context.Background()
	a := &faultStore{Store: loadPool(t, "../../testdata/ilm/pool-a", "dir:pool-a")}
	b := &faultStore{Store: loadPool(t, "../../testdata/ilm/pool-b", "dir:pool-b")}
	now := fixtureNow
	clock := func() time.Time { return now }
	pools := []metastore.Store{a, b}

	rep, err := Scan(ctx, pools, ScanOptions{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	items := byPath(rep)
	for path, want := range map[string]Classification{
		v1Path: RetainedAmbiguous, v2Path: RetainedAmbiguous, v4Bad: Corrupt, v4Op: OperatorRequired, v5Path: Retrying,
	} {
		it, ok := items[path]
		if !ok || it.Outcome != OutcomeCreated || it.Classification != want {
			t.Errorf("%s: %+v, want created %s", path, it, want)
		}
	}
	if _, ok := items[v4Ok]; ok {
		t.Errorf("a recoverable record got a control: %+v", items[v4Ok])
	}
	if v5 := items[v5Path]; v5.Attempt != AttemptFailure || v5.ErrorCode != ErrCodeSourceProof {
		t.Errorf("needs_source_proof: %+v, want a counted failure", v5)
	}
	if rep.CorruptRecords == 0 || rep.Incomplete {
		t.Errorf("report %+v", rep)
	}
	if a.backendCalls()+b.backendCalls() != 0 {
		t.Fatal("the scan touched a key outside the metadata namespaces")
	}
	// Controls live in the control pool only.
	for _, o := range b.Ops {
		if o.Kind != "get" && o.Kind != "list" {
			t.Fatalf("pool-b was written: %+v", o)
		}
	}
	created := writes(a)

	// The same scan again, at the same instant: nothing is due, nothing
	// is written.
	a.Ops = nil
	rep, err = Scan(ctx, pools, ScanOptions{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if n := writes(a); n != 0 {
		t.Fatalf("rescan wrote %d times, want 0 (created %d before)", n, created)
	}
	if it := byPath(rep)[v5Path]; it.Outcome != OutcomeDeferred {
		t.Fatalf("v5 rescan: %+v, want deferred", it)
	}

	if it := byPath(rep)[v1Path]; it.Outcome != OutcomeUnchanged {
		t.Fatalf("v1 rescan: %+v, want unchanged", it)
	}
}

// TestScanScheduleStopsAtOperatorRequired: scans every two hours for 8
// days attempt the retrying record only when due, then stop at
// operator_required; the non-automatic record is never attempted.
func TestScanScheduleStopsAtOperatorRequired(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, v5Path)
	f.memA.put(v1Path, mustGet(t, loadPool(t, "../../testdata/ilm/pool-a", "x"), v1Path))
	var attempts int
	for f.now.Before(fixtureNow.Add(8 * 24 * time.Hour)) {
		f.now = f.now.Add(2 * time.Hour)
		rep, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range rep.Items {
			if it.Attempt != "" {
				if it.SourcePath == v1Path {
					t.Fatalf("non-automatic record attempted: %+v", it)
				}
				attempts++
			}
		}
	}
	v5 := f.control()
	if v5.Classification != OperatorRequired || v5.LastErrorCode != ErrCodeRetriesExhausted {
		t.Fatalf("v5 after 8 days: %+v", v5)
	}
	// At most one attempt per scan, and it stopped: 7 days of 2-hour scans
	// is 84; a hot loop would keep counting after the escalation.
	if attempts < 10 || attempts > 90 || uint64(attempts)+1 != v5.AttemptCount {
		t.Fatalf("v5 attempted %d times (control says %d)", attempts, v5.AttemptCount)
	}
	if v5.FirstSeenAtUnixNanos != fixtureNow.UnixNano() {
		t.Fatal("first-seen time changed")
	}
	f.noBackend()
}

func mustGet(t *testing.T, s *memStore, key string) []byte {
	t.Helper()
	b, _, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestScanGenerationConflictKeepsCounters(t *testing.T) {
	ctx := context.Background()
	a := loadPool(t, "../../testdata/ilm/pool-a", "dir:pool-a")
	clock := func() time.Time { return fixtureNow }
	if _, err := Scan(ctx, []metastore.Store{a}, ScanOptions{Clock: clock}); err != nil {
		t.Fatal(err)
	}
	// A replacement with other bytes at the v2 journal's path.
	b, _, _ := a.Get(ctx, v2Path)
	a.put(v2Path, append(append([]byte(nil), b...), ' '))
	rep, err := Scan(ctx, []metastore.Store{a}, ScanOptions{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	it := byPath(rep)[v2Path]
	if it.Outcome != OutcomeConflict || it.Classification != OperatorRequired || it.ErrorCode != ErrCodeGenerationConflict {
		t.Fatalf("replacement: %+v", it)
	}
	ctrls, _, _, _ := LoadControls(ctx, a, 0)
	for _, c := range ctrls {
		if c.SourcePath == v2Path && (c.Observed.ContentSHA256 == "" || c.FirstSeenAtUnixNanos != fixtureNow.UnixNano()) {
			t.Fatalf("conflict rewrote the observed generation or lineage: %+v", c)
		}
	}
}

// TestScanIncompleteCreatesNothing: an unreadable pool yields no
// actionable generation.
func TestScanIncompleteCreatesNothing(t *testing.T) {
	ctx := context.Background()
	a := &faultStore{Store: loadPool(t, "../../testdata/ilm/pool-a", "dir:pool-a")}
	b := &faultStore{Store: loadPool(t, "../../testdata/ilm/pool-b", "dir:pool-b"), Mode: faultFail, At: 1, Kinds: []string{"list"}}
	rep, err := Scan(ctx, []metastore.Store{a, b}, ScanOptions{Clock: func() time.Time { return fixtureNow }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Incomplete || writes(a) != 0 {
		t.Fatalf("incomplete scan: incomplete=%v writes=%d", rep.Incomplete, writes(a))
	}
}

// TestScanLostControlWrites: a lost create or CAS response is resolved by
// exact readback, so the control is neither duplicated nor double-counted.
func TestScanLostControlWrites(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"create", "cas"} {
		a := &faultStore{Store: loadPool(t, "../../testdata/ilm/pool-a", "dir:pool-a")}
		now := fixtureNow
		clock := func() time.Time { return now }
		if kind == "cas" {
			if _, err := Scan(ctx, []metastore.Store{a}, ScanOptions{Clock: clock}); err != nil {
				t.Fatal(err)
			}
			now = now.Add(time.Hour)
		}
		a.Mode, a.Kinds, a.KeyPart, a.At = faultLoseResponse, []string{kind}, "recovery-controls", 1
		rep, err := Scan(ctx, []metastore.Store{a}, ScanOptions{Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		if a.n < 1 {
			t.Fatalf("%s: the fault never fired", kind)
		}
		for _, it := range rep.Items {
			if it.Outcome == OutcomeConflict {
				t.Fatalf("%s: lost response became a conflict: %+v", kind, it)
			}
		}
		ctrls, _, bad, _ := LoadControls(ctx, a, 0)
		if len(bad) != 0 || len(ctrls) == 0 {
			t.Fatalf("%s: %d controls, %d bad", kind, len(ctrls), len(bad))
		}
	}
}

// TestScanSourceAdvance: a one-edge advance of the source (v5 Prepared ->
// Dispatched) is accepted and resets the consecutive failures, keeping the
// lifetime count; a backwards edge is a conflict that keeps the counters.
func TestScanSourceAdvance(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, v5Path)
	for i := 0; i < 3; i++ {
		f.now = f.now.Add(2 * time.Hour)
		if _, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock}); err != nil {
			t.Fatal(err)
		}
	}
	before := f.control()
	if before.ConsecutiveFailureCount != 4 {
		t.Fatalf("before: %d failures", before.ConsecutiveFailureCount)
	}
	setState := func(st tierdelete.State) {
		j, err := tierdelete.DecodeJournal(mustGet(t, f.memA, v5Path))
		if err != nil {
			t.Fatal(err)
		}
		j.State = &st
		f.memA.put(v5Path, j.Encode())
		f.memB.put(v5Path, j.Encode())
	}
	setState(tierdelete.Dispatched)
	f.now = f.now.Add(time.Minute) // not due: an advance is decided anyway
	rep, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	if it := byPath(rep)[v5Path]; it.Outcome != OutcomeUpdated {
		t.Fatalf("advance: %+v", it)
	}
	after := f.control()
	if after.Observed.SourceState != "Dispatched" || after.ConsecutiveFailureCount != 1 || after.AttemptCount != before.AttemptCount+1 ||
		after.FirstFailureAtUnixNanos != f.now.UnixNano() || after.FirstSeenAtUnixNanos != before.FirstSeenAtUnixNanos {
		t.Fatalf("after the advance: %+v", after)
	}
	setState(tierdelete.Prepared) // backwards: not a legal successor
	if _, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock}); err != nil {
		t.Fatal(err)
	}
	c := f.control()
	if c.Classification != OperatorRequired || c.LastErrorCode != ErrCodeGenerationConflict || c.Observed.SourceState != "Dispatched" ||
		c.AttemptCount != after.AttemptCount || c.ConsecutiveFailureCount != after.ConsecutiveFailureCount {
		t.Fatalf("after a backwards edge: %+v", c)
	}
	// Rescans leave the conflict alone; an operator retry lets the next
	// scan adopt the generation, counters kept.
	f.a.Ops = nil
	if _, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock}); err != nil || writes(f.a) != 0 {
		t.Fatalf("rescan of a recorded conflict wrote: %v", err)
	}
	if _, err := RequestRetry(ctx, f.a, RetryRequest{ControlID: c.ID, Actor: actor, OwnerEpoch: "7f1c0000-0000-4000-8000-000000000002", Clock: f.clock, Execute: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(ctx, f.pools(), ScanOptions{Clock: f.clock}); err != nil {
		t.Fatal(err)
	}
	r := f.control()
	if r.Observed.SourceState != "Prepared" || r.AttemptCount != c.AttemptCount+1 || r.ConsecutiveFailureCount != c.ConsecutiveFailureCount+1 || r.OwnerID != "" {
		t.Fatalf("after retry: %+v", r)
	}
}

// TestScanLostRaceRecordsNoFailure: a control CAS that loses to another
// writer is a conflict for this pass: nothing of this attempt is recorded
// and the other writer's control stands; the next pass reloads it.
func TestScanLostRaceRecordsNoFailure(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, v5Path)
	before := f.control()
	other := *before
	other.Revision++
	other.OwnerID = "os-user:other"
	racer := &racingStore{Store: f.memA, key: before.Key(), write: other.Encode()}
	f.now = f.now.Add(2 * time.Hour)
	rep, err := Scan(ctx, []metastore.Store{racer, f.b}, ScanOptions{Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	if it := byPath(rep)[v5Path]; it.Outcome != OutcomeConflict || it.Attempt != "" {
		t.Fatalf("lost race: %+v", it)
	}
	c := f.control()
	if c.OwnerID != "os-user:other" || c.AttemptCount != before.AttemptCount || c.ConsecutiveFailureCount != before.ConsecutiveFailureCount {
		t.Fatalf("after the lost race: %+v", c)
	}
}

// racingStore lets another writer replace key just before the first CAS
// on it.
type racingStore struct {
	metastore.Store
	key   string
	write []byte
	done  bool
}

func (r *racingStore) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	if key == r.key && !r.done {
		r.done = true
		r.Store.(*memStore).put(key, r.write)
	}
	return r.Store.PutIfMatch(ctx, key, data, etag)
}
