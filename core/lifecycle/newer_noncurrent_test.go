package lifecycle

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// noncurrentLayouts lists every run of noncurrent versions, newest first,
// with 0-4 object versions ('O') and 0-3 delete markers ('M') interleaved
// in every order.
func noncurrentLayouts() []string {
	var out []string
	var grow func(s string, o, m int)
	grow = func(s string, o, m int) {
		out = append(out, s)
		if o < 4 {
			grow(s+"O", o+1, m)
		}
		if m < 3 {
			grow(s+"M", o, m+1)
		}
	}
	grow("", 0, 0)
	return out
}

// layoutObject is a key whose latest version is latest ('O' or 'M')
// above the noncurrent versions of layout, newest first, one a day.
func layoutObject(latest byte, layout string) *filer.Object {
	all := string(latest) + layout
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(all)) * 24 * time.Hour)
	var vs []filer.Version
	for i := range len(all) {
		v := evalVer(fmt.Sprintf("v%d", i), at.Add(-time.Duration(i)*24*time.Hour))
		if all[i] == 'M' {
			v = evalMarker(v.VersionID, time.Unix(0, v.MtimeNs))
		}
		vs = append(vs, v)
	}
	return evalObj("k", vs...)
}

// retainedByS3 says whether S3 keeps noncurrent version idx of obj under
// NewerNoncurrentVersions n, put in S3's own terms rather than as a count
// of newer versions: the n newest noncurrent object versions are retained,
// delete markers not among them, and so is every noncurrent version newer
// than the last of those; a key with fewer than n noncurrent object
// versions keeps them all.
func retainedByS3(obj *filer.Object, idx, n int) bool {
	kept := 0
	for i := 1; i < len(obj.Versions); i++ {
		if obj.Versions[i].DeleteMarker {
			continue
		}
		if kept++; kept == n {
			return idx <= i
		}
	}
	return true
}

// The rank counts noncurrent object versions and never delete markers:
// every layout of 0-4 object versions and 0-3 markers, below a latest
// object version or a latest marker, against NewerNoncurrentVersions 1-3,
// with and without NoncurrentDays, decides as S3 retains. Markers are
// deleted only when older than every retained version.
func TestNewerNoncurrentCountsObjectVersionsOnly(t *testing.T) {
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	checked, markersDeleted, versionsKeptOverMarkers := 0, 0, 0
	for _, layout := range noncurrentLayouts() {
		for _, latest := range []byte{'O', 'M'} {
			obj := layoutObject(latest, layout)
			for n := 1; n <= 3; n++ {
				for _, days := range []int{0, 30} {
					r := &Rule{ID: "r", Enabled: true, NewerNoncurrentVersions: n, NoncurrentDays: days}
					for idx := range obj.Versions {
						vd := ExplainVersion(r, NewerNoncurrent, obj, idx, RoundAWS)
						deletes := vd.Applies && vd.Match.IsDue(now)
						want := idx > 0 && !retainedByS3(obj, idx, n)
						if deletes != want {
							t.Errorf("latest %c, noncurrent %q, NewerNoncurrentVersions %d, NoncurrentDays %d: version %d deleted=%v, S3 deletes=%v (rank %d, reason %s)",
								latest, layout, n, days, idx, deletes, want, vd.NewerNoncurrent, vd.Reason)
						}
						if m, ok := EvaluateVersion(r, NewerNoncurrent, obj, idx, RoundAWS); ok != vd.Applies || m != vd.Match {
							t.Errorf("EvaluateVersion disagrees with ExplainVersion on %q version %d", layout, idx)
						}
						if idx > 0 && !vd.Applies && vd.Reason == ReasonNewerNoncurrentKept && vd.NewerNoncurrent >= n {
							t.Errorf("%q version %d: kept with rank %d >= %d", layout, idx, vd.NewerNoncurrent, n)
						}
						checked++
						if deletes && obj.Versions[idx].DeleteMarker {
							markersDeleted++
						}
						if !deletes && idx > n && !obj.Versions[idx].DeleteMarker {
							versionsKeptOverMarkers++
						}
					}
				}
			}
		}
	}
	if markersDeleted == 0 || versionsKeptOverMarkers == 0 {
		t.Errorf("the layouts exercise too little: %d markers deleted, %d versions kept past markers", markersDeleted, versionsKeptOverMarkers)
	}
	t.Logf("%d decisions", checked)
}

// Counting markers too (--newer-noncurrent-count versions-and-markers,
// SeaweedFS's worker) ranks a version by its position among every
// noncurrent version.
func TestNewerNoncurrentCountWithMarkers(t *testing.T) {
	for _, layout := range noncurrentLayouts() {
		obj := layoutObject('O', layout)
		for idx := 1; idx < len(obj.Versions); idx++ {
			objects := strings.Count(layout[:idx-1], "O")
			if got := NewerNoncurrentRank(obj, idx, CountObjectVersions); got != objects {
				t.Errorf("%q version %d: rank %d, want %d object versions", layout, idx, got, objects)
			}
			if got := NewerNoncurrentRank(obj, idx, CountWithMarkers); got != idx-1 {
				t.Errorf("%q version %d: rank with markers %d, want %d", layout, idx, got, idx-1)
			}
		}
	}
}

func TestParseNewerNoncurrentCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want NewerNoncurrentCount
		ok   bool
	}{
		{"versions", CountObjectVersions, true},
		{"versions-and-markers", CountWithMarkers, true},
		{"", 0, false},
		{"markers", 0, false},
		{"Versions", 0, false},
	} {
		got, err := ParseNewerNoncurrentCount(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseNewerNoncurrentCount(%q) = %v, %v", tc.in, got, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}

// Delete markers are never counted as data: an audit of every rule that
// could read one as an object version. Expiration Days leaves a latest
// marker with versions beneath it; ExpiredObjectDeleteMarker and the
// expired-marker reading of Expiration Days act only on a marker that is
// the key's only version; a size bound never selects a marker (it has no
// size to compare, so nothing is deleted on a guess); a tag filter never
// selects one (it has no tags); NewerNoncurrentVersions does not count
// one (above).
func TestDeleteMarkersAreNotData(t *testing.T) {
	marker := evalMarker("dm", evalDay3)
	withVersions := evalObj("k", marker, evalVer("v1", evalDay1))
	alone := evalObj("k", evalMarker("dm", evalDay3))
	noncurrentMarker := evalObj("k", evalVer("v2", evalDay4), evalMarker("dm", evalDay3), evalVer("v1", evalDay1))
	gt := int64(0)
	lt := int64(1 << 40)
	for _, tc := range []struct {
		name   string
		r      Rule
		kind   ActionKind
		obj    *filer.Object
		idx    int
		reason Reason
		kindIs ActionKind
	}{
		{"Expiration Days, marker with a version beneath", Rule{Enabled: true, ExpirationDays: 1}, ExpirationDays, withVersions, 0, ReasonMarkerWithVersions, ""},
		{"Expiration Days, lone marker", Rule{Enabled: true, ExpirationDays: 1}, ExpirationDays, alone, 0, ReasonNone, ExpiredDeleteMarker},
		{"Expiration Date, lone marker", Rule{Enabled: true, ExpirationDate: evalDay1}, ExpirationDate, alone, 0, ReasonDeleteMarker, ""},
		{"ExpiredObjectDeleteMarker, marker with a version beneath", Rule{Enabled: true, ExpiredObjectDeleteMarker: true}, ExpiredDeleteMarker, withVersions, 0, ReasonMarkerWithVersions, ""},
		{"ExpiredObjectDeleteMarker, lone marker", Rule{Enabled: true, ExpiredObjectDeleteMarker: true}, ExpiredDeleteMarker, alone, 0, ReasonNone, ExpiredDeleteMarker},
		{"ObjectSizeGreaterThan, noncurrent marker", Rule{Enabled: true, NoncurrentDays: 1, Filter: Filter{SizeGreaterThan: &gt}}, NoncurrentDays, noncurrentMarker, 1, ReasonFilter, ""},
		{"ObjectSizeLessThan, lone marker", Rule{Enabled: true, ExpirationDays: 1, Filter: Filter{SizeLessThan: &lt}}, ExpirationDays, alone, 0, ReasonFilter, ""},
		{"tag filter, noncurrent marker", Rule{Enabled: true, NoncurrentDays: 1, Filter: Filter{Tags: []Tag{{"env", "dev"}}}}, NoncurrentDays, noncurrentMarker, 1, ReasonFilter, ""},
		{"NoncurrentDays, noncurrent marker", Rule{Enabled: true, NoncurrentDays: 1}, NoncurrentDays, noncurrentMarker, 1, ReasonNone, NoncurrentDays},
		{"NewerNoncurrentVersions 1, version below a marker", Rule{Enabled: true, NewerNoncurrentVersions: 1}, NewerNoncurrent, noncurrentMarker, 2, ReasonNewerNoncurrentKept, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vd := ExplainVersion(&tc.r, tc.kind, tc.obj, tc.idx, RoundAWS)
			if vd.Reason != tc.reason || vd.Applies != (tc.reason == ReasonNone) {
				t.Fatalf("reason %s applies %v, want %s", vd.Reason, vd.Applies, tc.reason)
			}
			if vd.Applies && vd.Match.Kind != tc.kindIs {
				t.Errorf("match kind %s, want %s", vd.Match.Kind, tc.kindIs)
			}
		})
	}
}
