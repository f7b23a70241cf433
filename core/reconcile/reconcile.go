package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Input is what get and post work on.
type Input struct {
	Selector Selector
	// Sets are every pool/set that may hold the version, in a stable order.
	Sets   []Set
	Tiers  Tiers
	Env    func(string) (string, bool)
	Prober Prober
}

// gathered is the authoritative read of every set, validated.
type gathered struct {
	source   *Source
	sets     []SetCopy
	tuples   []tuple
	copies   []Copy
	explicit *Target // the common explicit target of the copies that have one
	missing  []int   // indexes of copies whose state is absent
	stored   string  // the remote version id the missing copies hold
}

// gather reads and validates every set (docs/design/reconcile.md#source-metadata).
// A non-nil *Report is a finished outcome (corrupt, backend-unavailable);
// an error is ErrVersionNotFound or ErrNotTransitioned.
func gather(ctx context.Context, in Input) (*gathered, *Report, error) {
	rep := &Report{Selector: in.Selector}
	finish := func(o Outcome, format string, args ...any) (*gathered, *Report, error) {
		rep.Outcome, rep.Reason = o, fmt.Sprintf(format, args...)
		return nil, rep, nil
	}
	g := &gathered{}
	var absent, present []string
	for _, s := range in.Sets {
		c, err := s.Read(ctx, in.Selector)
		switch {
		case errors.Is(err, ErrVersionNotFound):
			absent = append(absent, s.Name())
			continue
		case err != nil:
			return finish(BackendUnavailable, "set %s could not be read: %v", s.Name(), err)
		}
		present = append(present, s.Name())
		g.copies = append(g.copies, c)
		g.sets = append(g.sets, SetCopy{Set: s.Name(), Generation: c.Generation, Keys: rawMutable(c.Internal)})
	}
	switch {
	case len(present) == 0:
		return nil, nil, &VersionNotFoundError{Selector: in.Selector}
	case len(absent) > 0:
		return finish(Corrupt, "the version is in set(s) %s but not in %s: its copies disagree", strings.Join(present, ", "), strings.Join(absent, ", "))
	}
	notTransitioned := 0
	for i, c := range g.copies {
		t, err := decode(c)
		if errors.Is(err, ErrNotTransitioned) {
			notTransitioned++
			continue
		}
		var ce *corruptError
		if errors.As(err, &ce) {
			return finish(Corrupt, "set %s: %s", g.sets[i].Set, ce.reason)
		}
		g.tuples = append(g.tuples, t)
	}
	switch {
	case notTransitioned == len(g.copies):
		return nil, nil, ErrNotTransitioned
	case notTransitioned > 0:
		return finish(Corrupt, "the version is transitioned in some sets and not in others")
	}
	c0, t0 := g.copies[0], g.tuples[0]
	for i := range g.copies {
		c, t := g.copies[i], g.tuples[i]
		if c.VersionID != c0.VersionID || c.ModTimeNs != c0.ModTimeNs || c.Size != c0.Size || c.ETag != c0.ETag {
			return finish(Corrupt, "set %s: version identity (mtime, size, etag) differs from set %s", g.sets[i].Set, g.sets[0].Set)
		}
		if t.status != t0.status || t.tier != t0.tier || t.remoteObject != t0.remoteObject {
			return finish(Corrupt, "set %s: transition tuple (status, tier, remote object) differs from set %s", g.sets[i].Set, g.sets[0].Set)
		}
		if target, ok := t.explicit(); ok {
			g.sets[i].State = string(t.state)
			if target.DestinationID == "" {
				return finish(Corrupt, "set %s: explicit state %q without transition-tier-destination-id is not a state reconcile can converge", g.sets[i].Set, t.state)
			}
			if g.explicit != nil && *g.explicit != target {
				return finish(Corrupt, "sets hold different explicit states (%s %q, %s %q)", g.explicit.State, g.explicit.RemoteVersionID, target.State, target.RemoteVersionID)
			}
			g.explicit = &target
			continue
		}
		g.sets[i].State = StateMissing
		if len(g.missing) > 0 && t.remoteVersion != g.stored {
			return finish(Corrupt, "set %s: transitioned-versionID %q differs from another set's %q", g.sets[i].Set, t.remoteVersion, g.stored)
		}
		g.missing = append(g.missing, i)
		g.stored = t.remoteVersion
	}
	entry, ok := in.Tiers[t0.tier]
	if !ok {
		return finish(BackendUnavailable, "tier %q is not in --tiers: add it with its endpoint, bucket, prefix and region", t0.tier)
	}
	dest := entry.Destination()
	g.source = &Source{
		Bucket: in.Selector.Bucket, Object: in.Selector.Object, VersionID: c0.VersionID,
		ModTimeNs: c0.ModTimeNs, Size: c0.Size, ETag: c0.ETag,
		TransitionStatus: t0.status, Tier: t0.tier, RemoteObject: t0.remoteObject,
		RemoteKey:   Tier{Destination: dest}.RemoteKey(t0.remoteObject),
		Destination: dest, DestinationID: dest.ID(),
	}
	rep.Source, rep.Sets = g.source, g.sets
	for i, t := range g.tuples {
		if t.destinationID != "" && !strings.EqualFold(t.destinationID, g.source.DestinationID) {
			return finish(BackendUnavailable, "set %s is bound to destination %s, but tier %q in --tiers is %s: the tier's endpoint, bucket, prefix or region differ from the ones the object was transitioned to",
				g.sets[i].Set, t.destinationID, t0.tier, g.source.DestinationID)
		}
	}
	return g, nil, nil
}

// prove runs the live probe and derives the target, or returns the
// retained-ambiguous / backend-unavailable report.
func prove(ctx context.Context, in Input, g *gathered, rep *Report) (*Target, bool) {
	tier, err := in.Tiers[g.source.Tier].Resolve(in.Env)
	if err != nil {
		rep.Outcome, rep.Reason = BackendUnavailable, err.Error()
		return nil, false
	}
	obs, err := in.Prober.Probe(ctx, tier, g.source.RemoteKey)
	if err != nil {
		rep.Outcome, rep.Reason = BackendUnavailable, fmt.Sprintf("tier %q probe failed: %v", tier.Name, err)
		return nil, false
	}
	rep.Probe = &ProbeReport{Tier: tier.Name, RemoteKey: g.source.RemoteKey, Observation: obs}
	state, rv, reason, ok := derive(obs, g.stored)
	if !ok {
		rep.Outcome, rep.Reason = RetainedAmbiguous, reason
		return nil, false
	}
	return &Target{State: state, RemoteVersionID: rv, DestinationID: g.source.DestinationID}, true
}

// Get inspects the version and proposes a target when one is provable. It
// never writes. The report is the plan Post takes.
func Get(ctx context.Context, in Input) (*Report, error) {
	if err := in.Selector.Check(); err != nil {
		return nil, err
	}
	rep, err := get(ctx, in)
	if rep != nil && rep.Source != nil {
		rep.Digest = Digest(rep.Source, rep.Sets, rep.Target)
	}
	return rep, err
}

func get(ctx context.Context, in Input) (*Report, error) {
	g, rep, err := gather(ctx, in)
	if err != nil || rep != nil {
		return rep, err
	}
	rep = &Report{Selector: in.Selector, Source: g.source, Sets: g.sets}
	if len(g.missing) == 0 {
		rep.Outcome, rep.Target = Migrated, g.explicit
		return rep, nil
	}
	target, ok := prove(ctx, in, g, rep)
	if !ok {
		return rep, nil
	}
	if g.explicit != nil && *g.explicit != *target {
		rep.Outcome, rep.Reason = Corrupt, fmt.Sprintf("some sets hold %s %q but the tier proves %s %q", g.explicit.State, g.explicit.RemoteVersionID, target.State, target.RemoteVersionID)
		return rep, nil
	}
	rep.Outcome, rep.Ready, rep.Target = ReadyToMigrate, true, target
	return rep, nil
}

// CheckPlan rejects, before anything is read, a plan that cannot be
// posted for in: not ready, edited since get, or for another selector or
// other sets. Errors match ErrPlan.
func CheckPlan(in Input, plan *Report) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrPlan, fmt.Sprintf(format, args...))
	}
	switch {
	case plan.Outcome != ReadyToMigrate || !plan.Ready || plan.Target == nil || plan.Source == nil:
		return bad("its outcome is %s, not ready-to-migrate: only a ready plan can be posted", plan.Outcome)
	case plan.Digest != Digest(plan.Source, plan.Sets, plan.Target):
		return bad("its digest does not match its source, sets and target: it was edited; run get again")
	case plan.Selector != in.Selector:
		return bad("it is for %s/%s version %s, not the selected %s/%s version %s",
			plan.Selector.Bucket, plan.Selector.Object, plan.Selector.VersionID, in.Selector.Bucket, in.Selector.Object, in.Selector.VersionID)
	}
	var names []string
	for _, s := range in.Sets {
		names = append(names, s.Name())
	}
	var planned []string
	for _, s := range plan.Sets {
		planned = append(planned, s.Set)
	}
	if !slices.Equal(names, planned) {
		return bad("it covers sets %s, but --filer names %s: pass the same sets in the same order", strings.Join(planned, ", "), strings.Join(names, ", "))
	}
	return nil
}

// Post migrates the version the plan describes, per
// docs/design/reconcile.md#post: reread, compare, prove again, write each
// missing set conditionally, strongly reread. It returns exactly one
// outcome. A plan CheckPlan refuses is an error matching ErrPlan, before
// anything is read.
func Post(ctx context.Context, in Input, plan *Report) (*Report, error) {
	if err := CheckPlan(in, plan); err != nil {
		return nil, err
	}
	g, rep, err := gather(ctx, in)
	if err != nil || rep != nil {
		return rep, err
	}
	rep = &Report{Selector: in.Selector, Source: g.source, Sets: g.sets}
	switch stale := staleField(plan.Source, g.source); stale {
	case "":
	case "destination":
		rep.Outcome, rep.Reason = BackendUnavailable, fmt.Sprintf("tier %q in --tiers is not the destination the plan was made for: the bound destination cannot be acquired", g.source.Tier)
		return rep, nil
	default:
		rep.Outcome, rep.Reason = Corrupt, fmt.Sprintf("the source tuple changed since get (%s): the plan is stale; run get again", stale)
		return rep, nil
	}
	for i := range g.sets {
		if g.sets[i].State == StateMissing && !slices.Equal(g.sets[i].Keys, plan.Sets[i].Keys) {
			rep.Outcome, rep.Reason = Corrupt, fmt.Sprintf("set %s: its state keys are neither the original representation the plan bound nor a proven target", g.sets[i].Set)
			return rep, nil
		}
	}
	if len(g.missing) == 0 && *g.explicit == *plan.Target {
		rep.Outcome, rep.Target = Migrated, g.explicit
		return rep, nil
	}
	target, ok := prove(ctx, in, g, rep)
	if !ok {
		return rep, nil
	}
	rep.Target = target
	if *target != *plan.Target {
		rep.Outcome, rep.Reason = RetainedAmbiguous, fmt.Sprintf("the tier now proves %s %q, but the plan was for %s %q: the remote state changed", target.State, target.RemoteVersionID, plan.Target.State, plan.Target.RemoteVersionID)
		return rep, nil
	}
	if g.explicit != nil && *g.explicit != *target {
		rep.Outcome, rep.Reason = Corrupt, fmt.Sprintf("some sets hold %s %q but the tier proves %s %q", g.explicit.State, g.explicit.RemoteVersionID, target.State, target.RemoteVersionID)
		return rep, nil
	}
	writes := target.writes()
	for _, i := range g.missing {
		s := in.Sets[i]
		err := s.Write(ctx, in.Selector, g.copies[i].Generation, writes)
		if err == nil {
			rep.BytesChanged = true
			continue
		}
		// The write may have landed and only its answer been lost, or a
		// concurrent post may have written the same target: only a strong
		// read of that set says which.
		if c, rerr := s.Read(ctx, in.Selector); rerr == nil && c.Generation != g.copies[i].Generation {
			if t, derr := decode(c); derr == nil {
				if got, ok := t.explicit(); ok && got == *target {
					rep.BytesChanged = true
					continue
				}
			}
		}
		rep.Outcome, rep.Reason = BackendUnavailable, fmt.Sprintf("set %s: write failed: %v; sets already written keep the target and a retry fills the rest", s.Name(), err)
		return rep, nil
	}
	after, arep, err := gather(ctx, in)
	switch {
	case err != nil:
		rep.Outcome, rep.Reason = Corrupt, fmt.Sprintf("strong reread after the write: %v", err)
		return rep, nil
	case arep != nil:
		arep.BytesChanged, arep.Target = rep.BytesChanged, target
		arep.Reason = "strong reread after the write: " + arep.Reason
		return arep, nil
	}
	rep.Sets = after.sets
	if stale := staleField(plan.Source, after.source); stale != "" || len(after.missing) > 0 || after.explicit == nil || *after.explicit != *target {
		rep.Outcome, rep.Reason = Corrupt, "strong reread after the write does not show every set at the target"
		return rep, nil
	}
	rep.Outcome = Migrated
	return rep, nil
}

// staleField names the first source field that differs, "" when none.
func staleField(want, got *Source) string {
	switch {
	case want.Bucket != got.Bucket || want.Object != got.Object || want.VersionID != got.VersionID:
		return "object version"
	case want.ModTimeNs != got.ModTimeNs:
		return "mod_time_ns"
	case want.Size != got.Size:
		return "size"
	case want.ETag != got.ETag:
		return "etag"
	case want.TransitionStatus != got.TransitionStatus:
		return "transition_status"
	case want.Tier != got.Tier:
		return "tier"
	case want.RemoteObject != got.RemoteObject || want.RemoteKey != got.RemoteKey:
		return "remote_object"
	case want.Destination != got.Destination || want.DestinationID != got.DestinationID:
		return "destination"
	}
	return ""
}
