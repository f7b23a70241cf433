package s3

import (
	"context"
	"sync"
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
)

// DeleteBatched sends reqs through st's batcher as one batch: each is
// queued, in reqs' order, before the batcher may send any; beforeDelete,
// when set, runs between the batch's fresh listing and its DeleteObjects.
// It returns the outcomes in reqs' order (TEST SEAM for the integration
// tests).
func DeleteBatched(t testing.TB, st *Store, reqs []filer.DeleteRequest, beforeDelete func(bucket string, keys []string)) ([]filer.Outcome, []error) {
	t.Helper()
	st.batch.mu.Lock()
	st.batch.beforeDelete = beforeDelete
	st.batch.mu.Unlock()
	defer func() {
		st.batch.mu.Lock()
		st.batch.beforeDelete = nil
		st.batch.mu.Unlock()
	}()
	return deleteQueued(t, st, reqs)
}

// deleteQueued submits reqs while the batcher is held, one after the other
// (each queued before the next is submitted, so the queue order is reqs'
// order), then releases it and returns the outcomes, in reqs' order.
func deleteQueued(t testing.TB, st *Store, reqs []filer.DeleteRequest) ([]filer.Outcome, []error) {
	t.Helper()
	queued := make(chan int)
	st.batch.mu.Lock()
	st.batch.held = true
	st.batch.queuedHook = func(n int) { queued <- n }
	st.batch.mu.Unlock()
	outs, errs := make([]filer.Outcome, len(reqs)), make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = st.LifecycleDelete(context.Background(), req)
		}()
		if n := <-queued; n != i+1 {
			t.Errorf("queue holds %d deletes after %d submits", n, i+1)
		}
	}
	st.batch.mu.Lock()
	st.batch.queuedHook = nil
	st.batch.mu.Unlock()
	st.batch.release()
	wg.Wait()
	return outs, errs
}
