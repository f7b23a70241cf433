package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// A Key deciding every version of a key, in any order and under every
// action, decides what the plain definition decides for each version
// alone: the reference below is ExplainVersion as it was before Key kept
// anything, every newer version's fate and every other rule's verdict
// decided afresh for each version.
func TestKeyDecidesAsEachVersionAlone(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	small := int64(50)
	rules := []lifecycle.Rule{
		{ID: "keep2", Enabled: true, NoncurrentDays: 2, NewerNoncurrentVersions: 2},
		{ID: "keep1-t", Enabled: true, Filter: lifecycle.Filter{Tags: []lifecycle.Tag{{Key: "t", Value: "1"}}}, NoncurrentDays: 5, NewerNoncurrentVersions: 1},
		{ID: "nc4", Enabled: true, NoncurrentDays: 4},
		{ID: "nc1-small", Enabled: true, Filter: lifecycle.Filter{SizeLessThan: &small}, NoncurrentDays: 1},
		{ID: "exp9", Enabled: true, ExpirationDays: 9, ExpiredObjectDeleteMarker: false},
		{ID: "edm", Enabled: true, ExpiredObjectDeleteMarker: true},
	}
	for _, count := range []lifecycle.NewerNoncurrentCount{lifecycle.CountObjectVersions, lifecycle.CountWithMarkers} {
		snap := CompileWith([]Bucket{{Name: "b", Versioning: filer.VersioningEnabled, Rules: rules}},
			Options{Rounding: lifecycle.RoundAWS, NewerNoncurrent: count}).Snapshot().At(now)
		acts := snap.BucketActions("b")
		for seed := range uint64(200) {
			rng := rand.New(rand.NewPCG(seed, 1))
			obj := &filer.Object{Key: "k"}
			n := 1 + rng.IntN(12)
			at := now.Add(-time.Duration(rng.IntN(20)) * day)
			for i := range n {
				v := filer.Version{VersionID: fmt.Sprintf("v%02d", n-i), MtimeNs: at.UnixNano(), IsLatest: i == 0,
					DeleteMarker: rng.IntN(4) == 0, Size: int64(rng.IntN(100))}
				if v.DeleteMarker {
					v.Size = 0
				}
				if rng.IntN(3) == 0 {
					v.Tags = map[string]string{"t": "1"}
				}
				if i > 0 {
					switch rng.IntN(4) {
					case 0: // no stamp
					case 1: // stamped for a successor since removed
						v.NoncurrentSinceNs = obj.Versions[i-1].MtimeNs - int64(rng.IntN(48))*int64(time.Hour)
					default:
						v.NoncurrentSinceNs = obj.Versions[i-1].MtimeNs
					}
				}
				obj.Versions = append(obj.Versions, v)
				at = at.Add(-time.Duration(1+rng.IntN(72)) * time.Hour)
			}
			key := snap.ForKey(obj)
			order := rng.Perm(n)
			for _, idx := range order {
				for _, a := range slices.Backward(acts) {
					got := key.ExplainVersion(a, idx)
					want := referenceExplain(snap, a, obj, idx)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("count %s seed %d: %s on version %d: Key decides %+v, alone %+v", count, seed, a.Key.RuleID, idx, got, want)
					}
				}
			}
		}
	}
}

func referenceExplain(s *Snapshot, a *CompiledAction, obj *filer.Object, idx int) lifecycle.Verdict {
	vd := lifecycle.ExplainVersionCounting(a.Rule, a.Key.Kind, obj, idx, s.Rounding, s.NewerNoncurrent)
	if vd.Applies && !s.ExpiredMarkers.Allows(a.Key.Kind, vd.Match) {
		return lifecycle.Verdict{Reason: lifecycle.ReasonExpiredMarkerKept, Filter: vd.Filter, Due: vd.Due}
	}
	if vd.Applies && vd.Due.Days > 0 && (vd.Due.From == lifecycle.BaseNoncurrentSince || vd.Due.From == lifecycle.BaseSuccessorCreation) {
		if !s.now.IsZero() && idx >= 2 {
			going := referenceGoing(s, a.Key.Bucket, obj, idx)
			if j := successorPast(going, idx); j != idx-1 {
				vd = lifecycle.ExplainVersionCounting(a.Rule, a.Key.Kind, without(obj, j, idx), j+1, s.Rounding, s.NewerNoncurrent)
			}
		}
		if !vd.Applies {
			return vd
		}
	}
	if vd.Applies && a.Key.Kind == lifecycle.NewerNoncurrent {
		n := 0
		for j := 1; j < idx; j++ {
			if obj.Versions[j].DeleteMarker && s.NewerNoncurrent == lifecycle.CountObjectVersions {
				continue
			}
			if !referenceDeletedBy(s, a, obj, j, vd.Match.Due) {
				n++
			}
		}
		if n < a.Rule.NewerNoncurrentVersions {
			return lifecycle.Verdict{Reason: lifecycle.ReasonNewerNoncurrentKept, Filter: vd.Filter, Due: vd.Due, NewerNoncurrent: n}
		}
	}
	return vd
}

func referenceGoing(s *Snapshot, bucket string, obj *filer.Object, idx int) []bool {
	going := make([]bool, idx)
	for j := 1; j < idx; j++ {
		k := successorPast(going, j)
		o := obj
		if k != j-1 {
			o = without(obj, k, j)
		}
		for _, b := range s.all[bucket] {
			if b.Mode == ModeDisabled || (b.Key.Kind != lifecycle.NoncurrentDays && b.Key.Kind != lifecycle.NewerNoncurrent) {
				continue
			}
			vd := lifecycle.ExplainVersionCounting(b.Rule, b.Key.Kind, o, k+1, s.Rounding, s.NewerNoncurrent)
			if vd.Applies && !vd.Match.Due.After(s.now) {
				going[j] = true
				break
			}
		}
	}
	return going
}

func referenceDeletedBy(s *Snapshot, a *CompiledAction, obj *filer.Object, j int, due time.Time) bool {
	if s.now.After(due) {
		due = s.now
	}
	for _, b := range s.all[a.Key.Bucket] {
		if b.Key == a.Key || b.Mode == ModeDisabled || (b.Key.Kind != lifecycle.NoncurrentDays && b.Key.Kind != lifecycle.NewerNoncurrent) {
			continue
		}
		vd := lifecycle.ExplainVersionCounting(b.Rule, b.Key.Kind, obj, j, s.Rounding, s.NewerNoncurrent)
		if vd.Applies && !vd.Match.Due.After(due) {
			return true
		}
	}
	return false
}
