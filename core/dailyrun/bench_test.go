package dailyrun

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// BenchmarkRunSteadyState measures one steady-state pass replaying 20k
// meta-log events (half of them due) against the in-memory store: the
// engine, fan-out and drain cost without store I/O.
func BenchmarkRunSteadyState(b *testing.B) {
	const n = 20000
	base := ts("2026-11-01T00:00:00Z")
	now := ts("2026-11-30T00:00:00Z")
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r", 20))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st := newFakeStore()
		st.addBucket("logs", filer.VersioningOff)
		for k := 0; k < n; k++ {
			st.put("logs", fmt.Sprintf("app/%06d.log", k), "v1", base.Add(time.Duration(k)*time.Minute), 100)
		}
		for s := 0; s < 16; s++ {
			st.files[CursorPath(s)] = EncodeCursor(Cursor{TsNs: base.Add(-time.Hour).UnixNano(), RuleSetHash: engine.ReplayContentHash(snap)}, s)
		}
		b.StartTimer()
		res, err := Run(context.Background(), Config{Store: st, Snapshot: snap, RunNow: now, Clock: time.Now, WalkerInterval: time.Hour})
		if err != nil || res.Status() != StatusOK {
			b.Fatalf("run: %v %v", err, res.Status())
		}
	}
}

// BenchmarkRouter measures the replay's routing and rule matching alone,
// per meta-log event, with no store: the shard an event goes to
// (EventShard), the actions its type can trigger in its bucket, and the
// earliest due match of those on the version it names. Reported as
// events/s and events per CPU-second; the goal is 2M events/s per core
// (run with -cpu 1).
func BenchmarkRouter(b *testing.B) {
	const n = 4096
	now := ts("2026-11-30T00:00:00Z")
	snap := engine.Compile([]engine.Bucket{
		{Name: "logs", Rules: []lifecycle.Rule{expireDays("exp", 30), {ID: "tmp", Enabled: true, Filter: lifecycle.Filter{Prefix: "tmp/"}, ExpirationDays: 1}}},
		{Name: "data", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{{ID: "nc", Enabled: true, NoncurrentDays: 7}, expireDays("exp", 90)}},
	}, lifecycle.RoundAWS).Snapshot()
	p := newPass(Config{Snapshot: snap, RunNow: now, Clock: time.Now})
	events := make([]filer.Event, n)
	objs := make([]filer.Object, n)
	for i := range events {
		key := fmt.Sprintf("k/%08d.dat", i)
		mt := now.Add(-time.Duration(i) * time.Hour).UnixNano()
		if i%2 == 0 {
			events[i] = filer.Event{TsNs: mt, Type: filer.EventPut, Bucket: "logs", Key: key, VersionID: "null"}
			objs[i] = filer.Object{Key: key, Versions: []filer.Version{{VersionID: "null", IsLatest: true, MtimeNs: mt, Size: 1}}}
			continue
		}
		events[i] = filer.Event{TsNs: mt, Type: filer.EventDemote, Bucket: "data", Key: key, VersionID: "v1"}
		objs[i] = filer.Object{Key: key, Versions: []filer.Version{
			{VersionID: "v2", IsLatest: true, MtimeNs: mt + 1, Size: 1},
			{VersionID: "v1", MtimeNs: mt, Size: 1, NoncurrentSinceNs: mt + 1}}}
	}
	shards := [lifecycle.ShardCount]int{}
	matched := 0
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		ev := &events[i%n]
		shards[EventShard(*ev)]++
		acts := eventActs(p.replayView, *ev)
		obj := &objs[i%n]
		if _, _, ok := p.snap.BestVersionMatch(acts, obj, versionIndex(obj, ev.VersionID)); ok {
			matched++
		}
	}
	b.StopTimer()
	cpu := processCPU() - cpu0
	if matched == 0 {
		b.Fatal("no event matched a rule")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	if cpu > 0 {
		// The same rate per second of CPU: on a shared machine wall time
		// counts other processes' turns too.
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "events/cpu-s")
	}
}
