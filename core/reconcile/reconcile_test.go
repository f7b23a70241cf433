package reconcile

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestGetCorruptNeverProbes(t *testing.T) {
	tests := []struct {
		name  string
		extra map[string]string
		want  string // in the reason
	}{
		{"explicit unknown", both(SuffixState, "unknown"), "explicit"},
		{"malformed state", both(SuffixState, "Exact"), "not known-disabled"},
		{"empty state", both(SuffixState, ""), "not known-disabled"},
		{"prefixes conflict", map[string]string{PrefixRustFS + SuffixTier: "WARM", PrefixMinIO + SuffixTier: "COLD"}, "differs between"},
		{"nil remote version", both(SuffixRemoteVersion, "00000000-0000-0000-0000-000000000000"), "nil UUID"},
		{"control char in remote version", both(SuffixRemoteVersion, "a\nb"), "control character"},
		{"state without its version", merge(both(SuffixState, "exact"), both(SuffixDestinationID, testDestID)), "conflicts with"},
		{"suspended with other id", merge(both(SuffixState, "suspended-null"), both(SuffixRemoteVersion, "x")), "conflicts with"},
		{"partial: no tier", both(SuffixTier, "\x00delete"), "transition-tier is missing"},
		{"partial: no remote object", both(SuffixRemoteObject, "\x00delete"), "transitioned-object is missing"},
		{"partial: status pending", both(SuffixStatus, "pending"), "partial"},
		{"bad destination id", both(SuffixDestinationID, "zz"), "64 hex"},
		{"key in another case", map[string]string{"X-Rustfs-Internal-Transitioned-Version-State": "exact"}, "not spelled"},
		{"explicit state without destination", merge(both(SuffixState, "known-disabled")), "without transition-tier-destination-id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fakeProber{obs: enabledOne("abc")}
			rep, err := Get(context.Background(), input(p, &memSet{name: "s0", copy: legacy(tt.extra)}))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outcome != Corrupt || !strings.Contains(rep.Reason, tt.want) {
				t.Fatalf("outcome %s %q, want corrupt containing %q", rep.Outcome, rep.Reason, tt.want)
			}
			if p.calls != 0 {
				t.Fatalf("probed %d times after corruption", p.calls)
			}
		})
	}
}

func TestGet(t *testing.T) {
	migratedKeys := merge(both(SuffixState, "exact"), both(SuffixRemoteVersion, "abc"), both(SuffixDestinationID, testDestID))
	tests := []struct {
		name    string
		sets    []*memSet
		prober  *fakeProber
		outcome Outcome
		target  *Target
		err     error
		reason  string
	}{
		{
			name:    "legacy, exact proven",
			sets:    []*memSet{{name: "s0", copy: legacy(nil)}, {name: "s1", copy: legacy(nil)}},
			prober:  &fakeProber{obs: enabledOne("abc")},
			outcome: ReadyToMigrate,
			target:  &Target{State: StateExact, RemoteVersionID: "abc", DestinationID: testDestID},
		},
		{
			name:    "legacy with a destination id already bound",
			sets:    []*memSet{{name: "s0", copy: legacy(both(SuffixDestinationID, testDestID))}},
			prober:  &fakeProber{obs: Observation{Versions: []RemoteVersion{{VersionID: "null"}}}},
			outcome: ReadyToMigrate,
			target:  &Target{State: StateKnownDisabled, DestinationID: testDestID},
		},
		{
			name:    "already explicit and converged: migrated, no probe",
			sets:    []*memSet{{name: "s0", copy: legacy(migratedKeys)}, {name: "s1", copy: legacy(migratedKeys)}},
			prober:  &fakeProber{err: errDown},
			outcome: Migrated,
			target:  &Target{State: StateExact, RemoteVersionID: "abc", DestinationID: testDestID},
		},
		{
			name:    "one set written, one missing: ready to fill",
			sets:    []*memSet{{name: "s0", copy: legacy(migratedKeys)}, {name: "s1", copy: legacy(nil)}},
			prober:  &fakeProber{obs: enabledOne("abc")},
			outcome: ReadyToMigrate,
			target:  &Target{State: StateExact, RemoteVersionID: "abc", DestinationID: testDestID},
		},
		{
			name:    "written set disagrees with the proof",
			sets:    []*memSet{{name: "s0", copy: legacy(migratedKeys)}, {name: "s1", copy: legacy(nil)}},
			prober:  &fakeProber{obs: enabledOne("other")},
			outcome: Corrupt,
		},
		{
			name:    "two versions on the tier",
			sets:    []*memSet{{name: "s0", copy: legacy(nil)}},
			prober:  &fakeProber{obs: Observation{Versioning: "Enabled", VersioningAfter: "Enabled", Versions: []RemoteVersion{{VersionID: "a"}, {VersionID: "b"}}}},
			outcome: RetainedAmbiguous,
			reason:  "2 versions",
		},
		{
			name:    "tier down",
			sets:    []*memSet{{name: "s0", copy: legacy(nil)}},
			prober:  &fakeProber{err: errDown},
			outcome: BackendUnavailable,
			reason:  "connection refused",
		},
		{
			name:    "set unreadable",
			sets:    []*memSet{{name: "s0", copy: legacy(nil)}, {name: "s1", readErr: errors.New("timeout")}},
			prober:  &fakeProber{obs: enabledOne("abc")},
			outcome: BackendUnavailable,
			reason:  "set s1",
		},
		{
			name:    "tier not in --tiers",
			sets:    []*memSet{{name: "s0", copy: legacy(both(SuffixTier, "GLACIER"))}},
			prober:  &fakeProber{obs: enabledOne("abc")},
			outcome: BackendUnavailable,
			reason:  "not in --tiers",
		},
		{
			name:    "bound to another destination",
			sets:    []*memSet{{name: "s0", copy: legacy(both(SuffixDestinationID, strings.Repeat("ab", 32)))}},
			prober:  &fakeProber{obs: enabledOne("abc")},
			outcome: BackendUnavailable,
			reason:  "bound to destination",
		},
		{
			name:    "version only in some sets",
			sets:    []*memSet{{name: "s0", copy: legacy(nil)}, {name: "s1"}},
			prober:  &fakeProber{obs: enabledOne("abc")},
			outcome: Corrupt,
			reason:  "but not in s1",
		},
		{
			name:    "copies disagree on identity",
			sets:    []*memSet{{name: "s0", copy: legacy(nil)}, {name: "s1", copy: func() *Copy { c := legacy(nil); c.ETag = "other"; return c }()}},
			prober:  &fakeProber{obs: enabledOne("abc")},
			outcome: Corrupt,
			reason:  "identity",
		},
		{name: "no set holds it", sets: []*memSet{{name: "s0"}}, prober: &fakeProber{}, err: ErrVersionNotFound, reason: `photos/2024/a.jpg has no version "v1" in any set`},
		{name: "not transitioned", sets: []*memSet{{name: "s0", copy: &Copy{VersionID: "v1", Internal: map[string]string{}}}}, prober: &fakeProber{}, err: ErrNotTransitioned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Get(context.Background(), input(tt.prober, tt.sets...))
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.reason) {
					t.Fatalf("err %v, want %v saying %q", err, tt.err, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outcome != tt.outcome || !strings.Contains(rep.Reason, tt.reason) {
				t.Fatalf("outcome %s %q, want %s containing %q", rep.Outcome, rep.Reason, tt.outcome, tt.reason)
			}
			if tt.target != nil && (rep.Target == nil || *rep.Target != *tt.target) {
				t.Fatalf("target %+v, want %+v", rep.Target, tt.target)
			}
			if rep.Ready != (tt.outcome == ReadyToMigrate) {
				t.Fatalf("ready %v with outcome %s", rep.Ready, rep.Outcome)
			}
			for _, s := range tt.sets {
				if s.writes != 0 {
					t.Fatalf("get wrote to %s", s.name)
				}
			}
			if rep.Source != nil && rep.Digest != Digest(rep.Source, rep.Sets, rep.Target) {
				t.Fatal("digest does not cover the report")
			}
		})
	}
}

func TestGetRemoteKeyUsesTrimmedPrefix(t *testing.T) {
	p := &fakeProber{obs: enabledOne("abc")}
	if _, err := Get(context.Background(), input(p, &memSet{name: "s0", copy: legacy(nil)})); err != nil {
		t.Fatal(err)
	}
	if p.key != "cold/ab/cd/remote-1" {
		t.Fatalf("probed key %q, want cold/ab/cd/remote-1", p.key)
	}
}

// plan runs Get on fresh copies of sets and returns its report.
func plan(t *testing.T, p Prober, sets ...*memSet) *Report {
	t.Helper()
	rep, err := Get(context.Background(), input(p, sets...))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != ReadyToMigrate {
		t.Fatalf("get: %s %s", rep.Outcome, rep.Reason)
	}
	return rep
}

func TestPostMigratesEverySetUnderBothPrefixes(t *testing.T) {
	s0, s1 := &memSet{name: "s0", copy: legacy(nil)}, &memSet{name: "s1", copy: legacy(nil)}
	p := &fakeProber{obs: Observation{Versioning: "Suspended", VersioningAfter: "Suspended", Versions: []RemoteVersion{{VersionID: "null"}}}}
	pl := plan(t, p, s0, s1)
	rep, err := Post(context.Background(), input(p, s0, s1), pl)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != Migrated || !rep.BytesChanged {
		t.Fatalf("post: %s %q bytes_changed=%v", rep.Outcome, rep.Reason, rep.BytesChanged)
	}
	for _, s := range []*memSet{s0, s1} {
		for _, pre := range Prefixes {
			md := s.copy.Internal
			if md[pre+SuffixState] != "suspended-null" || md[pre+SuffixRemoteVersion] != "null" || md[pre+SuffixDestinationID] != testDestID {
				t.Fatalf("%s %s: %v", s.name, pre, md)
			}
		}
		if s.copy.Generation != 2 {
			t.Fatalf("%s generation %d, want 2", s.name, s.copy.Generation)
		}
	}
	if p.calls != 2 {
		t.Fatalf("probes %d, want 2 (get, then post repeats it)", p.calls)
	}
	// A second post of the same plan is an idempotent migrated.
	again, err := Post(context.Background(), input(p, s0, s1), pl)
	if err != nil {
		t.Fatal(err)
	}
	if again.Outcome != Migrated || again.BytesChanged {
		t.Fatalf("repeat post: %s bytes_changed=%v", again.Outcome, again.BytesChanged)
	}
}

func TestPostKnownDisabledLeavesVersionKeysAlone(t *testing.T) {
	s0 := &memSet{name: "s0", copy: legacy(map[string]string{PrefixMinIO + SuffixRemoteVersion: ""})}
	p := &fakeProber{obs: Observation{Versions: []RemoteVersion{{VersionID: "null"}}}}
	rep, err := Post(context.Background(), input(p, s0), plan(t, p, s0))
	if err != nil || rep.Outcome != Migrated {
		t.Fatalf("post: %v %+v", err, rep)
	}
	md := s0.copy.Internal
	if _, ok := md[PrefixRustFS+SuffixRemoteVersion]; ok {
		t.Fatal("known-disabled wrote a remote version id")
	}
	if v, ok := md[PrefixMinIO+SuffixRemoteVersion]; !ok || v != "" {
		t.Fatal("known-disabled changed the existing empty version key")
	}
	if md[PrefixRustFS+SuffixState] != "known-disabled" {
		t.Fatalf("state %q", md[PrefixRustFS+SuffixState])
	}
}

func TestPostRetryFillsOnlyMissingSets(t *testing.T) {
	s0, s1 := &memSet{name: "s0", copy: legacy(nil)}, &memSet{name: "s1", copy: legacy(nil), writeErr: errors.New("quorum lost")}
	p := &fakeProber{obs: enabledOne("abc")}
	pl := plan(t, p, s0, s1)
	rep, err := Post(context.Background(), input(p, s0, s1), pl)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != BackendUnavailable || !rep.BytesChanged {
		t.Fatalf("first post: %s bytes_changed=%v", rep.Outcome, rep.BytesChanged)
	}
	s1.writeErr = nil
	rep, err = Post(context.Background(), input(p, s0, s1), pl)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != Migrated || !rep.BytesChanged || s0.writes != 1 || s1.writes != 1 {
		t.Fatalf("retry: %s bytes_changed=%v writes %d/%d", rep.Outcome, rep.BytesChanged, s0.writes, s1.writes)
	}
}

func TestPostRefusals(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(s0 *memSet, p *fakeProber, pl *Report)
		outcome Outcome
		reason  string
		err     error
		writes  int
	}{
		{name: "plan edited", mutate: func(_ *memSet, _ *fakeProber, pl *Report) { pl.Target.RemoteVersionID = "forged" }, err: ErrPlan},
		{name: "plan not ready", mutate: func(_ *memSet, _ *fakeProber, pl *Report) { pl.Outcome = RetainedAmbiguous }, err: ErrPlan},
		{name: "plan for another version", mutate: func(_ *memSet, _ *fakeProber, pl *Report) {
			pl.Selector.VersionID = "v2"
		}, err: ErrPlan},
		{name: "source changed", mutate: func(s0 *memSet, _ *fakeProber, _ *Report) { s0.copy.Size = 43 }, outcome: Corrupt, reason: "stale"},
		{name: "state key changed to something else", mutate: func(s0 *memSet, _ *fakeProber, _ *Report) {
			s0.copy.Internal[PrefixRustFS+SuffixRemoteVersion] = ""
		}, outcome: Corrupt, reason: "neither the original"},
		{name: "other explicit state appeared", mutate: func(s0 *memSet, _ *fakeProber, _ *Report) {
			s0.copy.Internal = merge(s0.copy.Internal, both(SuffixState, "exact"), both(SuffixRemoteVersion, "zzz"), both(SuffixDestinationID, testDestID))
		}, outcome: Corrupt, reason: "some sets hold exact"},
		{name: "remote changed since get", mutate: func(_ *memSet, p *fakeProber, _ *Report) { p.obs = enabledOne("new") }, outcome: RetainedAmbiguous, reason: "remote state changed"},
		{name: "tier went down", mutate: func(_ *memSet, p *fakeProber, _ *Report) { p.err = errDown }, outcome: BackendUnavailable},
		{name: "concurrent writer", mutate: func(s0 *memSet, _ *fakeProber, _ *Report) {
			s0.onWrite = func(s *memSet) { s.copy.Generation++ }
		}, outcome: BackendUnavailable, reason: "generation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s0 := &memSet{name: "s0", copy: legacy(nil)}
			p := &fakeProber{obs: enabledOne("abc")}
			pl := plan(t, p, s0)
			tt.mutate(s0, p, pl)
			rep, err := Post(context.Background(), input(p, s0), pl)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				if s0.writes != 0 {
					t.Fatal("wrote after rejecting the plan")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outcome != tt.outcome || !strings.Contains(rep.Reason, tt.reason) {
				t.Fatalf("outcome %s %q, want %s containing %q", rep.Outcome, rep.Reason, tt.outcome, tt.reason)
			}
			if s0.writes != tt.writes || rep.BytesChanged {
				t.Fatalf("writes %d bytes_changed %v", s0.writes, rep.BytesChanged)
			}
		})
	}
}

func TestOutcomeSpellings(t *testing.T) {
	for o, want := range map[Outcome]string{Migrated: "migrated", ReadyToMigrate: "ready-to-migrate", RetainedAmbiguous: "retained-ambiguous", Corrupt: "corrupt", BackendUnavailable: "backend-unavailable"} {
		if o.String() != want {
			t.Errorf("%q.String() = %q", want, o.String())
		}
	}
}

// A write whose answer is lost is resolved by a strong read of that set:
// it landed, so post goes on and reports migrated.
func TestPostResolvesLostWriteAnswerByReading(t *testing.T) {
	s0 := &memSet{name: "s0", copy: legacy(nil)}
	p := &fakeProber{obs: enabledOne("abc")}
	pl := plan(t, p, s0)
	s0.onWrite = func(s *memSet) {
		maps.Copy(s.copy.Internal, (&Target{State: StateExact, RemoteVersionID: "abc", DestinationID: testDestID}).writes())
		s.copy.Generation++
		s.writeErr = errors.New("i/o timeout")
		s.onWrite = nil
	}
	rep, err := Post(context.Background(), input(p, s0), pl)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != Migrated || !rep.BytesChanged {
		t.Fatalf("post: %s %q bytes_changed=%v", rep.Outcome, rep.Reason, rep.BytesChanged)
	}
}
