package dailyrun

import (
	"slices"
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
)

// What a removal decides on the key as the lookup finds it: the latest
// version unless the store marks the removal noncurrent and the latest is
// no delete marker; and every noncurrent version whose demotion stamp is
// earlier than its successor's mtime (its successor was removed) or that
// has no stamp, since its noncurrent days now count from a later
// successor.
func TestRemovalTargets(t *testing.T) {
	ver := func(id string, mtime, since int64, marker bool) filer.Version {
		return filer.Version{VersionID: id, MtimeNs: mtime, NoncurrentSinceNs: since, DeleteMarker: marker}
	}
	latest := func(v filer.Version) filer.Version { v.IsLatest = true; return v }
	for _, c := range []struct {
		name       string
		versions   []filer.Version
		noncurrent bool
		want       []int
	}{
		{"successor stands, noncurrent removal", []filer.Version{latest(ver("l", 30, 0, false)), ver("v", 10, 31, false)}, true, nil},
		{"successor stands, unmarked removal", []filer.Version{latest(ver("l", 30, 0, false)), ver("v", 10, 31, false)}, false, []int{0}},
		{"successor removed", []filer.Version{latest(ver("l", 30, 0, false)), ver("v", 10, 20, false)}, true, []int{1}},
		{"successor removed, older one stands", []filer.Version{latest(ver("l", 30, 0, false)), ver("v", 10, 20, false), ver("w", 5, 11, false)}, true, []int{1}},
		{"no stamp", []filer.Version{latest(ver("l", 30, 0, false)), ver("v", 10, 0, false)}, false, []int{0, 1}},
		{"lone marker", []filer.Version{latest(ver("m", 30, 0, true))}, true, []int{0}},
		{"marker over a version whose successor was removed", []filer.Version{latest(ver("m", 30, 0, true)), ver("v", 10, 20, false)}, true, []int{0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := &filer.Object{Key: "k", Versions: c.versions}
			if got := removalTargets(obj, c.noncurrent); !slices.Equal(got, c.want) {
				t.Errorf("removalTargets = %v, want %v", got, c.want)
			}
			// Replay decides those targets, and only those, on the removal.
			ev := filer.Event{Type: filer.EventRemove, Noncurrent: c.noncurrent}
			var decided []int
			for _, tg := range eventTargets(nil, ev, obj) {
				decided = append(decided, tg.idx)
			}
			if !slices.Equal(decided, c.want) {
				t.Errorf("eventTargets of the removal = %v, want %v", decided, c.want)
			}
		})
	}
}
