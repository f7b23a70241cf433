//go:build integration

package s3_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	s3store "github.com/ilmctl/ilmctl/client/s3"
	"github.com/ilmctl/ilmctl/core/filer/filertest"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// The s3:// store passes the contract the embedded filer and the pass's
// fakes pass (core/filer/filertest), on the server under test: SeaweedFS's
// S3 gateway or MinIO. Scenarios are written through the S3 API, so the
// server names the buckets and versions.
func TestStoreContractLive(t *testing.T) {
	filertest.Run(t, filertest.Harness{
		Live: func(t *testing.T, buckets []filertest.Bucket) filertest.Subject {
			endpoint, access, secret := itest.S3Env(t)
			s3c := itest.FromEnv(t)
			names, ids := s3c.WriteContract(t, buckets)
			st, err := s3store.Open(t.Context(), endpoint, s3store.Options{PathStyle: true, State: t.TempDir(),
				Credentials: credentials.NewStaticCredentialsProvider(access, secret, "")})
			if err != nil {
				t.Fatal(err)
			}
			return filertest.Subject{Store: st, Buckets: names, IDs: ids}
		},
		UploadsByInitiation: true,
	})
}
