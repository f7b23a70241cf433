package client

import (
	"context"

	s3store "github.com/ilmctl/ilmctl/client/s3"
	"github.com/ilmctl/ilmctl/client/seaweedfs"
)

// openSeaweedFS opens a live SeaweedFS filer (client/seaweedfs). The admin
// token for LifecycleDelete comes from the environment (seaweedfs.AuthFromEnv:
// WEED_JWT_FILER_SIGNING_KEY, or the security.toml named by
// ILMCTL_SEAWEEDFS_SECURITY_TOML).
func openSeaweedFS(ctx context.Context, addr string, opts Options) (Filer, error) {
	auth, err := seaweedfs.AuthFromEnv()
	if err != nil {
		return nil, err
	}
	so := opts.SeaweedFS
	so.Auth = auth
	st, err := seaweedfs.Open(ctx, addr, so)
	if err != nil {
		return nil, err // not st: a nil *Store in a Filer would not be nil
	}
	return st, nil
}

func openS3(ctx context.Context, addr string, opts Options) (Filer, error) {
	so := opts.S3
	if so.Clock == nil {
		so.Clock = opts.Clock
	}
	st, err := s3store.Open(ctx, addr, so)
	if err != nil {
		return nil, err // not st: a nil *Store in a Filer would not be nil
	}
	return st, nil
}
