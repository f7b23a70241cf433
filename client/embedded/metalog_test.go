package embedded

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

const logFixture = `{"buckets":[{"name":"b","versioning":"Enabled","objects":[
  {"key":"k1","versions":[{"version_id":"a","mtime":"2026-01-01T00:00:00Z","size":1,"etag":"x"}]},
  {"key":"k2","versions":[{"version_id":"b","mtime":"2026-01-02T00:00:00Z","size":1,"etag":"x"}]},
  {"key":"k3","versions":[{"version_id":"c","mtime":"2026-01-03T00:00:00Z","size":1,"etag":"x"}]},
  {"key":"k4","versions":[{"version_id":"d","mtime":"2026-01-04T00:00:00Z","size":1,"etag":"x"}]},
  {"key":"k5","versions":[{"version_id":"e","mtime":"2026-01-05T00:00:00Z","size":1,"etag":"x"}]}]}]}`

func TestSubscribeMetadataBounds(t *testing.T) {
	d := func(day int) int64 { return time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC).UnixNano() }
	tests := []struct {
		name           string
		since, until   int64
		batch          int
		wantVersionIDs []string
	}{
		{name: "everything", since: -1, until: d(31), batch: 1000, wantVersionIDs: []string{"a", "b", "c", "d", "e"}},
		{name: "since is exclusive, until inclusive", since: d(2), until: d(4), batch: 1000, wantVersionIDs: []string{"c", "d"}},
		{name: "one ns window", since: d(3) - 1, until: d(3), batch: 1000, wantVersionIDs: []string{"c"}},
		{name: "empty window", since: d(3), until: d(3), batch: 1000},
		{name: "inverted window", since: d(4), until: d(2), batch: 1000},
		{name: "after the log", since: d(5), until: d(31), batch: 1000},
		{name: "batches of two", since: -1, until: d(31), batch: 2, wantVersionIDs: []string{"a", "b", "c", "d", "e"}},
		{name: "batch boundary at until", since: -1, until: d(4), batch: 2, wantVersionIDs: []string{"a", "b", "c", "d"}},
		{name: "batches of one", since: d(1), until: d(5), batch: 1, wantVersionIDs: []string{"b", "c", "d", "e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := openTest(t, Options{})
			loadTest(t, f, logFixture)
			f.subscribeBatch = tc.batch
			var got []string
			err := f.SubscribeMetadata(context.Background(), tc.since, tc.until, func(ev filer.Event) error {
				got = append(got, ev.VersionID)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.wantVersionIDs) {
				t.Errorf("got %v, want %v", got, tc.wantVersionIDs)
			}
		})
	}
}

func TestSubscribeMetadataStops(t *testing.T) {
	f := openTest(t, Options{})
	loadTest(t, f, logFixture)
	f.subscribeBatch = 2
	stop := errors.New("stop")
	n := 0
	err := f.SubscribeMetadata(context.Background(), -1, testNow.UnixNano(), func(filer.Event) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("fn error: err = %v after %d events, want %v after 3", err, n, stop)
	}

	ctx, cancel := context.WithCancel(context.Background())
	n = 0
	err = f.SubscribeMetadata(ctx, -1, testNow.UnixNano(), func(filer.Event) error {
		n++
		if n == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 2 {
		t.Errorf("cancel: err = %v after %d events, want context.Canceled after 2", err, n)
	}
}

// TestTsNsMonotonic drives mutations with a clock that stands still and
// steps back; every TsNs must still exceed the one before.
func TestTsNsMonotonic(t *testing.T) {
	ctx := context.Background()
	clocks := []time.Time{testNow, testNow, testNow.Add(-time.Hour), testNow.Add(time.Hour), testNow}
	i := 0
	f := openTest(t, Options{Clock: func() time.Time { c := clocks[i%len(clocks)]; i++; return c }})
	loadTest(t, f, logFixture)
	before := lastTs(t, f)
	for _, key := range []string{"k1", "k2", "k3", "k4", "k5"} {
		obj := lookup(t, f, "b", key)
		req := filer.DeleteRequest{Bucket: "b", Key: key, Kind: "ExpirationDays", Expected: obj.Versions[0].Identity()}
		if out, err := f.LifecycleDelete(ctx, req); err != nil || out != filer.OutcomeDone {
			t.Fatalf("%s: %s, %v", key, out, err)
		}
	}
	evs := allEvents(t, f, before)
	if len(evs) != 10 {
		t.Fatalf("got %d events, want 10 (put + demote per key)", len(evs))
	}
	prev := before
	for _, ev := range evs {
		if ev.TsNs <= prev {
			t.Errorf("TsNs %d does not exceed %d", ev.TsNs, prev)
		}
		prev = ev.TsNs
	}
	if evs[0].TsNs != testNow.UnixNano() {
		t.Errorf("first TsNs = %d, want the clock %d", evs[0].TsNs, testNow.UnixNano())
	}
	// The clock reading an hour later wins over last+1.
	if want := testNow.Add(time.Hour).UnixNano(); !slices.ContainsFunc(evs, func(ev filer.Event) bool { return ev.TsNs == want }) {
		t.Errorf("no event at the later clock reading %d: %v", want, evs)
	}
}
