package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// BenchmarkKeyVerdicts decides every version of one key with n versions
// under NewerNoncurrentVersions and NoncurrentDays, as a walk or a replay
// of one of the key's puts does (one engine.Key for the key): the cost of
// a key with many versions.
func BenchmarkKeyVerdicts(b *testing.B) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range []int{10, 100, 1000} {
		obj := &filer.Object{Key: "k"}
		for i := range n {
			at := now.Add(-time.Duration(i) * time.Hour)
			v := filer.Version{VersionID: fmt.Sprintf("v%05d", n-i), MtimeNs: at.UnixNano(), IsLatest: i == 0}
			if i > 0 {
				v.NoncurrentSinceNs = obj.Versions[i-1].MtimeNs
			}
			obj.Versions = append(obj.Versions, v)
		}
		snap := CompileWith([]Bucket{{Name: "b", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{
			{ID: "keep", Enabled: true, NoncurrentDays: 1, NewerNoncurrentVersions: 5},
			{ID: "tmp", Enabled: true, NoncurrentDays: 3, Filter: lifecycle.Filter{Prefix: "k"}},
		}}}, Options{Rounding: lifecycle.RoundAWS}).Snapshot().At(now)
		acts := snap.BucketActions("b")
		b.Run(fmt.Sprint("versions=", n), func(b *testing.B) {
			for b.Loop() {
				key := snap.ForKey(obj)
				for idx := range obj.Versions {
					key.BestVersionMatch(acts, idx)
				}
			}
		})
	}
}
