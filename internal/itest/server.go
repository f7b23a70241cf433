package itest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// EnvServer names the kind of server EnvS3 points at; unset means
// SeaweedFS.
const EnvServer = "ILMCTL_IT_SERVER"

// Server is a kind of S3 server the integration tests run against, named
// as EnvServer spells it.
type Server string

// Servers the project's scripts start.
const (
	// SeaweedFS is the S3 gateway of scripts/seaweedfs.sh; its filer
	// (EnvFiler) is reachable too.
	SeaweedFS Server = "seaweedfs"
	// MinIO is the server of scripts/minio.sh: S3 only.
	MinIO Server = "minio"
)

// ServerEnv reads EnvServer and fails t on a value it does not know.
func ServerEnv(t testing.TB) Server {
	t.Helper()
	switch v := Server(os.Getenv(EnvServer)); v {
	case "", SeaweedFS:
		return SeaweedFS
	case MinIO:
		return MinIO
	default:
		t.Fatalf("%s=%q: want %q or %q", EnvServer, v, SeaweedFS, MinIO)
		return ""
	}
}

// RequireServer skips t unless the server under test is want, saying why
// the test needs it.
func RequireServer(t testing.TB, want Server, why string) {
	t.Helper()
	if got := ServerEnv(t); got != want {
		t.Skipf("needs %s, not %s (%s=%s): %s", want, got, EnvServer, got, why)
	}
}

// MinIOSourceMtime is the request header MinIO's site replication uses to
// give an object version, or a delete marker, the modification time it has
// on the source (MinIO's cmd/object-api-options.go reads it on PUT,
// CompleteMultipartUpload and DELETE). Tests use it to write versions that
// are already old, as S3 offers no way to backdate one.
const MinIOSourceMtime = "X-Minio-Source-Mtime"

// Backdated returns a client like s whose requests carry MinIOSourceMtime
// set to age before the moment each is sent, so on MinIO every version and
// delete marker it writes is that old at birth (and versions written one
// after another keep their order). Other servers ignore the header.
func (s *S3) Backdated(age time.Duration) *S3 {
	return s.withMtime(func() time.Time { return time.Now().Add(-age) })
}

// AtMtime is Backdated with one fixed mtime: on MinIO every version it
// writes has LastModified at, so several can share one second.
func (s *S3) AtMtime(at time.Time) *S3 {
	return s.withMtime(func() time.Time { return at })
}

func (s *S3) withMtime(at func() time.Time) *S3 {
	opts := s.C.Options()
	opts.APIOptions = append(append([]func(*middleware.Stack) error{}, opts.APIOptions...), func(st *middleware.Stack) error {
		return st.Build.Add(middleware.BuildMiddlewareFunc("ilmctlBackdate", func(ctx context.Context, in middleware.BuildInput, next middleware.BuildHandler) (middleware.BuildOutput, middleware.Metadata, error) {
			if req, ok := in.Request.(*smithyhttp.Request); ok {
				req.Header.Set(MinIOSourceMtime, at().UTC().Format(time.RFC3339Nano))
			}
			return next.HandleBuild(ctx, in)
		}), middleware.After)
	})
	return &S3{C: s3.New(opts), Endpoint: s.Endpoint}
}
