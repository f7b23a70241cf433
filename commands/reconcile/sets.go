package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/client/embedded"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/reconcile"
)

// filerSet is one --filer as a reconcile.Set: an embedded filer, whose
// versions carry internal metadata with a generation.
type filerSet struct {
	spec string
	f    *embedded.Filer
}

func (s *filerSet) Name() string { return s.spec }

func (s *filerSet) Read(ctx context.Context, sel reconcile.Selector) (reconcile.Copy, error) {
	v, err := s.f.InternalMetadata(ctx, sel.Bucket, sel.Object, sel.VersionID)
	switch {
	case errors.Is(err, embedded.ErrNoSuchVersion):
		return reconcile.Copy{}, fmt.Errorf("%w: %v", reconcile.ErrVersionNotFound, err)
	case err != nil:
		return reconcile.Copy{}, err
	case v.DeleteMarker:
		return reconcile.Copy{}, fmt.Errorf("%w: %s/%s version %s is a delete marker", reconcile.ErrVersionNotFound, sel.Bucket, sel.Object, sel.VersionID)
	}
	return reconcile.Copy{VersionID: v.VersionID, ModTimeNs: v.MtimeNs, Size: v.Size, ETag: v.ETag, Internal: v.Metadata, Generation: v.Generation}, nil
}

func (s *filerSet) Write(ctx context.Context, sel reconcile.Selector, gen uint64, keys map[string]string) error {
	_, err := s.f.UpdateInternalMetadata(ctx, sel.Bucket, sel.Object, sel.VersionID, gen, keys)
	if errors.Is(err, embedded.ErrGenerationMismatch) {
		return fmt.Errorf("%w: %v", reconcile.ErrGenerationConflict, err)
	}
	return err
}

// openSets opens every --filer as a set, read-only for get. Only embedded
// filers hold per-version internal metadata; a remote spec is a usage
// error. The returned func closes them; on error nothing stays open.
func openSets(specs []string, readOnly bool) ([]reconcile.Set, func(), error) {
	for _, spec := range specs {
		if err := client.CheckSpec(spec); err != nil {
			return nil, nil, &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err}
		}
		if strings.HasPrefix(spec, "seaweedfs://") || strings.HasPrefix(spec, "s3://") {
			return nil, nil, cmdutil.Usage("--filer %q: reconcile reads each version's internal (xl.meta) metadata, which only an embedded filer directory holds; pass --filer DIR", spec)
		}
	}
	// One set under two spellings would be read, counted and written twice
	// (docs/design/decommission.md#pool-identity).
	if err := cmdutil.DistinctPools(cmdutil.PoolFlag{Flag: "--filer", Noun: "set"}, specs); err != nil {
		return nil, nil, err
	}
	var sets []reconcile.Set
	var opened []*embedded.Filer
	closeAll := func() {
		for _, f := range opened {
			_ = f.Close()
		}
	}
	for _, spec := range specs {
		f, err := embedded.Open(strings.TrimPrefix(spec, "dir:"), embedded.Options{MustExist: true, ReadOnly: readOnly})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("--filer %q: %w", spec, err)
		}
		opened = append(opened, f)
		sets = append(sets, &filerSet{spec: spec, f: f})
	}
	return sets, closeAll, nil
}
