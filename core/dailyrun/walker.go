package dailyrun

import (
	"context"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// Walk kinds, the three walker call sites of design 000 § Algorithm.
const (
	walkRecovery    = "recovery"     // RecoveryView: cold start, rule edit, partition flip
	walkSteadyState = "steady_state" // walk view, when walkerDue and no recovery walk this pass
	walkEmptyReplay = "empty_replay" // walk view, no replay-eligible rule at all
)

// walkPlan decides, once per pass and from the cursor runShard will use,
// which walk shard s fires. A shard that walks RecoveryView never also
// walks the steady-state view in the same pass (walkedThisPass): the
// recovery view is a superset.
func (p *pass) walkPlan(s *shardRun) string {
	if s.loadErr != nil {
		return ""
	}
	due := walkerDue(s.persisted.LastWalkedNs, p.cfg.RunNow, p.cfg.WalkerInterval)
	switch {
	case p.rsh == ([32]byte{}):
		if due && !p.walkView.Empty() {
			return walkEmptyReplay
		}
	case !s.found || p.mustRecover(s):
		return walkRecovery
	case due && !p.walkView.Empty():
		return walkSteadyState
	}
	return ""
}

// walkGroup is one shared walk over a view for every shard that planned
// it: each bucket is listed once per group, not once per shard (design 000
// § Future work 2), and each key is dispatched on behalf of the shard that
// owns it.
type walkGroup struct {
	view   *engine.Snapshot
	shards map[int]*shardRun
	done   chan struct{}
	// errs holds, per shard, why its part of the walk stopped; written only
	// by the walk goroutine before done is closed.
	errs map[int]error
}

// startWalks plans every shard's walk and starts one goroutine per view.
func (p *pass) startWalks(ctx context.Context, states []*shardRun) {
	groups := map[string]*walkGroup{}
	for _, s := range states {
		s.walkPlan = p.walkPlan(s)
		if s.walkPlan == "" {
			continue
		}
		key, view := "walk", p.walkView
		if s.walkPlan == walkRecovery {
			key, view = walkRecovery, p.recoveryView
		}
		g := groups[key]
		if g == nil {
			g = &walkGroup{view: view, shards: map[int]*shardRun{}, done: make(chan struct{}), errs: map[int]error{}}
			groups[key] = g
		}
		g.shards[s.id] = s
		s.walk = g
	}
	for _, g := range groups {
		go p.runWalk(ctx, g)
	}
}

// awaitWalk waits for s's shared walk and returns why s's part of it did
// not complete, nil when it did.
func (s *shardRun) awaitWalk() error {
	<-s.walk.done
	return s.walk.errs[s.id]
}

func (p *pass) runWalk(ctx context.Context, g *walkGroup) {
	defer close(g.done)
	for _, bucket := range g.view.BucketNames() {
		var versionActs, uploadActs []*engine.CompiledAction
		for _, a := range g.view.BucketActions(bucket) {
			switch {
			case !a.IsActive():
			case a.Key.Kind == lifecycle.AbortMPU:
				uploadActs = append(uploadActs, a)
			default:
				versionActs = append(versionActs, a)
			}
		}
		var err error
		if len(versionActs) > 0 {
			err = p.walkObjects(ctx, g, bucket, versionActs)
		}
		if err == nil && len(uploadActs) > 0 {
			err = p.walkUploads(ctx, g, bucket, uploadActs)
		}
		if err != nil {
			g.failAll(err)
			return
		}
	}
}

// failAll stops every shard still walking with err (a listing error or
// cancellation ends the walk for all of them).
func (g *walkGroup) failAll(err error) {
	for id := range g.shards {
		if g.errs[id] == nil {
			g.errs[id] = err
		}
	}
}

// walking returns the shard that owns bucket/key if it is in the group
// and its walk has not stopped.
func (g *walkGroup) walking(bucket, key string) *shardRun {
	s := g.shards[lifecycle.ShardID(bucket, key)]
	if s == nil || g.errs[s.id] != nil {
		return nil
	}
	return s
}

// dispatched records a handle error for s; cancellation is returned so the
// whole walk stops.
func (g *walkGroup) dispatched(ctx context.Context, s *shardRun, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	g.errs[s.id] = err
	return nil
}

// walkObjects lists bucket and dispatches every due match on keys of the
// group's shards; matches not yet due are left to replay or a later walk.
func (p *pass) walkObjects(ctx context.Context, g *walkGroup, bucket string, acts []*engine.CompiledAction) error {
	after := ""
	for len(g.errs) < len(g.shards) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var objs []filer.Object
		var next string
		err := p.withRetry(ctx, func() error {
			var e error
			objs, next, e = p.cfg.Store.ListObjects(ctx, bucket, after, p.pageSize)
			return e
		})
		if err != nil {
			return err
		}
		for i := range objs {
			obj := &objs[i]
			for idx := range obj.Versions {
				s := g.walking(bucket, obj.Key)
				if s == nil {
					break
				}
				m, ok := bestVersionMatch(acts, obj, idx, p.snap.Rounding)
				if !ok || !m.IsDue(p.cfg.RunNow) {
					continue
				}
				_, herr := p.handle(ctx, s, "walker", bucket, nil, &versionTarget{obj: obj, idx: idx}, m)
				if err := g.dispatched(ctx, s, herr); err != nil {
					return err
				}
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
	return nil
}

func (p *pass) walkUploads(ctx context.Context, g *walkGroup, bucket string, acts []*engine.CompiledAction) error {
	after := ""
	for len(g.errs) < len(g.shards) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var ups []filer.Upload
		var next string
		err := p.withRetry(ctx, func() error {
			var e error
			ups, next, e = p.cfg.Store.ListUploads(ctx, bucket, after, p.pageSize)
			return e
		})
		if err != nil {
			return err
		}
		for i := range ups {
			up := &ups[i]
			s := g.walking(bucket, up.Key)
			if s == nil {
				continue
			}
			m, ok := bestUploadMatch(acts, up, p.snap.Rounding)
			if !ok || !m.IsDue(p.cfg.RunNow) {
				continue
			}
			_, herr := p.handle(ctx, s, "walker", bucket, up, nil, m)
			if err := g.dispatched(ctx, s, herr); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
	return nil
}
