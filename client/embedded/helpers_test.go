package embedded

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// testNow is the frozen clock every test filer uses unless it says otherwise.
var testNow = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

func openTest(t *testing.T, opts Options) *Filer {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = func() time.Time { return testNow }
	}
	f, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func loadTest(t *testing.T, f *Filer, fixture string) FixtureSummary {
	t.Helper()
	sum, err := f.LoadFixture(context.Background(), strings.NewReader(fixture))
	if err != nil {
		t.Fatalf("LoadFixture: %v", err)
	}
	return sum
}

func allEvents(t *testing.T, f *Filer, sinceNs int64) []filer.Event {
	t.Helper()
	var evs []filer.Event
	err := f.SubscribeMetadata(context.Background(), sinceNs, math.MaxInt64, func(ev filer.Event) error {
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		t.Fatalf("SubscribeMetadata: %v", err)
	}
	return evs
}

func lastTs(t *testing.T, f *Filer) int64 {
	t.Helper()
	evs := allEvents(t, f, -1)
	if len(evs) == 0 {
		return -1
	}
	return evs[len(evs)-1].TsNs
}

func lookup(t *testing.T, f *Filer, bucket, key string) filer.Object {
	t.Helper()
	obj, _, err := f.LookupObject(context.Background(), bucket, key)
	if err != nil {
		t.Fatalf("LookupObject(%s, %s): %v", bucket, key, err)
	}
	return obj
}

// versionIDs renders versions newest first as "id" or "id(dm)".
func versionIDs(obj filer.Object) []string {
	out := []string{}
	for _, v := range obj.Versions {
		s := v.VersionID
		if v.DeleteMarker {
			s += "(dm)"
		}
		out = append(out, s)
	}
	return out
}

func ns(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}
