package seaweedfs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
)

func TestMetaLogFileTime(t *testing.T) {
	for _, tc := range []struct {
		day, name string
		want      string
		ok        bool
	}{
		{"2026-11-30", "02-27.23ad6bbb", "2026-11-30T02:27:00Z", true},
		{"2026-11-30", "23-59.00000001", "2026-11-30T23:59:00Z", true},
		{"2026-11-30", "02-27", "", false}, // no filer id
		{"2026-11-30", "ab-cd.23ad6bbb", "", false},
		{"today", "02-27.23ad6bbb", "", false},
	} {
		got, ok := metaLogFileTime(tc.day, tc.name)
		if ok != tc.ok || (ok && got.Format(time.RFC3339) != tc.want) {
			t.Errorf("metaLogFileTime(%q, %q) = %s, %v; want %s, %v", tc.day, tc.name, got.Format(time.RFC3339), ok, tc.want, tc.ok)
		}
	}
}

func TestMetaLogFileInRange(t *testing.T) {
	start := time.Date(2026, 11, 30, 2, 27, 0, 0, time.UTC)
	ns := func(d time.Duration) int64 { return start.Add(d).UnixNano() }
	for _, tc := range []struct {
		name         string
		since, until int64
		want         bool
	}{
		{"range covers the window", ns(-time.Hour), ns(time.Hour), true},
		// A window runs up to a flush interval past its minute, so a
		// cursor inside the next minute still needs the file.
		{"cursor in the next minute", ns(90 * time.Second), ns(time.Hour), true},
		{"cursor past the window", ns(2 * time.Minute), ns(time.Hour), false},
		{"pass ends before the window", ns(-time.Hour), ns(-time.Nanosecond), false},
		{"pass ends at the window start", ns(-time.Hour), ns(0), true},
	} {
		if got := metaLogFileInRange(start, tc.since, tc.until); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// fakeClock is a backoff.Clock and backoff.Timer in one: each wait the
// poll starts advances the clock by that much and fires at once, so the
// poll runs its whole schedule without sleeping.
type fakeClock struct {
	now   time.Time
	waits []time.Duration
	c     chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), c: make(chan time.Time, 1)}
}

func (f *fakeClock) Now() time.Time { return f.now }
func (f *fakeClock) Start(d time.Duration) {
	f.waits = append(f.waits, d)
	f.now = f.now.Add(d)
	f.c <- f.now
}
func (f *fakeClock) Stop()               {}
func (f *fakeClock) C() <-chan time.Time { return f.c }

func TestAwaitLocated(t *testing.T) {
	chunks := []metaLogChunk{{file: "2026-11-30/00-00.a", volume: "3"}, {file: "2026-11-30/00-01.a", volume: "4"}}
	lookupErr := errors.New("volume 4 not found")
	for _, tc := range []struct {
		name string
		// locatedAfter is the number of lookups after which every volume
		// is located; -1: never.
		locatedAfter int
		wantErr      error
		wantWaits    int
	}{
		{"located at once", 1, nil, 0},
		{"located after a restart", 21, nil, 20},
		{"never located", -1, ErrMetaLogUnreadable, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			calls := 0
			unlocated := func(context.Context, []metaLogChunk) ([]metaLogChunk, error) {
				calls++
				if tc.locatedAfter >= 0 && calls >= tc.locatedAfter {
					return nil, nil
				}
				return chunks[1:], lookupErr
			}
			err := awaitLocated(context.Background(), chunks, unlocated, clk, clk)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if len(clk.waits) != tc.wantWaits {
				t.Errorf("waited %d times (%v), want %d one-second waits", len(clk.waits), clk.waits, tc.wantWaits)
			}
			for _, w := range clk.waits {
				if w != time.Second {
					t.Errorf("waited %v, want 1s between lookups", w)
				}
			}
			if tc.wantErr != nil {
				for _, want := range []string{"2026-11-30/00-01.a", "volume 4", "after 1m0s", "1 files affected", lookupErr.Error()} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not name %q", err, want)
					}
				}
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		clk := newFakeClock()
		err := awaitLocated(ctx, chunks, func(context.Context, []metaLogChunk) ([]metaLogChunk, error) { return chunks, nil }, clk, clk)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled, not ErrMetaLogUnreadable", err)
		}
	})
}

// MetaLogWriters lists each writer of the persisted meta-log once, in the
// order it first wrote, with a minute past its first file's name and
// whether anything of the log precedes it.
func TestMetaLogWriters(t *testing.T) {
	from := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		files []string // "day/HH-MM.id", or "day/" for an empty day
		want  []string // "id began-by successor follows-listed"
	}{
		{name: "no log yet"},
		{name: "one writer all along",
			files: []string{"2026-11-19/09-00.0000000a", "2026-11-20/09-59.0000000a", "2026-11-20/10-30.0000000a"},
			want:  []string{"0000000a 2026-11-19T09:01:00Z false false"}},
		{name: "a restart",
			files: []string{"2026-11-19/09-00.0000000a", "2026-11-20/09-40.0000000a", "2026-11-20/10-31.0000000b", "2026-11-20/11-00.0000000b"},
			want:  []string{"0000000a 2026-11-19T09:01:00Z false false", "0000000b 2026-11-20T10:32:00Z true true"}},
		{name: "a day before the lookback makes every writer a successor",
			files: []string{"2026-11-17/", "2026-11-20/10-30.0000000b"},
			want:  []string{"0000000b 2026-11-20T10:31:00Z true false"}},
		{name: "two writers starting in the same minute succeed nobody",
			files: []string{"2026-11-20/10-30.0000000b", "2026-11-20/10-30.0000000c", "2026-11-20/10-31.0000000c"},
			want:  []string{"0000000b 2026-11-20T10:31:00Z false false", "0000000c 2026-11-20T10:31:00Z false false"}},
		{name: "two restarts across midnight",
			files: []string{"2026-11-20/09-00.0000000a", "2026-11-20/10-10.0000000b", "2026-11-21/00-05.0000000c", "2026-11-21/00-06.0000000b"},
			want:  []string{"0000000a 2026-11-20T09:01:00Z false false", "0000000b 2026-11-20T10:11:00Z true true", "0000000c 2026-11-21T00:06:00Z true true"}},
		{name: "names that are not log files are skipped",
			files: []string{"2026-11-20/09-00.0000000a", "2026-11-20/notes", "not-a-day/10-30.0000000b"},
			want:  []string{"0000000a 2026-11-20T09:01:00Z false false"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFiler()
			days := map[string]bool{}
			for _, p := range tc.files {
				day, name, _ := strings.Cut(p, "/")
				if !days[day] {
					days[day] = true
					f.add(metaLogDir, &filer_pb.Entry{Name: day, IsDirectory: true})
				}
				if name != "" {
					f.add(metaLogDir+"/"+day, &filer_pb.Entry{Name: name})
				}
			}
			ws, err := f.store().MetaLogWriters(context.Background(), from.UnixNano())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range ws {
				got = append(got, fmt.Sprintf("%s %s %v %v", w.ID, time.Unix(0, w.BeganByNs).UTC().Format(time.RFC3339), w.Successor, w.FollowsListed))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("MetaLogWriters =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// A listing that fails is an error, never "no restart".
func TestMetaLogWritersListingFails(t *testing.T) {
	f := newFakeFiler()
	f.add(metaLogDir, &filer_pb.Entry{Name: "2026-11-20", IsDirectory: true})
	f.failDir[metaLogDir+"/2026-11-20"] = errors.New("unavailable")
	if _, err := f.store().MetaLogWriters(context.Background(), time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).UnixNano()); err == nil {
		t.Fatal("MetaLogWriters on a failing listing: no error")
	}
}
