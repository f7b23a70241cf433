package dailyrun

import (
	"context"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// walk lists every bucket the view has actions for and dispatches every due
// match on keys this shard owns; matches not yet due are left to replay or a
// later walk (design 000 § Future work 2: each shard
// walks the full listing and filters by ShardID). It stops at the first
// dispatch that does not complete.
func (p *pass) walk(ctx context.Context, s *shardRun, view *engine.Snapshot) error {
	for _, bucket := range view.BucketNames() {
		acts := view.BucketActions(bucket)
		var versionActs, uploadActs []*engine.CompiledAction
		for _, a := range acts {
			if !a.IsActive() {
				continue
			}
			if a.Key.Kind == lifecycle.AbortMPU {
				uploadActs = append(uploadActs, a)
			} else {
				versionActs = append(versionActs, a)
			}
		}
		if len(versionActs) > 0 {
			if err := p.walkObjects(ctx, s, bucket, versionActs); err != nil {
				return err
			}
		}
		if len(uploadActs) > 0 {
			if err := p.walkUploads(ctx, s, bucket, uploadActs); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *pass) walkObjects(ctx context.Context, s *shardRun, bucket string, acts []*engine.CompiledAction) error {
	after := ""
	for {
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
			if lifecycle.ShardID(bucket, obj.Key) != s.id {
				continue
			}
			for idx := range obj.Versions {
				m, ok := bestVersionMatch(acts, obj, idx, p.snap.Rounding)
				if !ok || !m.IsDue(p.cfg.RunNow) {
					continue
				}
				if _, err := p.handle(ctx, s, "walker", bucket, nil, &versionTarget{obj: obj, idx: idx}, m); err != nil {
					return err
				}
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

func (p *pass) walkUploads(ctx context.Context, s *shardRun, bucket string, acts []*engine.CompiledAction) error {
	after := ""
	for {
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
			if lifecycle.ShardID(bucket, up.Key) != s.id {
				continue
			}
			m, ok := bestUploadMatch(acts, up, p.snap.Rounding)
			if !ok || !m.IsDue(p.cfg.RunNow) {
				continue
			}
			if _, err := p.handle(ctx, s, "walker", bucket, up, nil, m); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}
