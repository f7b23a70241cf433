package dailyrun

import (
	"context"
	"testing"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// Every action carries its target's size and what it frees, and each
// shard's counts have their bytes beside them: a noncurrent delete frees
// the version, an Expiration on a versioned bucket (a delete marker) frees
// nothing, an unversioned bucket's frees the object, pending matches count
// in pending bytes, an upload counts 0.
func TestRunCountsBytes(t *testing.T) {
	for _, dry := range []bool{false, true} {
		st := newFakeStore()
		st.addBucket("ver", filer.VersioningEnabled)
		st.addBucket("flat", filer.VersioningOff)
		st.put("ver", "k", "v1", ts("2026-11-01T00:00:00Z"), 100)
		st.put("ver", "k", "v2", ts("2026-11-27T00:00:00Z"), 200)
		st.put("ver", "old", "x1", ts("2026-11-01T00:00:00Z"), 300)
		st.put("ver", "young", "y1", ts("2026-11-29T00:00:00Z"), 7)
		st.put("flat", "f", "null", ts("2026-11-01T00:00:00Z"), 50)
		st.uploads["flat"] = []filer.Upload{{Key: "up", UploadID: "u1", Initiated: ts("2026-11-01T00:00:00Z")}}
		snap := engineOf(
			bucketRules{"ver", filer.VersioningEnabled, []lifecycle.Rule{{ID: "nc", Enabled: true, NoncurrentDays: 1}, expireDays("exp", 5)}},
			bucketRules{"flat", filer.VersioningOff, []lifecycle.Rule{expireDays("e", 1), {ID: "mpu", Enabled: true, AbortMPUDays: 1}}},
		)
		res := runPass(t, context.Background(), st, snap, ts("2026-11-30T00:00:00Z"), func(c *Config) { c.DryRun = dry })
		outcome := filer.OutcomeDone
		if dry {
			outcome = OutcomeDryRun
		}
		want := map[string][2]int64{ // key/kind -> size, bytes freed
			"k/NoncurrentDays": {100, 100}, "old/ExpirationDays": {300, 0}, "f/ExpirationDays": {50, 50}, "up/AbortMPU": {0, 0},
		}
		got := map[string][2]int64{}
		for _, a := range res.Actions {
			if a.Outcome != outcome {
				t.Errorf("dry=%v %s/%s: outcome %s", dry, a.Key, a.Kind, a.Outcome)
			}
			got[a.Key+"/"+string(a.Kind)] = [2]int64{a.Size, a.BytesFreed}
		}
		if len(got) != len(want) {
			t.Errorf("dry=%v actions %v, want %v", dry, got, want)
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("dry=%v %s: size, freed %v, want %v", dry, k, got[k], w)
			}
		}
		var freed, outBytes, pendingBytes, matchBytes int64
		for _, s := range res.Shards {
			freed += s.BytesFreed
			outBytes += s.OutcomeBytes[outcome]
			pendingBytes += s.PendingBytes
			matchBytes += s.MatchBytes
		}
		if freed != 150 || outBytes != 450 || pendingBytes != 207 {
			t.Errorf("dry=%v shards: freed %d, %s bytes %d, pending bytes %d; want 150, 450, 207", dry, freed, outcome, outBytes, pendingBytes)
		}
		if matchBytes < outBytes+pendingBytes {
			t.Errorf("dry=%v match bytes %d < dispatched %d + pending %d", dry, matchBytes, outBytes, pendingBytes)
		}
	}
}

type bucketRules struct {
	name  string
	v     filer.Versioning
	rules []lifecycle.Rule
}

func engineOf(bs ...bucketRules) *engine.Snapshot {
	var in []engine.Bucket
	for _, b := range bs {
		in = append(in, engine.Bucket{Name: b.name, Versioning: b.v, Rules: b.rules})
	}
	return engine.Compile(in, lifecycle.RoundAWS).Snapshot()
}
