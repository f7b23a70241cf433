package dailyrun

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// newerNoncurrentWorld writes, in a versioned bucket, one key per layout
// of noncurrent versions (0-4 object versions 'O' and 0-3 delete markers
// 'M' in every order, newest first) below a latest object version or a
// latest marker, one version a day ending a week before now. It returns
// what S3 leaves under NewerNoncurrentVersions n: the n newest noncurrent
// object versions and every version newer than the last of them; markers
// do not count.
func newerNoncurrentWorld(st *loggedStore, bucket string, n int, now time.Time) []string {
	st.addBucket(bucket, filer.VersioningEnabled)
	var layouts []string
	var grow func(s string, o, m int)
	grow = func(s string, o, m int) {
		layouts = append(layouts, s)
		if o < 4 {
			grow(s+"O", o+1, m)
		}
		if m < 3 {
			grow(s+"M", o, m+1)
		}
	}
	grow("", 0, 0)
	var want []string
	for _, layout := range layouts {
		for _, latest := range []string{"O", "M"} {
			newestFirst := latest + layout
			key := fmt.Sprintf("%s/%s", latest, layout)
			kept := 0
			for i := len(newestFirst) - 1; i >= 0; i-- {
				vid := fmt.Sprintf("v%d", i)
				at := now.Add(-7*day - time.Duration(i)*day)
				if newestFirst[i] == 'M' {
					st.putMarker(bucket, key, vid, at)
				} else {
					st.put(bucket, key, vid, at, 1)
				}
			}
			for i := range len(newestFirst) {
				if i == 0 || kept < n {
					want = append(want, bucket+"/"+key+"@"+fmt.Sprintf("v%d", i))
				}
				if i > 0 && newestFirst[i] == 'O' {
					kept++
				}
			}
		}
	}
	return want
}

// A pass keeps what S3 keeps under NewerNoncurrentVersions 1-3 when delete
// markers sit among the noncurrent versions, whether it walks with a
// meta-log (a cold pass: recovery walk, then replay) or without one (every
// rule walked, as on s3://), on the first pass and on the next day's.
// Under --newer-noncurrent-count versions-and-markers the same pass
// deletes more: markers count, as SeaweedFS's worker counts them.
func TestPassKeepsNewerNoncurrentObjectVersions(t *testing.T) {
	now := ts("2026-03-18T00:00:00Z")
	for n := 1; n <= 3; n++ {
		for _, metaLog := range []bool{true, false} {
			t.Run(fmt.Sprintf("N=%d meta-log=%v", n, metaLog), func(t *testing.T) {
				st := newLoggedStore()
				want := newerNoncurrentWorld(st, "ver", n, now)
				slices.Sort(want)
				rule := lifecycle.Rule{ID: "keep", Enabled: true, NoncurrentDays: 1, NewerNoncurrentVersions: n}
				snap := snapshotOf("ver", filer.VersioningEnabled, rule)
				var store filer.Store = st
				if !metaLog {
					store = walkOnly{st}
				}
				for d := range 2 {
					at := now.Add(time.Duration(d) * day)
					st.clockNs = at.UnixNano()
					res := runStore(t, store, snap, at, func(c *Config) { c.PageSize = 7 })
					if res.Status() != StatusOK {
						t.Fatalf("day %d: status %s", d, res.Status())
					}
					if diff := cmp.Diff(want, st.remaining()); diff != "" {
						t.Fatalf("day %d: remaining differs from what S3 keeps (-s3 +pass):\n%s", d, diff)
					}
				}
				// Counting markers, as SeaweedFS's worker does, deletes more.
				before := len(st.remaining())
				markers := engine.CompileWith([]engine.Bucket{{Name: "ver", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{rule}}},
					engine.Options{Rounding: lifecycle.RoundAWS, NewerNoncurrent: lifecycle.CountWithMarkers}).Snapshot()
				st.clockNs = now.Add(2 * day).UnixNano()
				if res := runStore(t, store, markers, now.Add(2*day), nil); res.Status() != StatusOK {
					t.Fatalf("versions-and-markers: status %s", res.Status())
				}
				if after := len(st.remaining()); after >= before {
					t.Errorf("versions-and-markers deleted nothing more: %d versions before, %d after", before, after)
				}
			})
		}
	}
}
