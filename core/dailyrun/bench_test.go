package dailyrun

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
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
