package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// collidingFixture's events collide and interleave: two keys put and
// demoted at the same instants, a third key put, and an upload initiated,
// at the instant both demotions happen. In fixture order: a's put of v1
// (T), a's put of v2 and demotion of v1 (T2), b's put of w1 (T), b's put
// of w2 and demotion of w1 (T2), c's put (T2), the upload (T2).
const collidingFixture = `{"buckets":[{"name":"v","versioning":"Enabled",
  "objects":[
   {"key":"a","versions":[{"version_id":"v1","mtime":"2026-01-01T00:00:00Z"},{"version_id":"v2","mtime":"2026-01-02T00:00:00Z"}]},
   {"key":"b","versions":[{"version_id":"w1","mtime":"2026-01-01T00:00:00Z"},{"version_id":"w2","mtime":"2026-01-02T00:00:00Z"}]},
   {"key":"c","versions":[{"version_id":"x1","mtime":"2026-01-02T00:00:00Z"}]}],
  "uploads":[{"upload_id":"u1","key":"up","initiated":"2026-01-02T00:00:00Z"}]}]}`

// TestLoadOrdersCollidingEvents loads collidingFixture into a new filer and
// into one whose meta-log already holds events at T2 and T2+2ns, through
// the external sort's temporary file (runs of two records), and checks
// every event's TsNs: sorted by (instant, fixture order), each at its
// instant or 1ns after the previous event, past the TsNs the filer
// holds; a put before the demotion of its predecessor at the same
// instant; and each demoted version's NoncurrentSinceNs equal to its
// demotion's TsNs.
func TestLoadOrdersCollidingEvents(t *testing.T) {
	defer func(n int) { sortChunk = n }(sortChunk)
	sortChunk = 2

	T, T2 := ns("2026-01-01T00:00:00Z"), ns("2026-01-02T00:00:00Z")
	at := func(base, plus int64) string {
		return time.Unix(0, base+plus).UTC().Format(time.RFC3339Nano)
	}
	cases := []struct {
		name  string
		pre   string // a fixture loaded first, "" none
		want  []string
		since map[string]int64 // version -> NoncurrentSinceNs
	}{
		{
			name: "new filer",
			want: []string{
				"put v/a v1 @" + at(T, 0),
				"put v/b w1 @" + at(T, 1),
				"put v/a v2 @" + at(T2, 0),
				"demote v/a v1 @" + at(T2, 1),
				"put v/b w2 @" + at(T2, 2),
				"demote v/b w1 @" + at(T2, 3),
				"put v/c x1 @" + at(T2, 4),
				"mpu_init v/up u1 @" + at(T2, 5),
			},
			since: map[string]int64{"v1": T2 + 1, "w1": T2 + 3},
		},
		{
			name: "added to a filer holding events at those instants",
			pre: `{"buckets":[{"name":"pre","objects":[
			  {"key":"p","versions":[{"mtime":"2026-01-02T00:00:00Z"}]},
			  {"key":"q","versions":[{"mtime":"2026-01-02T00:00:00.000000002Z"}]}]}]}`,
			want: []string{
				"put v/a v1 @" + at(T, 0),
				"put v/b w1 @" + at(T, 1),
				"put pre/p null @" + at(T2, 0),
				"put v/a v2 @" + at(T2, 1),
				"put pre/q null @" + at(T2, 2),
				"demote v/a v1 @" + at(T2, 3),
				"put v/b w2 @" + at(T2, 4),
				"demote v/b w1 @" + at(T2, 5),
				"put v/c x1 @" + at(T2, 6),
				"mpu_init v/up u1 @" + at(T2, 7),
			},
			since: map[string]int64{"v1": T2 + 3, "w1": T2 + 5},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "D")
			if tc.pre != "" {
				if _, err := Load(ctx, dir, strings.NewReader(tc.pre), LoadOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Load(ctx, dir, strings.NewReader(collidingFixture), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Events != 8 || res.Versions != 5 || res.Uploads != 1 {
				t.Errorf("summary = %+v, want 8 events, 5 versions, 1 upload", res.FixtureSummary)
			}
			if got := dirNames(t, dir); !slices.Equal(got, []string{DBFile}) {
				t.Errorf("%s holds %v after the load, want only %s", dir, got, DBFile)
			}
			f, err := Open(dir, Options{MustExist: true})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			evs := allEvents(t, f, -1)
			var got []string
			for i, ev := range evs {
				if i > 0 && ev.TsNs <= evs[i-1].TsNs {
					t.Errorf("event %d at %d is not after event %d at %d", i, ev.TsNs, i-1, evs[i-1].TsNs)
				}
				got = append(got, fmt.Sprintf("%s %s/%s %s%s @%s", ev.Type, ev.Bucket, ev.Key, ev.VersionID, ev.UploadID, at(ev.TsNs, 0)))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("meta-log:\n got %q\nwant %q", got, tc.want)
			}
			demoted := 0
			for _, ev := range evs {
				if ev.Type != filer.EventDemote {
					continue
				}
				demoted++
				obj := lookup(t, f, ev.Bucket, ev.Key)
				i := slices.IndexFunc(obj.Versions, func(v filer.Version) bool { return v.VersionID == ev.VersionID })
				if i < 0 {
					t.Fatalf("%s/%s has no version %s", ev.Bucket, ev.Key, ev.VersionID)
				}
				if v := obj.Versions[i]; v.NoncurrentSinceNs != ev.TsNs || v.NoncurrentSinceNs != tc.since[v.VersionID] {
					t.Errorf("%s/%s %s NoncurrentSinceNs = %d, want its demotion's TsNs %d (%d)", ev.Bucket, ev.Key, v.VersionID, v.NoncurrentSinceNs, ev.TsNs, tc.since[v.VersionID])
				}
			}
			if demoted != len(tc.since) {
				t.Errorf("%d demotions in the meta-log, want %d", demoted, len(tc.since))
			}
			for _, key := range []string{"a", "b", "c"} {
				if cur := lookup(t, f, "v", key).Versions[0]; cur.NoncurrentSinceNs != 0 {
					t.Errorf("current version of %s has NoncurrentSinceNs %d", key, cur.NoncurrentSinceNs)
				}
			}
		})
	}
}

func TestSortRecordsRoundTrip(t *testing.T) {
	for _, e := range []sortEvent{
		{AtNs: 0, Seq: 0, Code: codePut, Bucket: 0, Key: "", Version: "null"},
		{AtNs: 1<<62 + 5, Seq: 1<<40 + 3, Code: codeDemote, Bucket: 7, Key: strings.Repeat("k\x00é", 100), Version: "v\x00"},
		{AtNs: 42, Seq: 9, Code: codeMPUInit, Bucket: 1 << 20, Key: "big.bin", UploadID: "u1"},
	} {
		got, err := decodeEvent(encodeEvent(e))
		if err != nil || got != e {
			t.Errorf("event round trip: %+v, %v; want %+v", got, err, e)
		}
	}
	for _, p := range []demotePatch{
		{Bucket: 0, Key: "", Version: "", TsNs: 0},
		{Bucket: 3, Key: "a\x00b", Version: "v\x00\x00", TsNs: 1<<62 + 1},
	} {
		got, err := decodePatch(encodePatch(p))
		if err != nil || got != p {
			t.Errorf("patch round trip: %+v, %v; want %+v", got, err, p)
		}
	}
	if _, err := decodeEvent("short"); err == nil {
		t.Error("decodeEvent of a short record: no error")
	}
	if _, err := decodePatch("\x00\x00\x00\x00k\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff"); err == nil {
		t.Error("decodePatch of a record with a bad version length: no error")
	}
	// The sort order of event records is (instant, fixture order).
	recs := []string{
		encodeEvent(sortEvent{AtNs: 2, Seq: 0, Code: codePut, Key: "z"}),
		encodeEvent(sortEvent{AtNs: 1, Seq: 5, Code: codePut, Key: "z"}),
		encodeEvent(sortEvent{AtNs: 1, Seq: 4, Code: codeDemote, Key: "zz"}),
		encodeEvent(sortEvent{AtNs: 256, Seq: 1, Code: codePut, Key: "a"}),
	}
	slices.Sort(recs)
	var order []uint64
	for _, r := range recs {
		e, _ := decodeEvent(r)
		order = append(order, e.Seq)
	}
	if !slices.Equal(order, []uint64{4, 5, 0, 1}) {
		t.Errorf("sorted event records by Seq: %v, want [4 5 0 1]", order)
	}
}

// TestLoadSortFileStaysInvisible: while a load sorts through its
// temporary file (runs of two records), the filer directory holds only
// the unfinished database, and a load that fails there leaves nothing.
func TestLoadSortFileStaysInvisible(t *testing.T) {
	defer func(n int) { sortChunk = n }(sortChunk)
	sortChunk = 2
	dir := filepath.Join(t.TempDir(), "D")
	var during []string
	_, err := Load(context.Background(), dir, strings.NewReader(collidingFixture), LoadOptions{Hook: func(p LoadPoint) error {
		during = dirNames(t, dir)
		return fmt.Errorf("injected")
	}})
	if err == nil || err.Error() != "fixture: injected" {
		t.Fatalf("err = %v, want the injected one", err)
	}
	// extsort creates its file and unlinks it at once, on its own
	// goroutine: a listing can fall between the two. Anything else, or
	// anything left after the load, is a defect.
	during = slices.DeleteFunc(during, func(n string) bool { return strings.HasPrefix(n, "extsort_") })
	if len(during) != 1 || !strings.HasPrefix(during[0], UnfinishedPrefix) {
		t.Errorf("during the load %s held %v, want only the unfinished database", dir, during)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed load left %s behind (stat: %v)", dir, err)
	}
}

// TestLoadTakesEventsInInstantOrder: events are timed in order of
// instant, not of the fixture, so a key listed first but put 1ns later
// than two others comes after both: b and c at T and T+1ns, a at T+2ns
// (timing events in fixture order, a would take T+1ns and push c to
// T+2ns).
func TestLoadTakesEventsInInstantOrder(t *testing.T) {
	f := openTest(t, Options{})
	loadTest(t, f, `{"buckets":[{"name":"u","objects":[
	  {"key":"a","versions":[{"mtime":"2026-01-01T00:00:00.000000001Z"}]},
	  {"key":"b","versions":[{"mtime":"2026-01-01T00:00:00Z"}]},
	  {"key":"c","versions":[{"mtime":"2026-01-01T00:00:00Z"}]}]}]}`)
	T := ns("2026-01-01T00:00:00Z")
	var got []string
	for _, ev := range allEvents(t, f, -1) {
		got = append(got, fmt.Sprintf("%s+%d", ev.Key, ev.TsNs-T))
	}
	if want := []string{"b+0", "c+1", "a+2"}; !slices.Equal(got, want) {
		t.Errorf("meta-log = %v, want %v", got, want)
	}
}
