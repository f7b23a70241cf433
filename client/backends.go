package client

import (
	"context"
	"errors"
)

// openSeaweedFS and openS3 are replaced by the seaweedfs:// and s3://
// backends (issue 3); until then both schemes fail with a clear error.
func openSeaweedFS(ctx context.Context, addr string, opts Options) (Filer, error) {
	return nil, errors.New("seaweedfs:// filer backend is not built yet")
}

func openS3(ctx context.Context, addr string, opts Options) (Filer, error) {
	return nil, errors.New("s3:// filer backend is not built yet")
}
