package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// loggedStore is a fakeStore whose every change, the pass's own deletes
// included, is a meta-log event, as on a real filer: the pending summary
// relies on that (docs/design/daily-run.md#pending-summary).
type loggedStore struct {
	*fakeStore // its clockNs stamps events too: at it or after the last
}

func newLoggedStore() *loggedStore {
	ls := &loggedStore{fakeStore: newFakeStore()}
	ls.beforeDelete = nil
	return ls
}

// nextTs is the store's next event time: its clock, or just after the
// last event when the clock is behind.
func (s *loggedStore) nextTs() int64 {
	ts := s.clockNs
	for _, ev := range s.events {
		if ev.TsNs >= ts {
			ts = ev.TsNs + 1
		}
	}
	return ts
}

// LifecycleDelete re-checks and deletes as fakeStore does (stillDue,
// apply: as the embedded filer does) and logs every change. A removal
// says whether the version was noncurrent (filer.Event.Noncurrent), as
// the embedded filer's does.
func (s *loggedStore) LifecycleDelete(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	if req.Expected.UploadID != "" {
		out, err := s.fakeStore.LifecycleDelete(ctx, req)
		if err == nil && out == filer.OutcomeDone {
			s.mu.Lock()
			s.events = append(s.events, filer.Event{TsNs: s.nextTs(), Type: filer.EventMPURemove, Bucket: req.Bucket, Key: req.Key, UploadID: req.Expected.UploadID})
			s.mu.Unlock()
		}
		return out, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := req.Bucket + "/" + req.Key + "/" + req.Expected.VersionID
	s.tries[id]++
	if s.script != nil {
		if out, err, ok := s.script(req, s.tries[id]); ok {
			return out, err
		}
	}
	if s.beforeDelete != nil {
		s.beforeDelete(s.fakeStore, req)
	}
	s.deletes = append(s.deletes, req)
	o := s.objects[req.Bucket][req.Key]
	if o == nil {
		return filer.OutcomeNoopResolved, nil
	}
	i := slices.IndexFunc(o.Versions, func(v filer.Version) bool { return v.Identity() == req.Expected })
	if i < 0 || !stillDue(req, o, i) {
		return filer.OutcomeNoopResolved, nil
	}
	return s.apply(req, o, i, s.nextTs, func(ev filer.Event) { s.events = append(s.events, ev) }), nil
}

func (s *loggedStore) setTags(bucket, key, vid string, tags map[string]string, at int64) {
	for i, v := range s.objects[bucket][key].Versions {
		if v.VersionID == vid {
			s.objects[bucket][key].Versions[i].Tags = tags
		}
	}
	s.events = append(s.events, filer.Event{TsNs: at, Type: filer.EventPut, Bucket: bucket, Key: key, VersionID: vid})
}

func (s *loggedStore) initUpload(bucket, key, id string, at int64) {
	s.uploads[bucket] = append(s.uploads[bucket], filer.Upload{Key: key, UploadID: id, Initiated: time.Unix(0, at).UTC()})
	s.events = append(s.events, filer.Event{TsNs: at, Type: filer.EventMPUInit, Bucket: bucket, Key: key, UploadID: id})
}

func (s *loggedStore) completeUpload(bucket, id string, at int64) {
	ups := s.uploads[bucket]
	for i, u := range ups {
		if u.UploadID == id {
			s.uploads[bucket] = append(ups[:i:i], ups[i+1:]...)
			s.events = append(s.events, filer.Event{TsNs: at, Type: filer.EventMPURemove, Bucket: bucket, Key: u.Key, UploadID: id})
			return
		}
	}
}

func (s *loggedStore) removeLatest(bucket, key string, at int64) {
	o := s.objects[bucket][key]
	if o == nil || len(o.Versions) == 0 {
		return
	}
	vid := o.Versions[0].VersionID
	o.Versions = o.Versions[1:]
	if len(o.Versions) > 0 {
		o.Versions[0].IsLatest = true
		o.Versions[0].NoncurrentSinceNs = 0
	} else {
		delete(s.objects[bucket], key)
	}
	s.events = append(s.events, filer.Event{TsNs: at, Type: filer.EventRemove, Bucket: bucket, Key: key, VersionID: vid})
}

// removeNoncurrent removes the noncurrent version vid of key, as a
// DeleteObject with that version ID does, and logs the removal as
// noncurrent.
func (s *loggedStore) removeNoncurrent(bucket, key, vid string, at int64) {
	o := s.objects[bucket][key]
	for i, v := range o.Versions {
		if v.VersionID == vid && !v.IsLatest {
			o.Versions = append(o.Versions[:i:i], o.Versions[i+1:]...)
			s.events = append(s.events, filer.Event{TsNs: at, Type: filer.EventRemove, Bucket: bucket, Key: key, VersionID: vid, Noncurrent: true})
			return
		}
	}
}

// diffSnapshot holds several rule kinds over a versioned, a suspended and
// an unversioned bucket, with prefix and tag filters.
func diffSnapshot() *engine.Snapshot { return diffRules(false) }

// diffRules is the differential's rule set; edited is the same after a
// rule edit: two rules' days shortened, a size rule added.
func diffRules(edited bool) *engine.Snapshot {
	cold := []lifecycle.Tag{{Key: "tier", Value: "cold"}}
	small, big := int64(40), int64(150)
	nc, logs := 7, 30
	unv := []lifecycle.Rule{
		{ID: "exp12", Enabled: true, ExpirationDays: 12},
		{ID: "exp4-cold", Enabled: true, Filter: lifecycle.Filter{Tags: cold}, ExpirationDays: 4},
		{ID: "mpu2", Enabled: true, AbortMPUDays: 2},
		{ID: "exp3-big", Enabled: true, Filter: lifecycle.Filter{SizeGreaterThan: &big}, ExpirationDays: 3},
	}
	if edited {
		nc, logs = 4, 20
		unv = append(unv, lifecycle.Rule{ID: "exp2-big-logs", Enabled: true, Filter: lifecycle.Filter{Prefix: "logs/", SizeGreaterThan: &small}, ExpirationDays: 2})
	}
	return engine.Compile([]engine.Bucket{
		{Name: "ver", Versioning: filer.VersioningEnabled, Rules: []lifecycle.Rule{
			{ID: "nc7", Enabled: true, NoncurrentDays: nc},
			{ID: "exp30-logs", Enabled: true, Filter: lifecycle.Filter{Prefix: "logs/"}, ExpirationDays: logs},
			{ID: "nc2-cold", Enabled: true, Filter: lifecycle.Filter{Tags: cold}, NoncurrentDays: 2},
			{ID: "newer", Enabled: true, Filter: lifecycle.Filter{Prefix: "keep/"}, NoncurrentDays: 3, NewerNoncurrentVersions: 1},
			{ID: "nc1-small", Enabled: true, Filter: lifecycle.Filter{Prefix: "data/", SizeLessThan: &small}, NoncurrentDays: 1},
			{ID: "markers", Enabled: true, ExpiredObjectDeleteMarker: true},
			{ID: "mpu3", Enabled: true, AbortMPUDays: 3},
		}},
		{Name: "sus", Versioning: filer.VersioningSuspended, Rules: []lifecycle.Rule{
			{ID: "exp20", Enabled: true, ExpirationDays: 20},
			{ID: "nc5", Enabled: true, NoncurrentDays: 5},
		}},
		{Name: "unv", Versioning: filer.VersioningOff, Rules: unv},
	}, lifecycle.RoundAWS).Snapshot()
}

// diffWorld writes a deterministic history, then on each day the changes
// of that day, at times strictly between the passes.
type diffWorld struct {
	st   *loggedStore
	rng  *rand.Rand
	used map[int64]bool // event times taken, so every event time is unique
	ids  int
}

func newDiffWorld(seed uint64, start time.Time) *diffWorld {
	w := &diffWorld{st: newLoggedStore(), rng: rand.New(rand.NewPCG(seed, 7)), used: map[int64]bool{}}
	w.st.addBucket("ver", filer.VersioningEnabled)
	w.st.addBucket("sus", filer.VersioningSuspended)
	w.st.addBucket("unv", filer.VersioningOff)
	// 40 days of history before start.
	w.changes(start.Add(-40*day), start, 120)
	return w
}

// at is a time in (from, to), a multiple of 1000ns not used before: a
// change may stamp a few events in the nanoseconds after it.
func (w *diffWorld) at(from, to time.Time) int64 {
	for {
		t := from.UnixNano() + int64(time.Second) + w.rng.Int64N(int64(to.Sub(from)-2*time.Second))/1000*1000
		if !w.used[t] {
			w.used[t] = true
			return t
		}
	}
}

func (w *diffWorld) keys(bucket string) []string {
	var ks []string
	for k := range w.st.objects[bucket] {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// changes applies n random changes at times in (from, to), in time order.
func (w *diffWorld) changes(from, to time.Time, n int) {
	times := make([]int64, n)
	for i := range times {
		times[i] = w.at(from, to)
	}
	slices.Sort(times)
	buckets := []string{"ver", "sus", "unv"}
	for _, t := range times {
		b := buckets[w.rng.IntN(len(buckets))]
		keys := w.keys(b)
		w.ids++
		vid := fmt.Sprintf("v%04d", w.ids)
		pick := func() string {
			if len(keys) == 0 {
				return ""
			}
			return keys[w.rng.IntN(len(keys))]
		}
		switch op := w.rng.IntN(10); {
		case op < 4 || len(keys) == 0: // a new key
			prefix := []string{"logs/", "keep/", "data/"}[w.rng.IntN(3)]
			w.put(b, fmt.Sprintf("%s%03d", prefix, w.rng.IntN(60)), vid, t)
		case op < 6: // a key rewritten
			w.put(b, pick(), vid, t)
		case op < 7: // a tag on some version, current or not
			k := pick()
			vs := w.st.objects[b][k].Versions
			w.st.setTags(b, k, vs[w.rng.IntN(len(vs))].VersionID, map[string]string{"tier": "cold"}, t)
		case op < 8 && b != "unv": // a version removed: the latest (the one beneath is latest again) or a noncurrent one
			k := pick()
			if vs := w.st.objects[b][k].Versions; len(vs) > 1 && w.rng.IntN(2) == 0 {
				w.st.removeNoncurrent(b, k, vs[1+w.rng.IntN(len(vs)-1)].VersionID, t)
			} else {
				w.st.removeLatest(b, k, t)
			}
		case op < 9 && b != "unv": // a delete marker
			w.st.putMarker(b, pick(), vid, time.Unix(0, t).UTC())
		default: // uploads come and go
			if ups := w.st.uploads[b]; len(ups) > 0 && w.rng.IntN(2) == 0 {
				w.st.completeUpload(b, ups[w.rng.IntN(len(ups))].UploadID, t)
			} else {
				w.st.initUpload(b, fmt.Sprintf("up/%02d", w.rng.IntN(20)), "u"+vid, t)
			}
		}
	}
}

// put writes a new version; in the unversioned bucket it replaces the key.
func (w *diffWorld) put(bucket, key, vid string, t int64) {
	if bucket == "unv" {
		if o := w.st.objects[bucket][key]; o != nil {
			w.st.removeLatest(bucket, key, t)
			t += 10
		}
	}
	w.st.put(bucket, key, vid, time.Unix(0, t).UTC(), 1+w.rng.Int64N(200))
}

// sameDays runs pass for days daily passes from start (day d at start
// plus d days and d%3 hours), applying before each pass after the first
// the same 15 changes to both worlds since the pass before, and setting
// both stores' clocks to the pass's and clearing their delete logs.
func sameDays(start time.Time, days int, a, b *diffWorld, pass func(d int, now time.Time)) {
	prev := start
	for d := range days {
		now := start.Add(time.Duration(d)*day + time.Duration(d%3)*time.Hour)
		if d > 0 {
			a.changes(prev, now, 15)
			b.changes(prev, now, 15)
		}
		for _, w := range []*diffWorld{a, b} {
			w.st.clockNs = now.UnixNano()
			w.st.deletes = nil
		}
		pass(d, now)
		prev = now
	}
}

// stripSummaries removes the pending summary from every saved cursor.
func stripSummaries(t *testing.T, st filer.Store) {
	t.Helper()
	for shard := range lifecycle.ShardCount {
		c, found, err := LoadCursor(context.Background(), st, shard)
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			continue
		}
		c.Summary = nil
		if err := SaveCursor(context.Background(), st, shard, c); err != nil {
			t.Fatal(err)
		}
	}
}

// doneSet is what a pass deleted (DONE): requests a store resolved as
// no-ops are not deletes, and a plain replay repeats some on purpose.
func doneSet(res *Result) []string {
	var out []string
	for _, a := range res.Actions {
		if a.Outcome == filer.OutcomeDone {
			out = append(out, fmt.Sprintf("%s %s/%s@%s%s", a.Kind, a.Bucket, a.Key, a.VersionID, a.UploadID))
		}
	}
	sort.Strings(out)
	return out
}

// A sequence of daily passes with the pending summary deletes exactly what
// the same sequence deletes when every cursor's summary is stripped (a
// plain replay from the cursor), day by day, over generated histories with
// every rule kind, three versioning states, tags, removed latest versions,
// delete markers and uploads, rewritten between passes; and it decides
// fewer events doing so.
func TestSummaryDeletesWhatPlainReplayDeletes(t *testing.T) {
	snap := diffSnapshot()
	for _, tc := range []struct {
		name     string
		seed     uint64
		interval time.Duration // --walker-interval
		inFlight int
	}{
		{"walk daily", 1, 0, 0},
		{"walk weekly", 2, 7 * day, 0},
		{"one at a time", 3, 7 * day, 1},
		{"walk daily 2", 4, 0, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := ts("2026-03-01T06:00:00Z")
			with, plain := newDiffWorld(tc.seed, start), newDiffWorld(tc.seed, start)
			var scannedWith, scannedPlain, deleted int64
			sameDays(start, 30, with, plain, func(d int, now time.Time) {
				mod := func(c *Config) { c.WalkerInterval, c.InFlight = tc.interval, tc.inFlight }
				rw := runStoreLogged(t, with.st, snap, now, mod)
				rp := runStoreLogged(t, plain.st, snap, now, mod)
				stripSummaries(t, plain.st)
				for _, r := range []*Result{rw, rp} {
					if r.Status() != StatusOK {
						t.Fatalf("day %d: status %s", d, r.Status())
					}
				}
				if diff := cmp.Diff(doneSet(rp), doneSet(rw)); diff != "" {
					t.Fatalf("day %d (%s): deletes with the summary differ from a plain replay (-plain +summary):\n%s", d, now.Format(time.RFC3339), diff)
				}
				if diff := cmp.Diff(plain.st.remaining(), with.st.remaining()); diff != "" {
					t.Fatalf("day %d: remaining differ (-plain +summary):\n%s", d, diff)
				}
				for _, s := range rw.Shards {
					scannedWith += s.EventsScanned
				}
				deleted += int64(len(doneSet(rw)))
				for _, s := range rp.Shards {
					scannedPlain += s.EventsScanned
				}
			})
			if scannedWith >= scannedPlain {
				t.Errorf("events decided: %d with the summary, %d without: the summary saved nothing", scannedWith, scannedPlain)
			}
			if deleted < 30 {
				t.Errorf("only %d deletes over 30 days: the fixture exercises too little", deleted)
			}
			t.Logf("over 30 days: %d deletes; events decided: %d with the summary, %d plain", deleted, scannedWith, scannedPlain)
		})
	}
}

// runStoreLogged is runStore with listing pages of 7 keys.
func runStoreLogged(t *testing.T, st *loggedStore, snap *engine.Snapshot, now time.Time, mod func(*Config)) *Result {
	t.Helper()
	return runStore(t, st, snap, now, func(c *Config) {
		c.PageSize = 7
		if mod != nil {
			mod(c)
		}
	})
}

// A steady pass decides only the events of segments due by its clock and
// the events after the summary's decided-through point: the pending
// events of the days before are carried forward unread, and the cursor
// stays before the first of them.
func TestSteadyPassDecidesOnlyDueSegmentsAndNewEvents(t *testing.T) {
	st := newLoggedStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r10", 10))
	cold := ts("2026-11-30T12:00:00Z")
	// 400 keys written over the 8 days before the cold pass, one every
	// 28.8 minutes: none due at the cold pass, each due 10 days (rounded
	// to midnight) after its write.
	for i := range 400 {
		st.put("logs", fmt.Sprintf("k%03d", i), "v1", cold.Add(-8*day+time.Duration(i)*8*day/400), 1)
	}
	now := cold
	st.clockNs = now.UnixNano()
	res := runStoreLogged(t, st, snap, now, nil)
	if n := sumScanned(res); n != 400 {
		t.Fatalf("cold pass decided %d events, want 400", n)
	}
	for shard := range lifecycle.ShardCount {
		c, _, _ := LoadCursor(context.Background(), st, shard)
		if c.Summary == nil || len(c.Summary.Segments) == 0 || c.Summary.Segments[0].FirstTsNs <= c.TsNs {
			t.Fatalf("shard %d saved no usable summary: %+v", shard, c)
		}
	}

	for _, tc := range []struct {
		at        time.Time
		newKeys   int
		wantDue   int // keys due at the pass: their events are in due segments
		wantAtMax int // at most this many events decided
	}{
		{cold.Add(1 * day), 3, 0, 3},            // nothing due: only the 3 new events
		{cold.Add(2 * day), 0, 0, 0},            // a quiet day decides nothing
		{ts("2026-12-02T12:00:00Z"), 0, 0, 0},   // the same day again: nothing new
		{ts("2026-12-03T00:00:00Z"), 2, 25, 40}, // the 25 keys written on 2026-11-22 are due: their segments and the 2 new events
	} {
		for i := range tc.newKeys {
			st.put("logs", fmt.Sprintf("new-%s-%d", tc.at.Format("0102"), i), "v1", tc.at.Add(-time.Hour-time.Duration(i)*time.Minute), 1)
		}
		st.clockNs = tc.at.UnixNano()
		st.lookups, st.deletes = 0, nil
		res := runStoreLogged(t, st, snap, tc.at, nil)
		n := sumScanned(res)
		if len(st.deletes) != tc.wantDue {
			t.Errorf("%s: %d deletes, want %d", tc.at.Format(time.RFC3339), len(st.deletes), tc.wantDue)
		}
		if n < int64(tc.newKeys+tc.wantDue) || n > int64(tc.wantAtMax) {
			t.Errorf("%s: decided %d events, want between %d and %d", tc.at.Format(time.RFC3339), n, tc.newKeys+tc.wantDue, tc.wantAtMax)
		}
		if st.lookups != int(n) {
			t.Errorf("%s: %d lookups for %d events", tc.at.Format(time.RFC3339), st.lookups, n)
		}
		for _, s := range res.Shards {
			if s.Cursor.Summary == nil || s.Cursor.Summary.DecidedThroughNs != tc.at.UnixNano()-1 {
				t.Errorf("%s: shard %d summary %+v, want decided through the boundary", tc.at.Format(time.RFC3339), s.Shard, s.Cursor.Summary)
			}
		}
	}
	// A summary stripped: the shard replays every event after its cursor.
	stripSummaries(t, st)
	res = runStoreLogged(t, st, snap, ts("2026-12-03T06:00:00Z"), nil)
	if n := sumScanned(res); n < 300 {
		t.Errorf("without summaries the pass decided %d events, want every pending one (>= 300)", n)
	}
}

func sumScanned(res *Result) int64 {
	var n int64
	for _, s := range res.Shards {
		n += s.EventsScanned
	}
	return n
}

// A pass cancelled in the middle of its deletes saves cursors and
// summaries that claim only what it decided and finished: the passes after
// it delete exactly what an uncancelled sequence deletes.
func TestCancelledPassSavesSummaryItDecided(t *testing.T) {
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r10", 10))
	cold := ts("2026-11-30T12:00:00Z")
	build := func() *loggedStore {
		st := newLoggedStore()
		st.addBucket("logs", filer.VersioningOff)
		for i := range 120 {
			st.put("logs", fmt.Sprintf("k%03d", i), "v1", cold.Add(-8*day+time.Duration(i)*time.Hour), 1)
		}
		st.clockNs = cold.UnixNano()
		runStoreLogged(t, st, snap, cold, nil)
		for i := range 20 {
			st.put("logs", fmt.Sprintf("n%03d", i), "v1", cold.Add(day+time.Duration(i+1)*time.Minute), 1)
		}
		return st
	}
	cut, whole := build(), build()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deletes := 0
	cut.script = func(filer.DeleteRequest, int) (filer.Outcome, error, bool) {
		if deletes++; deletes == 10 {
			cancel()
		}
		return "", nil, false
	}
	next := cold.Add(3 * day)
	lazy := func(c *Config) { c.WalkerInterval = 100 * day; c.InFlight = 1 }
	for _, st := range []*loggedStore{cut, whole} {
		st.clockNs = next.UnixNano()
	}
	cfg := Config{Store: cut, Snapshot: snap, RunNow: next, Clock: func() time.Time { return next }, WalkerInterval: 100 * day, InFlight: 1}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status() != StatusCancelled {
		t.Fatalf("status %s, want cancelled", res.Status())
	}
	for _, s := range res.Shards {
		c, _, err := LoadCursor(context.Background(), cut, s.Shard)
		if err != nil || c.Summary == nil || c.Summary.CursorTsNs != c.TsNs {
			t.Fatalf("shard %d (%s): cursor %+v, %v", s.Shard, s.Status, c, err)
		}
	}
	runStoreLogged(t, whole, snap, next, lazy)
	cut.script = nil
	for _, at := range []time.Time{next, next.Add(day), next.Add(5 * day), next.Add(20 * day)} {
		for _, st := range []*loggedStore{cut, whole} {
			st.clockNs = at.UnixNano()
			runStoreLogged(t, st, snap, at, lazy)
		}
		if diff := cmp.Diff(whole.remaining(), cut.remaining()); diff != "" {
			t.Fatalf("%s: remaining after a cancelled pass (-uncancelled +cancelled):\n%s", at.Format(time.RFC3339), diff)
		}
	}
	if len(whole.remaining()) != 0 {
		t.Errorf("left %v", whole.remaining())
	}
}

func TestDecodeSummaryStrict(t *testing.T) {
	zero := `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`
	cursor := func(summary string) string {
		return `{"version":1,"shard_id":3,"ts_ns":10,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"ilmctl_summary":` + summary + `}`
	}
	for _, tc := range []struct {
		name, summary, want string
	}{
		{"not an object", `[1]`, "cannot unmarshal"},
		{"unknown field", `{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[],"x":1}`, "unknown field"},
		{"through before cursor", `{"cursor_ts_ns":10,"decided_through_ns":5,"segments":[]}`, "before cursor_ts_ns"},
		{"short triple", `{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[[11,12]]}`, "has 2 numbers"},
		{"at the cursor", `{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[[10,12,5]]}`, "starts at 10"},
		{"overlapping", `{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[[11,14,5],[14,15,5]]}`, "starts at 14"},
		{"reversed", `{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[[14,12,5]]}`, "ends before it starts"},
		{"past through", `{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[[14,21,5]]}`, "after decided_through_ns"},
		{"no due", `{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[[14,15,0]]}`, "no due time"},
		{"too many", `{"cursor_ts_ns":10,"decided_through_ns":2000,"segments":[` + strings.TrimSuffix(strings.Repeat("[11,11,1],", MaxSummarySegments+1), ",") + `]}`, "257 segments"},
	} {
		_, err := DecodeCursor([]byte(cursor(tc.summary)), 3)
		if !errors.Is(err, ErrCorruptCursor) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrCorruptCursor mentioning %q", tc.name, err, tc.want)
		}
	}
	c, err := DecodeCursor([]byte(cursor(`{"cursor_ts_ns":10,"decided_through_ns":20,"segments":[[11,12,99],[15,20,98]]}`)), 3)
	want := &Summary{CursorTsNs: 10, DecidedThroughNs: 20, Segments: []Segment{{11, 12, 99}, {15, 20, 98}}}
	if err != nil || !cmp.Equal(c.Summary, want) {
		t.Fatalf("decoded %+v, %v; want %+v", c.Summary, err, want)
	}
	if got, err := DecodeCursor(EncodeCursor(c, 3), 3); err != nil || !cmp.Equal(got.Summary, want) {
		t.Errorf("round trip %+v, %v", got.Summary, err)
	}
}

// A summary that does not fit its cursor is ignored, never an error: the
// cursor's ts_ns moved (by hand, to replay again), or the summary claims
// events past this pass's boundary (a pass dated before the saving one).
func TestSummaryUsable(t *testing.T) {
	sum := &Summary{CursorTsNs: 10, DecidedThroughNs: 100}
	for _, tc := range []struct {
		name   string
		c      Cursor
		until  int64
		usable bool
	}{
		{"fits", Cursor{TsNs: 10}, 100, true},
		{"cursor moved", Cursor{TsNs: 5}, 100, false},
		{"pass dated earlier", Cursor{TsNs: 10}, 99, false},
	} {
		if got := sum.usable(tc.c, tc.until); got != tc.usable {
			t.Errorf("%s: usable = %v, want %v", tc.name, got, tc.usable)
		}
	}
	if (*Summary)(nil).usable(Cursor{}, 1) {
		t.Error("nil summary usable")
	}
}

// The builder keeps at most MaxSummarySegments in event order, each
// holding its events' earliest due time, and cuts at the decided point.
func TestSummaryBuilderBounded(t *testing.T) {
	b := newSummaryBuilder()
	// 10,000 pending events, each due an hour before the one before it:
	// 417 days of due times.
	base := 20_000 * day.Nanoseconds()
	due := func(i int64) int64 { return base - i*time.Hour.Nanoseconds() }
	for i := int64(1); i <= 10000; i++ {
		b.pending(i*10, due(i))
	}
	whole := b.summary(0, 100_000)
	if n := len(whole.Segments); n > MaxSummarySegments || n < MaxSummarySegments/2 {
		t.Fatalf("%d segments", n)
	}
	// Segments split the due times evenly: none spans more than twice its
	// share of the 417 days (events are an hour apart, 10 ns apart in
	// the meta-log).
	for _, g := range whole.Segments {
		if days := (g.LastTsNs - g.FirstTsNs) / 10 / 24; days > 2*417/int64(len(whole.Segments))+1 {
			t.Errorf("segment %+v spans %d days of due times", g, days)
		}
	}
	s := b.summary(0, 50_000)
	prev := int64(0)
	for _, g := range s.Segments {
		if g.FirstTsNs <= prev || g.LastTsNs > 50_000 || g.MinDueNs > due(g.LastTsNs/10) {
			t.Fatalf("segment %+v after %d", g, prev)
		}
		prev = g.LastTsNs
	}
	if last := s.Segments[len(s.Segments)-1]; last.LastTsNs != 50_000 {
		t.Errorf("last segment %+v, want cut at 50000", last)
	}
}

// A burst of pending events due the same day, like the demotions of a
// pass's delete markers, merges among itself: the segments carried before
// it, each due another day, stay as they were instead of folding into one
// due at the earliest of them.
func TestSummaryBuilderKeepsSegmentsDueApart(t *testing.T) {
	b := newSummaryBuilder()
	var carried []Segment
	for i := int64(1); i <= 60; i++ {
		g := Segment{FirstTsNs: i * 1000, LastTsNs: i*1000 + 500, MinDueNs: (20_000 + i) * day.Nanoseconds()}
		carried = append(carried, g)
		b.carry(g)
	}
	burstDue := (20_000+100)*day.Nanoseconds() + 5*time.Hour.Nanoseconds()
	for i := int64(1); i <= 100_000; i++ {
		b.pending(1_000_000+i, burstDue+i) // the same day, nanoseconds apart
	}
	s := b.summary(0, 2_000_000)
	if len(s.Segments) > MaxSummarySegments {
		t.Fatalf("%d segments", len(s.Segments))
	}
	if diff := cmp.Diff(carried, s.Segments[:len(carried)]); diff != "" {
		t.Errorf("carried segments changed (-carried +summary):\n%s", diff)
	}
	for _, g := range s.Segments[len(carried):] {
		if g.FirstTsNs <= 1_000_000 || dueDay(g.MinDueNs) != dueDay(burstDue) {
			t.Errorf("burst segment %+v", g)
		}
	}
}

func TestMergeSpans(t *testing.T) {
	for _, tc := range []struct {
		in    []span
		limit int
		want  []span
	}{
		{[]span{{5, 10}, {0, 3}, {3, 4}, {8, 20}}, 10, []span{{0, 4}, {5, 20}}},
		{[]span{{0, 1}, {10, 11}, {13, 14}, {30, 31}}, 2, []span{{0, 14}, {30, 31}}},
		{nil, 4, nil},
	} {
		if got := mergeSpans(tc.in, tc.limit); !cmp.Equal(got, tc.want, cmp.AllowUnexported(span{})) {
			t.Errorf("mergeSpans(%v, %d) = %v, want %v", tc.in, tc.limit, got, tc.want)
		}
	}
}

// A summary is never authority: a cursor whose ts_ns was moved back by
// hand replays every event after it, and a rule edit rewinds the cursor
// and drops the summary.
func TestSummaryIgnoredWhenCursorMovedOrRulesChange(t *testing.T) {
	st := newLoggedStore()
	st.addBucket("logs", filer.VersioningOff)
	snap := snapshotOf("logs", filer.VersioningOff, expireDays("r10", 10))
	cold := ts("2026-11-30T12:00:00Z")
	for i := range 64 {
		st.put("logs", fmt.Sprintf("k%03d", i), "v1", cold.Add(-8*day+time.Duration(i)*time.Hour), 1)
	}
	st.clockNs = cold.UnixNano()
	runStoreLogged(t, st, snap, cold, nil)
	next := cold.Add(day)
	st.clockNs = next.UnixNano()
	if n := sumScanned(runStoreLogged(t, st, snap, next, nil)); n != 0 {
		t.Fatalf("steady pass with summaries decided %d events, want 0", n)
	}
	// Every cursor moved back to the floor by hand, summaries kept.
	floor := next.Add(-engine.MaxEffectiveTTL(snap)).UnixNano()
	rewriteCursors(t, st, func(c *Cursor) { c.TsNs = floor })
	if n := sumScanned(runStoreLogged(t, st, snap, next, nil)); n != 64 {
		t.Errorf("after moving the cursors back the pass decided %d events, want all 64", n)
	}
	// A rule edit: recovery walk, cursor rewound without a summary.
	edited := snapshotOf("logs", filer.VersioningOff, expireDays("r11", 11))
	res := runStoreLogged(t, st, edited, next, nil)
	for _, s := range res.Shards {
		if s.Recovery != RecoveryRuleEdit || s.Cursor.Summary != nil {
			t.Fatalf("shard %d after a rule edit: recovery %q, summary %+v", s.Shard, s.Recovery, s.Cursor.Summary)
		}
	}
}

// Replay with the pending summary deletes, day by day, what a pass that
// walks every rule every day deletes: the same generated histories (every
// rule kind, removed latest and noncurrent versions, delete markers made
// lone by a removal beneath them) with the same changes between passes,
// one world replaying its meta-log, the other walking everything as on a
// store without one. It pins that the events replay decides, the
// removal of a noncurrent version deciding only a delete marker above it
// included, reach every version a walk would delete.
//
// The seeds are soakSeeds: 50 by default, ILMCTL_SOAK_SEEDS to choose
// (`make soak` runs 1,000).
func TestReplayDeletesWhatAWalkDeletes(t *testing.T) {
	snap := diffSnapshot()
	seeds, err := soakSeeds(os.Getenv("ILMCTL_SOAK_SEEDS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			start := ts("2026-03-01T06:00:00Z")
			replay, walk := newDiffWorld(seed, start), newDiffWorld(seed, start)
			var removedNoncurrent, deleted int
			sameDays(start, 30, replay, walk, func(d int, now time.Time) {
				snap := snap
				if d >= 15 { // the rules are edited: replay recovers
					snap = diffRules(true)
				}
				mod := func(c *Config) { c.WalkerInterval, c.PageSize = 0, 7 }
				rr := runStore(t, replay.st, snap, now, mod)
				rw := runStore(t, walkOnly{walk.st}, snap, now, mod)
				for _, r := range []*Result{rr, rw} {
					if r.Status() != StatusOK {
						t.Fatalf("day %d: status %s", d, r.Status())
					}
				}
				if d == 15 {
					for _, s := range rr.Shards {
						if s.Recovery != RecoveryRuleEdit {
							t.Fatalf("day 15, rules edited: shard %d recovery %q, want rule_edit", s.Shard, s.Recovery)
						}
					}
				}
				if diff := cmp.Diff(walk.st.remaining(), replay.st.remaining()); diff != "" {
					t.Fatalf("day %d (%s): what replay left differs from what a walk left (-walk +replay):\n%s", d, now.Format(time.RFC3339), diff)
				}
				deleted += len(doneSet(rr))
			})
			for _, ev := range replay.st.events {
				if ev.Type == filer.EventRemove && ev.Noncurrent {
					removedNoncurrent++
				}
			}
			if deleted < 30 || removedNoncurrent < 10 {
				t.Errorf("%d deletes and %d removals of noncurrent versions over 30 days: the fixture exercises too little", deleted, removedNoncurrent)
			}
		})
	}
}

// defaultSoakSeeds are the differential's seeds in a plain go test: 50,
// about 9s on two cores, 39s with -race.
const defaultSoakSeeds = "11-60"

// soakSeeds parses ILMCTL_SOAK_SEEDS, a comma-separated list of seeds and
// inclusive ranges ("100-999", "11,12,40-49"); "" is defaultSoakSeeds.
func soakSeeds(spec string) ([]uint64, error) {
	if spec == "" {
		spec = defaultSoakSeeds
	}
	var seeds []uint64
	for _, part := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		b := a
		if err == nil && isRange {
			b, err = strconv.ParseUint(hi, 10, 64)
		}
		if err != nil || b < a {
			return nil, fmt.Errorf("ILMCTL_SOAK_SEEDS=%q: %q is not a seed or an ascending range of seeds (e.g. 100-999)", spec, part)
		}
		for s := a; s <= b; s++ {
			seeds = append(seeds, s)
		}
	}
	return seeds, nil
}

// walkOnly is a loggedStore a pass sees without a meta-log, as s3:// is:
// it walks every rule.
type walkOnly struct{ *loggedStore }

func (walkOnly) NoMetaLog() bool { return true }

// After a pass removed many noncurrent versions, the steady passes of the
// following weeks decide only what comes due and what changed: each
// removal decides the key's latest version only when that is a delete
// marker (filer.Event.Noncurrent), so the removals, all at one instant,
// leave no pending match whose summary segment would come due every day.
// The removal of a latest version still decides the version it makes
// latest again.
func TestNoncurrentRemovalsLeaveNothingPending(t *testing.T) {
	st := newLoggedStore()
	st.addBucket("ver", filer.VersioningEnabled)
	snap := snapshotOf("ver", filer.VersioningEnabled,
		lifecycle.Rule{ID: "nc7", Enabled: true, NoncurrentDays: 7}, expireDays("exp90", 90))
	cold := ts("2026-11-30T12:00:00Z")
	// 6000 keys (about 375 a shard, more than MaxSummarySegments), each
	// with v1 and, 20 days later, v2, the v2s written over the 20 days from
	// 30 to 10 days before the cold pass: every v1 is noncurrent past 7
	// days, every v2 comes due 60 to 80 days after the cold pass, in the
	// order of their writes.
	const keys = 6000
	for i := range keys {
		k := fmt.Sprintf("k%04d", i)
		at := cold.Add(-30*day + time.Duration(i)*20*day/keys)
		st.put("ver", k, "v1", at.Add(-20*day), 1)
		st.put("ver", k, "v2", at, 1)
	}
	pass := func(now time.Time) (decided int64, deletes int) {
		t.Helper()
		st.clockNs = now.UnixNano()
		st.deletes = nil
		res := runStoreLogged(t, st, snap, now, nil)
		if res.Status() != StatusOK {
			t.Fatalf("%s: status %s", now.Format(time.RFC3339), res.Status())
		}
		return sumScanned(res), len(st.deletes)
	}
	if _, n := pass(cold); n != keys {
		t.Fatalf("cold pass: %d deletes, want every v1 (%d)", n, keys)
	}
	// The next pass replays the cold pass's removals: every key is looked
	// up once, nothing is due.
	if got, n := pass(cold.Add(day)); n != 0 || got < keys {
		t.Fatalf("next day: %d deletes, %d events decided; want 0 deletes and the %d removals decided", n, got, keys)
	}
	// 62 days on, the v2s written in the first 3 or 4 of the 20 days are
	// due (90 days from their writes, rounded up to midnight): their put
	// events' segments are decided, and no removal.
	decided, n := pass(cold.Add(62 * day))
	if n < keys*3/20 || n > keys*4/20 {
		t.Fatalf("day 62: %d deletes, want the v2s written in the first 3 to 4 days (%d to %d)", n, keys*3/20, keys*4/20)
	}
	t.Logf("day 62: %d deletes, %d events decided", n, decided)
	if decided > int64(3*n) {
		t.Errorf("day 62: decided %d events for %d due keys: the removals came due with them", decided, n)
	}
	// A removal of the latest version decides the version it makes latest
	// again: removing a key's delete marker brings v2 back, due already.
	k := "k0000"
	st.removeLatest("ver", k, cold.Add(62*day+time.Hour).UnixNano())
	pass(cold.Add(63 * day))
	if !slices.ContainsFunc(st.deletes, func(r filer.DeleteRequest) bool { return r.Key == k && r.Expected.VersionID == "v2" }) {
		t.Fatalf("day 63: %d deletes, none of %s's v2, latest again and past due", len(st.deletes), k)
	}
}
