package reconcile

import (
	"context"
	"errors"
	"maps"
)

// memSet is an in-memory Set with a generation per copy.
type memSet struct {
	name     string
	copy     *Copy // nil: the set does not hold the version
	readErr  error
	writeErr error
	writes   int
	// onWrite, when set, runs before a write is applied (to race it).
	onWrite func(*memSet)
}

func (s *memSet) Name() string { return s.name }

func (s *memSet) Read(_ context.Context, _ Selector) (Copy, error) {
	if s.readErr != nil {
		return Copy{}, s.readErr
	}
	if s.copy == nil {
		return Copy{}, ErrVersionNotFound
	}
	c := *s.copy
	c.Internal = maps.Clone(s.copy.Internal)
	return c, nil
}

func (s *memSet) Write(_ context.Context, _ Selector, gen uint64, keys map[string]string) error {
	if s.onWrite != nil {
		s.onWrite(s)
	}
	if s.writeErr != nil {
		return s.writeErr
	}
	if s.copy == nil {
		return ErrVersionNotFound
	}
	if gen != s.copy.Generation {
		return ErrGenerationConflict
	}
	maps.Copy(s.copy.Internal, keys)
	s.copy.Generation++
	s.writes++
	return nil
}

// fakeProber answers every probe with obs (or err) and counts calls.
type fakeProber struct {
	obs   Observation
	err   error
	calls int
	key   string
}

func (p *fakeProber) Probe(_ context.Context, _ Tier, key string) (Observation, error) {
	p.calls++
	p.key = key
	return p.obs, p.err
}

var errDown = errors.New("dial tcp 127.0.0.1:1: connection refused")

func env(name string) (string, bool) {
	switch name {
	case "AK", "SK":
		return "secret-" + name, true
	}
	return "", false
}

var testTiers = Tiers{"WARM": {Name: "WARM", Type: TierS3, Endpoint: "http://127.0.0.1:8333", Bucket: "tier", Prefix: "/cold/", Region: "us-east-1", AccessKeyEnv: "AK", SecretKeyEnv: "SK"}}

var testDestID = testTiers["WARM"].Destination().ID()

// legacy is a transitioned version written before the state existed:
// both prefixes, no state, no destination id.
func legacy(extra map[string]string) *Copy {
	md := map[string]string{}
	for _, p := range Prefixes {
		md[p+SuffixStatus] = "complete"
		md[p+SuffixTier] = "WARM"
		md[p+SuffixRemoteObject] = "ab/cd/remote-1"
	}
	for k, v := range extra {
		if v == "\x00delete" {
			delete(md, k)
			continue
		}
		md[k] = v
	}
	return &Copy{VersionID: "v1", ModTimeNs: 1_700_000_000_000_000_000, Size: 42, ETag: "etag-1", Internal: md, Generation: 1}
}

// both returns suffix=value under both prefixes.
func both(suffix, value string) map[string]string {
	return map[string]string{PrefixRustFS + suffix: value, PrefixMinIO + suffix: value}
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

var sel = Selector{Bucket: "photos", Object: "2024/a.jpg", VersionID: "v1"}

func input(p Prober, sets ...*memSet) Input {
	in := Input{Selector: sel, Tiers: testTiers, Env: env, Prober: p}
	for _, s := range sets {
		in.Sets = append(in.Sets, s)
	}
	return in
}

func enabledOne(id string) Observation {
	return Observation{Versioning: "Enabled", VersioningAfter: "Enabled", Versions: []RemoteVersion{{VersionID: id}}}
}
