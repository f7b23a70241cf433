package engine

import (
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

const day = 24 * time.Hour

func sizePtr(v int64) *int64 { return &v }

// fixtureBuckets is a rule set with every action kind, a disabled rule and a
// rule with both NoncurrentDays and NewerNoncurrentVersions. Each call
// returns fresh values, so a test may edit its copy.
//
//	logs: expire  ExpirationDays 30 + AbortMPU 7     (replay, replay)
//	      nc      NoncurrentDays 60                  (replay)
//	      date    ExpirationDate + ExpiredDeleteMarker (walk, walk)
//	      keep    NewerNoncurrentVersions 3, NoncurrentDays 10 (walk only)
//	      off     disabled ExpirationDays 1 + ExpirationDate (none)
//	media: big    ExpirationDays 400 (replay)
func fixtureBuckets() []Bucket {
	return []Bucket{
		{
			Name:       "logs",
			Versioning: filer.VersioningEnabled,
			Rules: []lifecycle.Rule{
				{ID: "expire", Enabled: true, Filter: lifecycle.Filter{Prefix: "app/", Tags: []lifecycle.Tag{{Key: "env", Value: "prod"}}}, ExpirationDays: 30, AbortMPUDays: 7},
				{ID: "nc", Enabled: true, Filter: lifecycle.Filter{SizeGreaterThan: sizePtr(10), SizeLessThan: sizePtr(1000)}, NoncurrentDays: 60},
				{ID: "date", Enabled: true, ExpirationDate: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), ExpiredObjectDeleteMarker: true},
				{ID: "keep", Enabled: true, NewerNoncurrentVersions: 3, NoncurrentDays: 10},
				{ID: "off", Enabled: false, ExpirationDays: 1, ExpirationDate: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)},
			},
		},
		{
			Name:       "media",
			Versioning: filer.VersioningOff,
			Rules: []lifecycle.Rule{
				{ID: "big", Enabled: true, ExpirationDays: 400},
			},
		},
	}
}

func key(bucket, rule string, kind lifecycle.ActionKind) ActionKey {
	return ActionKey{Bucket: bucket, RuleID: rule, Kind: kind}
}

func keysOf(s *Snapshot) []ActionKey {
	var out []ActionKey
	for _, a := range s.Actions() {
		out = append(out, a.Key)
	}
	return out
}

func sortedKeys(ks ...ActionKey) []ActionKey {
	out := append([]ActionKey(nil), ks...)
	sort.Slice(out, func(i, j int) bool { return keyLess(out[i], out[j]) })
	return out
}

func baseAction(t *testing.T, s *Snapshot, k ActionKey) *CompiledAction {
	t.Helper()
	for _, a := range s.Actions() {
		if a.Key == k {
			return a
		}
	}
	t.Fatalf("base snapshot has no action %+v", k)
	return nil
}

var (
	kExpire = key("logs", "expire", lifecycle.ExpirationDays)
	kAbort  = key("logs", "expire", lifecycle.AbortMPU)
	kNc     = key("logs", "nc", lifecycle.NoncurrentDays)
	kDate   = key("logs", "date", lifecycle.ExpirationDate)
	kMarker = key("logs", "date", lifecycle.ExpiredDeleteMarker)
	kKeep   = key("logs", "keep", lifecycle.NewerNoncurrent)
	kOffExp = key("logs", "off", lifecycle.ExpirationDays)
	kOffDt  = key("logs", "off", lifecycle.ExpirationDate)
	kBig    = key("media", "big", lifecycle.ExpirationDays)
)

func TestCompile(t *testing.T) {
	s := Compile(fixtureBuckets(), lifecycle.RoundAWS).Snapshot()
	want := []struct {
		key    ActionKey
		mode   Mode
		ttl    time.Duration
		active bool
	}{
		{kDate, ModeScanOnly, 0, true},
		{kMarker, ModeScanOnly, 0, true},
		{kAbort, ModeEventDriven, 7 * day, true},
		{kExpire, ModeEventDriven, 30 * day, true},
		// Both NoncurrentDays and NewerNoncurrentVersions: NewerNoncurrent
		// alone, carrying the day count.
		{kKeep, ModeScanOnly, 10 * day, true},
		{kNc, ModeEventDriven, 60 * day, true},
		{kOffDt, ModeDisabled, 0, false},
		{kOffExp, ModeDisabled, 1 * day, false},
		{kBig, ModeEventDriven, 400 * day, true},
	}
	got := s.Actions()
	if len(got) != len(want) {
		t.Fatalf("Compile gave %d actions %v, want %d", len(got), keysOf(s), len(want))
	}
	for i, w := range want {
		a := got[i]
		if a.Key != w.key || a.Mode != w.mode || a.TTL != w.ttl || a.IsActive() != w.active {
			t.Errorf("action %d = {%+v %s ttl %s active %v}, want {%+v %s ttl %s active %v}",
				i, a.Key, a.Mode, a.TTL, a.IsActive(), w.key, w.mode, w.ttl, w.active)
		}
		if a.Rule == nil || a.Rule.ID != w.key.RuleID {
			t.Errorf("action %+v Rule = %+v, want rule %q", a.Key, a.Rule, w.key.RuleID)
		}
	}
	if got, want := s.BucketNames(), []string{"logs", "media"}; !reflect.DeepEqual(got, want) {
		t.Errorf("BucketNames() = %v, want %v", got, want)
	}
	if got := len(s.BucketActions("media")); got != 1 {
		t.Errorf("BucketActions(media) has %d actions, want 1", got)
	}
	if s.Rounding != lifecycle.RoundAWS {
		t.Errorf("Rounding = %s, want aws", s.Rounding)
	}
}

func TestCompileOrderIndependent(t *testing.T) {
	a := fixtureBuckets()
	b := fixtureBuckets()
	b[0], b[1] = b[1], b[0]
	for i, j := 0, len(b[1].Rules)-1; i < j; i, j = i+1, j-1 {
		b[1].Rules[i], b[1].Rules[j] = b[1].Rules[j], b[1].Rules[i]
	}
	sa := Compile(a, lifecycle.RoundAWS).Snapshot()
	sb := Compile(b, lifecycle.RoundAWS).Snapshot()
	if !reflect.DeepEqual(keysOf(sa), keysOf(sb)) {
		t.Errorf("action order depends on input order:\n%v\n%v", keysOf(sa), keysOf(sb))
	}
	if ReplayContentHash(sa) != ReplayContentHash(sb) {
		t.Error("ReplayContentHash depends on bucket or rule order")
	}
}

func TestRulesForShard(t *testing.T) {
	cases := []struct {
		name       string
		rnd        lifecycle.Rounding
		window     time.Duration
		wantReplay []ActionKey
		wantWalk   []ActionKey
	}{
		{
			name:       "aws window covers everything",
			rnd:        lifecycle.RoundAWS,
			window:     401 * day,
			wantReplay: sortedKeys(kAbort, kExpire, kNc, kBig),
			wantWalk:   sortedKeys(kDate, kMarker, kKeep),
		},
		{
			// 400 days + 1 day slack does not fit in 400 days.
			name:       "aws slack promotes at exact ttl",
			rnd:        lifecycle.RoundAWS,
			window:     400 * day,
			wantReplay: sortedKeys(kAbort, kExpire, kNc),
			wantWalk:   sortedKeys(kDate, kMarker, kKeep, kBig),
		},
		{
			name:       "exact fits at exact ttl",
			rnd:        lifecycle.RoundExact,
			window:     400 * day,
			wantReplay: sortedKeys(kAbort, kExpire, kNc, kBig),
			wantWalk:   sortedKeys(kDate, kMarker, kKeep),
		},
		{
			name:       "exact one nanosecond short promotes",
			rnd:        lifecycle.RoundExact,
			window:     400*day - time.Nanosecond,
			wantReplay: sortedKeys(kAbort, kExpire, kNc),
			wantWalk:   sortedKeys(kDate, kMarker, kKeep, kBig),
		},
		{
			name:       "aws window at 31 days keeps 30-day rule",
			rnd:        lifecycle.RoundAWS,
			window:     31 * day,
			wantReplay: sortedKeys(kAbort, kExpire),
			wantWalk:   sortedKeys(kDate, kMarker, kKeep, kNc, kBig),
		},
		{
			name:       "aws window just under 31 days",
			rnd:        lifecycle.RoundAWS,
			window:     31*day - time.Nanosecond,
			wantReplay: sortedKeys(kAbort),
			wantWalk:   sortedKeys(kDate, kMarker, kKeep, kExpire, kNc, kBig),
		},
		{
			name:       "zero window promotes every replay kind",
			rnd:        lifecycle.RoundAWS,
			window:     0,
			wantReplay: nil,
			wantWalk:   sortedKeys(kAbort, kDate, kMarker, kKeep, kExpire, kNc, kBig),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := Compile(fixtureBuckets(), c.rnd).Snapshot()
			for _, shard := range []int{0, 7, lifecycle.ShardCount - 1} {
				replay, walk := base.RulesForShard(shard, c.window)
				if got := keysOf(replay); !reflect.DeepEqual(got, c.wantReplay) {
					t.Errorf("shard %d replay = %v, want %v", shard, got, c.wantReplay)
				}
				if got := keysOf(walk); !reflect.DeepEqual(got, c.wantWalk) {
					t.Errorf("shard %d walk = %v, want %v", shard, got, c.wantWalk)
				}
				for _, a := range replay.Actions() {
					if !a.IsActive() || a.Mode != ModeEventDriven {
						t.Errorf("replay %+v active %v mode %s, want active event_driven", a.Key, a.IsActive(), a.Mode)
					}
					if !a.Key.Kind.ReplayEligible() {
						t.Errorf("replay holds walker-bound %+v", a.Key)
					}
				}
				for _, a := range walk.Actions() {
					b := baseAction(t, base, a.Key)
					if !a.IsActive() || a.Mode != b.Mode {
						t.Errorf("walk %+v active %v mode %s, want active with base mode %s", a.Key, a.IsActive(), a.Mode, b.Mode)
					}
				}
				for _, v := range []*Snapshot{replay, walk} {
					if v.Rounding != base.Rounding {
						t.Errorf("view rounding %s, want %s", v.Rounding, base.Rounding)
					}
					for _, a := range v.Actions() {
						if a.Mode == ModeDisabled || !a.Rule.Enabled {
							t.Errorf("view holds disabled %+v", a.Key)
						}
					}
				}
			}
		})
	}
}

// Replay clones run under ModeEventDriven even when the base carries a
// persisted scan_only mode (docs/design/daily-run.md#engine-views); walk and
// recovery clones keep the base mode.
func TestViewsModeRewrite(t *testing.T) {
	base := Compile(fixtureBuckets(), lifecycle.RoundAWS).Snapshot()
	for _, a := range base.Actions() {
		if a.Key.Kind.ReplayEligible() && a.Mode != ModeDisabled {
			a.Mode = ModeScanOnly
		}
	}
	replay, walk := base.RulesForShard(3, 100*day)
	if len(replay.Actions()) == 0 {
		t.Fatal("replay view is empty")
	}
	for _, a := range replay.Actions() {
		if a.Mode != ModeEventDriven {
			t.Errorf("replay %+v mode %s, want event_driven", a.Key, a.Mode)
		}
	}
	for _, v := range []*Snapshot{walk, RecoveryView(base)} {
		for _, a := range v.Actions() {
			if a.Mode != ModeScanOnly {
				t.Errorf("%+v mode %s, want the preserved scan_only", a.Key, a.Mode)
			}
		}
	}
	// The rewrite is on the clone: the base keeps scan_only.
	if got := baseAction(t, base, kExpire).Mode; got != ModeScanOnly {
		t.Errorf("base mode after RulesForShard = %s, want scan_only", got)
	}
}

// Views clone every action: a view never shares a *CompiledAction with the
// base or another view, so activating or re-moding one cannot leak; they do
// share the *Rule.
func TestViewsAreIndependentClones(t *testing.T) {
	base := Compile(fixtureBuckets(), lifecycle.RoundAWS).Snapshot()
	replay, walk := base.RulesForShard(1, 45*day)
	replay2, walk2 := base.RulesForShard(2, 45*day)
	recovery := RecoveryView(base)
	views := map[string]*Snapshot{"replay": replay, "walk": walk, "replay2": replay2, "walk2": walk2, "recovery": recovery}

	owner := map[*CompiledAction]string{}
	for _, a := range base.Actions() {
		owner[a] = "base"
	}
	for name, v := range views {
		for _, a := range v.Actions() {
			if prev, ok := owner[a]; ok {
				t.Errorf("%s and %s share the *CompiledAction for %+v", name, prev, a.Key)
			}
			owner[a] = name
			if b := baseAction(t, base, a.Key); a.Rule != b.Rule {
				t.Errorf("%s %+v has its own *Rule, want the base's", name, a.Key)
			}
			for _, ba := range v.BucketActions(a.Key.Bucket) {
				if ba.Key == a.Key && ba != a {
					t.Errorf("%s BucketActions(%s) holds a different pointer for %+v", name, a.Key.Bucket, a.Key)
				}
			}
		}
	}

	// Mutate every clone in one view; nothing else moves.
	for _, a := range replay.Actions() {
		a.active = false
		a.Mode = ModeDisabled
		a.TTL = 0
	}
	if !replay.Empty() {
		t.Error("replay view with every action deactivated is not Empty")
	}
	for _, a := range replay2.Actions() {
		if !a.IsActive() || a.Mode != ModeEventDriven || a.TTL == 0 {
			t.Errorf("replay2 %+v changed after mutating replay: active %v mode %s ttl %s", a.Key, a.IsActive(), a.Mode, a.TTL)
		}
	}
	for _, a := range recovery.Actions() {
		if !a.IsActive() || a.TTL != baseAction(t, base, a.Key).TTL {
			t.Errorf("recovery %+v changed after mutating replay", a.Key)
		}
	}
	if got := baseAction(t, base, kExpire); !got.IsActive() || got.Mode != ModeEventDriven || got.TTL != 30*day {
		t.Errorf("base %+v changed after mutating replay: active %v mode %s ttl %s", got.Key, got.IsActive(), got.Mode, got.TTL)
	}
	if got := len(base.Actions()); got != 9 {
		t.Errorf("base has %d actions after deriving views, want 9", got)
	}
}

func TestRecoveryView(t *testing.T) {
	for _, rnd := range []lifecycle.Rounding{lifecycle.RoundAWS, lifecycle.RoundExact} {
		base := Compile(fixtureBuckets(), rnd).Snapshot()
		v := RecoveryView(base)
		want := sortedKeys(kAbort, kExpire, kDate, kMarker, kKeep, kNc, kBig)
		if got := keysOf(v); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: RecoveryView = %v, want %v", rnd, got, want)
		}
		for _, a := range v.Actions() {
			if !a.IsActive() || a.Mode != baseAction(t, base, a.Key).Mode {
				t.Errorf("%s: recovery %+v active %v mode %s, want active with base mode", rnd, a.Key, a.IsActive(), a.Mode)
			}
		}
		if v.Empty() {
			t.Errorf("%s: RecoveryView is Empty", rnd)
		}
		if v.Rounding != rnd {
			t.Errorf("RecoveryView rounding = %s, want %s", v.Rounding, rnd)
		}
	}
}

// A bucket whose only rules are disabled contributes to no view and no hash.
func TestDisabledRulesInNoView(t *testing.T) {
	bs := []Bucket{{Name: "b", Rules: []lifecycle.Rule{
		{ID: "x", Enabled: false, ExpirationDays: 1, NoncurrentDays: 2, AbortMPUDays: 3, ExpiredObjectDeleteMarker: true},
		{ID: "y", Enabled: false, NewerNoncurrentVersions: 1, ExpirationDate: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)},
	}}}
	base := Compile(bs, lifecycle.RoundAWS).Snapshot()
	if len(base.Actions()) == 0 {
		t.Fatal("disabled rules compiled to no actions; want ModeDisabled actions")
	}
	if !base.Empty() {
		t.Error("base with only disabled rules is not Empty")
	}
	for _, window := range []time.Duration{0, 10 * day, 1000 * day} {
		replay, walk := base.RulesForShard(0, window)
		if n := len(replay.Actions()) + len(walk.Actions()); n != 0 {
			t.Errorf("window %s: views hold %d disabled actions: %v %v", window, n, keysOf(replay), keysOf(walk))
		}
		if PromotedHash(base, window) != ([32]byte{}) {
			t.Errorf("window %s: PromotedHash counts disabled rules", window)
		}
	}
	if n := len(RecoveryView(base).Actions()); n != 0 {
		t.Errorf("RecoveryView holds %d disabled actions", n)
	}
	if ReplayContentHash(base) != ([32]byte{}) {
		t.Error("ReplayContentHash counts disabled rules")
	}
	if got := MaxEffectiveTTL(base); got != 0 {
		t.Errorf("MaxEffectiveTTL = %s, want 0 for disabled rules", got)
	}
}

func TestReplayContentHash(t *testing.T) {
	hashOf := func(edit func([]Bucket) []Bucket, rnd lifecycle.Rounding) [32]byte {
		bs := fixtureBuckets()
		if edit != nil {
			bs = edit(bs)
		}
		return ReplayContentHash(Compile(bs, rnd).Snapshot())
	}
	// Rule indexes in fixtureBuckets: logs 0 expire, 1 nc, 2 date, 3 keep,
	// 4 off; media 0 big.
	logs := func(f func(r []lifecycle.Rule)) func([]Bucket) []Bucket {
		return func(bs []Bucket) []Bucket { f(bs[0].Rules); return bs }
	}
	base := hashOf(nil, lifecycle.RoundAWS)
	if base == ([32]byte{}) {
		t.Fatal("ReplayContentHash of a rule set with replay rules is zero")
	}
	if again := hashOf(nil, lifecycle.RoundAWS); again != base {
		t.Fatal("ReplayContentHash is not deterministic")
	}

	changes := []struct {
		name string
		edit func([]Bucket) []Bucket
		rnd  lifecycle.Rounding
	}{
		{"prefix", logs(func(r []lifecycle.Rule) { r[0].Filter.Prefix = "app2/" }), lifecycle.RoundAWS},
		{"prefix on abort-only rule", logs(func(r []lifecycle.Rule) { r[0].ExpirationDays = 0; r[0].Filter.Prefix = "x/" }), lifecycle.RoundAWS},
		{"tag value", logs(func(r []lifecycle.Rule) { r[0].Filter.Tags[0].Value = "dev" }), lifecycle.RoundAWS},
		{"tag key", logs(func(r []lifecycle.Rule) { r[0].Filter.Tags[0].Key = "stage" }), lifecycle.RoundAWS},
		{"tag added", logs(func(r []lifecycle.Rule) {
			r[0].Filter.Tags = append(r[0].Filter.Tags, lifecycle.Tag{Key: "team", Value: "a"})
		}), lifecycle.RoundAWS},
		{"tags removed", logs(func(r []lifecycle.Rule) { r[0].Filter.Tags = nil }), lifecycle.RoundAWS},
		{"size greater than value", logs(func(r []lifecycle.Rule) { r[1].Filter.SizeGreaterThan = sizePtr(11) }), lifecycle.RoundAWS},
		{"size less than value", logs(func(r []lifecycle.Rule) { r[1].Filter.SizeLessThan = sizePtr(999) }), lifecycle.RoundAWS},
		{"size greater than unset", logs(func(r []lifecycle.Rule) { r[1].Filter.SizeGreaterThan = nil }), lifecycle.RoundAWS},
		{"size less than unset", logs(func(r []lifecycle.Rule) { r[1].Filter.SizeLessThan = nil }), lifecycle.RoundAWS},
		{"size bounds swapped", logs(func(r []lifecycle.Rule) {
			r[1].Filter.SizeGreaterThan, r[1].Filter.SizeLessThan = nil, sizePtr(10)
		}), lifecycle.RoundAWS},
		{"expiration days", logs(func(r []lifecycle.Rule) { r[0].ExpirationDays = 31 }), lifecycle.RoundAWS},
		{"noncurrent days", logs(func(r []lifecycle.Rule) { r[1].NoncurrentDays = 61 }), lifecycle.RoundAWS},
		{"abort days", logs(func(r []lifecycle.Rule) { r[0].AbortMPUDays = 8 }), lifecycle.RoundAWS},
		{"kind", logs(func(r []lifecycle.Rule) { r[1].NoncurrentDays = 0; r[1].ExpirationDays = 60 }), lifecycle.RoundAWS},
		// NoncurrentDays turns into walker-bound NewerNoncurrent: the replay
		// action disappears.
		{"noncurrent gains a newer count", logs(func(r []lifecycle.Rule) { r[1].NewerNoncurrentVersions = 2 }), lifecycle.RoundAWS},
		{"rule id", logs(func(r []lifecycle.Rule) { r[0].ID = "expire2" }), lifecycle.RoundAWS},
		{"bucket name", func(bs []Bucket) []Bucket { bs[1].Name = "media2"; return bs }, lifecycle.RoundAWS},
		{"rounding", nil, lifecycle.RoundExact},
		{"replay rule disabled", logs(func(r []lifecycle.Rule) { r[1].Enabled = false }), lifecycle.RoundAWS},
		{"disabled replay rule enabled", logs(func(r []lifecycle.Rule) { r[4].Enabled = true }), lifecycle.RoundAWS},
		{"replay rule added", logs(func(r []lifecycle.Rule) { r[2].AbortMPUDays = 1 }), lifecycle.RoundAWS},
		{"replay rule removed", func(bs []Bucket) []Bucket { return bs[:1] }, lifecycle.RoundAWS},
	}
	for _, c := range changes {
		if got := hashOf(c.edit, c.rnd); got == base {
			t.Errorf("%s: ReplayContentHash unchanged, want it to change", c.name)
		}
	}

	same := []struct {
		name string
		edit func([]Bucket) []Bucket
	}{
		{"expiration date", logs(func(r []lifecycle.Rule) { r[2].ExpirationDate = time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC) })},
		{"expired delete marker dropped", logs(func(r []lifecycle.Rule) { r[2].ExpiredObjectDeleteMarker = false })},
		{"walker rule filter", logs(func(r []lifecycle.Rule) { r[2].Filter.Prefix = "tmp/" })},
		{"newer noncurrent count", logs(func(r []lifecycle.Rule) { r[3].NewerNoncurrentVersions = 5 })},
		{"newer noncurrent days", logs(func(r []lifecycle.Rule) { r[3].NoncurrentDays = 20 })},
		// A walker-only edit on a rule that also has replay actions.
		{"expiration date on a replay rule", logs(func(r []lifecycle.Rule) { r[0].ExpirationDate = time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC) })},
		{"delete marker on a replay rule", logs(func(r []lifecycle.Rule) { r[0].ExpiredObjectDeleteMarker = true })},
		{"newer count on a replay rule", logs(func(r []lifecycle.Rule) { r[0].NewerNoncurrentVersions = 4 })},
		{"walker rule added", logs(func(r []lifecycle.Rule) {
			r[4] = lifecycle.Rule{ID: "off", Enabled: true, ExpiredObjectDeleteMarker: true}
		})},
		{"disabled rule edited", logs(func(r []lifecycle.Rule) { r[4].ExpirationDays = 99; r[4].Filter.Prefix = "x" })},
		{"disabled replay rule added", func(bs []Bucket) []Bucket {
			bs[1].Rules = append(bs[1].Rules, lifecycle.Rule{ID: "zz", Enabled: false, ExpirationDays: 5, AbortMPUDays: 5})
			return bs
		}},
		{"versioning", func(bs []Bucket) []Bucket { bs[0].Versioning = filer.VersioningSuspended; return bs }},
	}
	for _, c := range same {
		if got := hashOf(c.edit, lifecycle.RoundAWS); got != base {
			t.Errorf("%s: ReplayContentHash changed, want it unchanged by a walker-only or disabled edit", c.name)
		}
	}
}

func TestReplayContentHashZero(t *testing.T) {
	date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		rules []lifecycle.Rule
	}{
		{"no rules", nil},
		{"walker kinds only", []lifecycle.Rule{
			{ID: "a", Enabled: true, ExpirationDate: date, ExpiredObjectDeleteMarker: true},
			{ID: "b", Enabled: true, NewerNoncurrentVersions: 2, NoncurrentDays: 30},
		}},
		{"replay kinds disabled", []lifecycle.Rule{
			{ID: "a", Enabled: false, ExpirationDays: 1, NoncurrentDays: 1, AbortMPUDays: 1},
		}},
	}
	for _, c := range cases {
		s := Compile([]Bucket{{Name: "b", Rules: c.rules}}, lifecycle.RoundAWS).Snapshot()
		if got := ReplayContentHash(s); got != ([32]byte{}) {
			t.Errorf("%s: ReplayContentHash = %x, want zero", c.name, got)
		}
	}
	if got := ReplayContentHash(Compile(nil, lifecycle.RoundExact).Snapshot()); got != ([32]byte{}) {
		t.Errorf("no buckets: ReplayContentHash = %x, want zero", got)
	}
}

// Length-prefixed fields: moving a character between adjacent fields is a
// different rule set.
func TestReplayContentHashFieldBoundaries(t *testing.T) {
	one := func(bucket, id, prefix string) [32]byte {
		bs := []Bucket{{Name: bucket, Rules: []lifecycle.Rule{{ID: id, Enabled: true, ExpirationDays: 1, Filter: lifecycle.Filter{Prefix: prefix}}}}}
		return ReplayContentHash(Compile(bs, lifecycle.RoundAWS).Snapshot())
	}
	pairs := [][2][32]byte{
		{one("ab", "c", ""), one("a", "bc", "")},
		{one("b", "r", "x/"), one("b", "rx/", "")},
	}
	for i, p := range pairs {
		if p[0] == p[1] {
			t.Errorf("pair %d: different rule sets share a hash", i)
		}
	}
}

func TestPromotedHash(t *testing.T) {
	for _, rnd := range []lifecycle.Rounding{lifecycle.RoundAWS, lifecycle.RoundExact} {
		t.Run(rnd.String(), func(t *testing.T) {
			slack := rnd.Slack()
			s := Compile(fixtureBuckets(), rnd).Snapshot()
			// Replay TTLs: abort 7, expire 30, nc 60, big 400 days.
			cases := []struct {
				name     string
				window   time.Duration
				promoted []ActionKey
			}{
				{"nothing promoted", 400*day + slack, nil},
				{"far beyond every ttl", 10000 * day, nil},
				{"big promoted", 400*day + slack - time.Nanosecond, []ActionKey{kBig}},
				{"big promoted wider window", 60*day + slack, []ActionKey{kBig}},
				{"nc and big promoted", 60*day + slack - time.Nanosecond, []ActionKey{kNc, kBig}},
				{"all but abort promoted", 30*day + slack - 1, []ActionKey{kExpire, kNc, kBig}},
				{"everything promoted", 0, []ActionKey{kAbort, kExpire, kNc, kBig}},
			}
			bySet := map[string][32]byte{}
			for _, c := range cases {
				got := PromotedHash(s, c.window)
				if (got == [32]byte{}) != (len(c.promoted) == 0) {
					t.Errorf("%s: PromotedHash = %x, want zero iff nothing promoted (%v)", c.name, got, c.promoted)
				}
				// PromotedHash agrees with the walk view's replay-eligible set.
				_, walk := s.RulesForShard(0, c.window)
				var inWalk []ActionKey
				for _, a := range walk.Actions() {
					if a.Key.Kind.ReplayEligible() {
						inWalk = append(inWalk, a.Key)
					}
				}
				if want := sortedKeys(c.promoted...); !reflect.DeepEqual(inWalk, want) && !(len(inWalk) == 0 && len(want) == 0) {
					t.Errorf("%s: walk promotes %v, want %v", c.name, inWalk, want)
				}
				set := ""
				for _, k := range sortedKeys(c.promoted...) {
					set += k.Bucket + "/" + k.RuleID + "/" + string(k.Kind) + ","
				}
				if prev, ok := bySet[set]; ok && prev != got {
					t.Errorf("%s: same promoted set %q hashed differently across windows", c.name, set)
				}
				for other, h := range bySet {
					if other != set && h == got {
						t.Errorf("%s: promoted set %q hashes like %q", c.name, set, other)
					}
				}
				bySet[set] = got
			}
		})
	}
}

func TestPromotedHashContentAndDisabled(t *testing.T) {
	window := 100 * day
	h := func(edit func(r []lifecycle.Rule)) [32]byte {
		bs := fixtureBuckets()
		if edit != nil {
			edit(bs[1].Rules)
		}
		return PromotedHash(Compile(bs, lifecycle.RoundAWS).Snapshot(), window)
	}
	base := h(nil)
	if base == ([32]byte{}) {
		t.Fatal("400-day rule under a 100-day window is not promoted")
	}
	if got := h(func(r []lifecycle.Rule) { r[0].ExpirationDays = 500 }); got == base {
		t.Error("PromotedHash unchanged when the promoted rule's TTL changed")
	}
	if got := h(func(r []lifecycle.Rule) { r[0].ExpirationDays = 50 }); got != ([32]byte{}) {
		t.Errorf("PromotedHash = %x after the rule fits the window, want zero", got)
	}
	if got := h(func(r []lifecycle.Rule) { r[0].Enabled = false }); got != ([32]byte{}) {
		t.Errorf("PromotedHash = %x with the promoted rule disabled, want zero", got)
	}
	if got := h(func(r []lifecycle.Rule) {
		r[0].ExpirationDate = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	}); got != base {
		t.Error("PromotedHash changed on a walker-only edit")
	}
}

func TestMaxEffectiveTTL(t *testing.T) {
	date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		rnd   lifecycle.Rounding
		rules []lifecycle.Rule
		want  time.Duration
	}{
		{"no rules", lifecycle.RoundAWS, nil, 0},
		{"expiration aws", lifecycle.RoundAWS, []lifecycle.Rule{{ID: "a", Enabled: true, ExpirationDays: 30}}, 31 * day},
		{"expiration exact", lifecycle.RoundExact, []lifecycle.Rule{{ID: "a", Enabled: true, ExpirationDays: 30}}, 30 * day},
		{"max over kinds", lifecycle.RoundAWS, []lifecycle.Rule{
			{ID: "a", Enabled: true, ExpirationDays: 10, AbortMPUDays: 7},
			{ID: "b", Enabled: true, NoncurrentDays: 40},
		}, 41 * day},
		{"abort largest", lifecycle.RoundExact, []lifecycle.Rule{{ID: "a", Enabled: true, ExpirationDays: 10, AbortMPUDays: 70}}, 70 * day},
		{"disabled ignored", lifecycle.RoundAWS, []lifecycle.Rule{
			{ID: "a", Enabled: true, ExpirationDays: 10},
			{ID: "b", Enabled: false, ExpirationDays: 100},
		}, 11 * day},
		{"walker kinds ignored", lifecycle.RoundAWS, []lifecycle.Rule{
			{ID: "a", Enabled: true, ExpirationDays: 5, ExpirationDate: date, ExpiredObjectDeleteMarker: true},
			// Compiles to walker-bound NewerNoncurrent with a 90-day count.
			{ID: "b", Enabled: true, NewerNoncurrentVersions: 1, NoncurrentDays: 90},
		}, 6 * day},
		{"walker kinds only", lifecycle.RoundAWS, []lifecycle.Rule{{ID: "a", Enabled: true, ExpirationDate: date}}, 0},
	}
	for _, c := range cases {
		s := Compile([]Bucket{{Name: "b", Rules: c.rules}}, c.rnd).Snapshot()
		if got := MaxEffectiveTTL(s); got != c.want {
			t.Errorf("%s: MaxEffectiveTTL = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestEffectiveTTL(t *testing.T) {
	a := &CompiledAction{TTL: 3 * day}
	if got := a.EffectiveTTL(lifecycle.RoundAWS); got != 4*day {
		t.Errorf("aws EffectiveTTL = %s, want 96h", got)
	}
	if got := a.EffectiveTTL(lifecycle.RoundExact); got != 3*day {
		t.Errorf("exact EffectiveTTL = %s, want 72h", got)
	}
}

// Shards run concurrently over one base snapshot
// (docs/design/daily-run.md#shape-of-a-pass);
// deriving and mutating views must not race (run with -race).
func TestViewsConcurrent(t *testing.T) {
	base := Compile(fixtureBuckets(), lifecycle.RoundAWS).Snapshot()
	wantHash := ReplayContentHash(base)
	var wg sync.WaitGroup
	for shard := 0; shard < lifecycle.ShardCount; shard++ {
		wg.Add(1)
		go func(shard int) {
			defer wg.Done()
			replay, walk := base.RulesForShard(shard, 45*day)
			rec := RecoveryView(base)
			for _, v := range []*Snapshot{replay, walk, rec} {
				for _, a := range v.Actions() {
					a.active = shard%2 == 0
					a.Mode = ModeScanOnly
				}
			}
			if ReplayContentHash(base) != wantHash {
				t.Errorf("shard %d: ReplayContentHash moved", shard)
			}
			_ = PromotedHash(base, 45*day)
			_ = MaxEffectiveTTL(base)
		}(shard)
	}
	wg.Wait()
	for _, a := range base.Actions() {
		if a.Mode == ModeScanOnly && a.Key.Kind.ReplayEligible() {
			t.Errorf("base %+v mode rewritten by a view", a.Key)
		}
	}
}

// In an Object Lock bucket, replay kinds are walked too: SKIPPED_OBJECT_LOCK
// moves the cursor past the event, so only the walker can retry once the
// lock ends. Hashes are unaffected.
func TestRulesForShardWalksReplayKindsInLockedBuckets(t *testing.T) {
	rules := []lifecycle.Rule{{ID: "nc", Enabled: true, NoncurrentDays: 7}}
	locked := Compile([]Bucket{{Name: "vault", Versioning: filer.VersioningEnabled, ObjectLock: true, Rules: rules}}, lifecycle.RoundAWS).Snapshot()
	plain := Compile([]Bucket{{Name: "vault", Versioning: filer.VersioningEnabled, Rules: rules}}, lifecycle.RoundAWS).Snapshot()
	window := MaxEffectiveTTL(locked)
	for _, tc := range []struct {
		name      string
		snap      *Snapshot
		wantWalks int
	}{{"locked", locked, 1}, {"plain", plain, 0}} {
		replay, walk := tc.snap.RulesForShard(0, window)
		if len(replay.Actions()) != 1 || len(walk.Actions()) != tc.wantWalks {
			t.Errorf("%s: replay %d walk %d actions, want 1 and %d", tc.name, len(replay.Actions()), len(walk.Actions()), tc.wantWalks)
		}
		if tc.wantWalks == 1 && (walk.Actions()[0] == replay.Actions()[0] || !walk.Actions()[0].IsActive()) {
			t.Errorf("%s: the walk clone must be its own active action", tc.name)
		}
	}
	if ReplayContentHash(locked) != ReplayContentHash(plain) || PromotedHash(locked, window) != PromotedHash(plain, window) {
		t.Error("Object Lock changed a cursor hash")
	}
}
