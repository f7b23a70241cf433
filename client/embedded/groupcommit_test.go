package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// heldBatches opens a test filer whose first group commit waits for
// release, so every delete submitted meanwhile lands in the second batch;
// sizes receives each batch's size.
func heldBatches(t *testing.T) (f *Filer, release func(), sizes func() []int) {
	t.Helper()
	var mu sync.Mutex
	var got []int
	hold := make(chan struct{})
	first := true
	f = openTest(t, Options{BeforeCommit: func(batch []filer.DeleteRequest) error {
		mu.Lock()
		got = append(got, len(batch))
		wait := first
		first = false
		mu.Unlock()
		if wait {
			<-hold
		}
		return nil
	}})
	return f, func() { close(hold) }, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), got...)
	}
}

// waitQueued spins until n deletes wait for the next batch; the first
// batch is held, so they can only accumulate.
func waitQueued(f *Filer, n int) {
	for len(f.deletes.reqs) < n {
		runtime.Gosched()
	}
}

// TestGroupCommitDecidesEachDeleteInOrder: deletes of one batch are decided
// one after the other on what the transaction holds, earlier deletes of
// the batch included, and each identity check sees a rewrite made after
// the target was listed.
func TestGroupCommitDecidesEachDeleteInOrder(t *testing.T) {
	ctx := context.Background()
	f, release, sizes := heldBatches(t)
	loadTest(t, f, deleteFixture)
	listedF := lookup(t, f, "off", "f").Versions[0].Identity()
	a := lookup(t, f, "ver", "a")
	// Rewrite off/f after it was listed: same key, new mtime and ETag.
	err := f.db.Update(func(tx *bolt.Tx) error {
		raw, err := json.Marshal(objectRecord{Versions: []versionRecord{{VersionID: filer.NullVersionID, MtimeNs: testNow.UnixNano() - 1, Size: 10, ETag: "rewritten"}}})
		if err != nil {
			return err
		}
		return objectsOf(tx, "off").Put([]byte("f"), raw)
	})
	if err != nil {
		t.Fatal(err)
	}

	// A first delete holds the first batch open.
	firstDone := make(chan filer.Outcome)
	go func() {
		out, _ := f.LifecycleDelete(ctx, filer.DeleteRequest{Bucket: "ver", Key: "big.bin", Kind: "AbortMPU", Expected: filer.Identity{UploadID: "u1"}})
		firstDone <- out
	}()
	for len(sizes()) == 0 {
		runtime.Gosched()
	}
	reqs := []struct {
		name string
		req  filer.DeleteRequest
		want filer.Outcome
	}{
		{"expire a", filer.DeleteRequest{Bucket: "ver", Key: "a", Kind: "ExpirationDays", Expected: a.Versions[0].Identity()}, filer.OutcomeDone},
		// a's latest is now the marker the delete above added.
		{"expire a again", filer.DeleteRequest{Bucket: "ver", Key: "a", Kind: "ExpirationDays", Expected: a.Versions[0].Identity()}, filer.OutcomeNoopResolved},
		{"noncurrent v1 of a", filer.DeleteRequest{Bucket: "ver", Key: "a", Kind: "NoncurrentDays", Expected: a.Versions[1].Identity()}, filer.OutcomeDone},
		{"rewritten f", filer.DeleteRequest{Bucket: "off", Key: "f", Kind: "ExpirationDays", Expected: listedF}, filer.OutcomeNoopResolved},
	}
	outs := make([]chan filer.Outcome, len(reqs))
	for i, r := range reqs {
		outs[i] = make(chan filer.Outcome, 1)
		waitQueued(f, i) // submitted in this order
		go func() {
			out, err := f.LifecycleDelete(ctx, r.req)
			if err != nil {
				t.Errorf("%s: %v", r.name, err)
			}
			outs[i] <- out
		}()
	}
	waitQueued(f, len(reqs))
	release()
	if got := <-firstDone; got != filer.OutcomeDone {
		t.Errorf("first delete = %s, want DONE", got)
	}
	for i, r := range reqs {
		if got := <-outs[i]; got != r.want {
			t.Errorf("%s = %s, want %s", r.name, got, r.want)
		}
	}
	if got := sizes(); len(got) != 2 || got[1] != len(reqs) {
		t.Errorf("batch sizes = %v, want [1 %d]", got, len(reqs))
	}
	if got := lookup(t, f, "off", "f").Versions[0].ETag; got != "rewritten" {
		t.Errorf("rewritten f has ETag %q after the stale delete", got)
	}
}

// TestGroupCommitRollsBackTheWholeBatch: a failure between a batch's writes
// and its commit leaves every target of the batch as it was and reports
// no outcome for any of them.
func TestGroupCommitRollsBackTheWholeBatch(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("disk gone")
	f := openTest(t, Options{BeforeCommit: func([]filer.DeleteRequest) error { return boom }})
	loadTest(t, f, deleteFixture)
	before := lastTs(t, f)
	var wg sync.WaitGroup
	for _, key := range []string{"a", "retention-over", "retained"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := filer.DeleteRequest{Bucket: "ver", Key: key, Kind: "ExpirationDays", Expected: lookup(t, f, "ver", key).Versions[0].Identity()}
			if out, err := f.LifecycleDelete(ctx, req); !errors.Is(err, boom) || out != "" {
				t.Errorf("%s = %q, %v; want no outcome and %v", key, out, err, boom)
			}
		}()
	}
	wg.Wait()
	if evs := allEvents(t, f, before); len(evs) != 0 {
		t.Errorf("rolled-back batch left events %v", evs)
	}
	for _, key := range []string{"a", "retention-over", "retained"} {
		if got := versionIDs(lookup(t, f, "ver", key)); len(got) != 2 {
			t.Errorf("%s versions = %v after a rolled-back batch", key, got)
		}
	}
}

// TestGroupCommitAfterClose: a delete after Close fails instead of hanging.
func TestGroupCommitAfterClose(t *testing.T) {
	f, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.LifecycleDelete(context.Background(), filer.DeleteRequest{Bucket: "b", Key: "k", Kind: "ExpirationDays"}); !errors.Is(err, errFilerClosed) {
		t.Errorf("err = %v, want %v", err, errFilerClosed)
	}
}
