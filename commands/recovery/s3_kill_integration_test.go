//go:build integration && unix

// The kill and ownership tests of kill_test.go and ownership_test.go on
// s3:// pools: two prefixes of one bucket on the S3 server under test
// (ILMCTL_IT_S3, ILMCTL_IT_ACCESS_KEY, ILMCTL_IT_SECRET_KEY; the MinIO of
// `make test-integration-minio` or the SeaweedFS gateway of `make
// test-integration-seaweedfs`). A PUT there installs the object or
// nothing, so "mid" is a PUT killed with half its body sent (halfSent).
package recovery

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/internal/itest"
)

// s3KillPools are the fixture's pools as prefixes of one bucket.
type s3KillPools struct {
	admin                    *itest.S3
	endpoint, bucket, access string
}

func newS3KillPools(t *testing.T) s3KillPools {
	t.Helper()
	endpoint, access, secret := itest.S3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", access) // the children inherit them
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	admin := itest.NewClient(endpoint, access, secret)
	return s3KillPools{admin, endpoint, admin.CreateBucket(t, "ilmctl-kill"), access}
}

func (p s3KillPools) url(prefix string) string {
	return "s3://" + p.endpoint + "/" + p.bucket + "/" + prefix
}

// publish empties pool-a/, pool-b/ and empty/ and uploads the local
// copies: the same specs, so the same pool IDs, in every case.
func (p s3KillPools) publish(t *testing.T, a, b string) (string, string, string) {
	t.Helper()
	for _, prefix := range []string{"pool-a", "pool-b", "empty"} {
		for key := range p.files(t, p.url(prefix)) {
			if _, err := p.admin.C.DeleteObject(t.Context(), &s3api.DeleteObjectInput{Bucket: &p.bucket, Key: aws.String(prefix + "/" + key)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for prefix, dir := range map[string]string{"pool-a": a, "pool-b": b} {
		for key, body := range (dirPools{}).files(t, dir) {
			p.admin.PutObject(t, p.bucket, prefix+"/"+key, string(body), nil)
		}
	}
	return p.url("pool-a"), p.url("pool-b"), p.url("empty")
}

// files is every object under pool's prefix, read through the admin
// client (not the store under test), by key below the prefix.
func (p s3KillPools) files(t *testing.T, pool string) map[string][]byte {
	t.Helper()
	prefix := strings.TrimPrefix(pool, p.url("")) + "/"
	m := map[string][]byte{}
	in := &s3api.ListObjectsV2Input{Bucket: &p.bucket, Prefix: &prefix}
	for {
		out, err := p.admin.C.ListObjectsV2(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			g, err := p.admin.C.GetObject(t.Context(), &s3api.GetObjectInput{Bucket: &p.bucket, Key: o.Key})
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(g.Body)
			g.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			m[strings.TrimPrefix(aws.ToString(o.Key), prefix)] = b
		}
		if !aws.ToBool(out.IsTruncated) {
			return m
		}
		in.ContinuationToken = out.NextContinuationToken
	}
}

func (p s3KillPools) actor() string { return "access-key:" + p.access }

// checkMid: the child blocked with part of the PUT's body sent, not all.
func (s3KillPools) checkMid(t *testing.T, _ string, rest []string) {
	t.Helper()
	sent, total, ok := strings.Cut(strings.Join(rest, " "), "/")
	n, err1 := strconv.Atoi(sent)
	m, err2 := strconv.Atoi(total)
	if !ok || err1 != nil || err2 != nil || n <= 0 || n >= m {
		t.Fatalf("blocked at %q, want SENT/TOTAL bytes of the PUT's body, part of it", rest)
	}
}

// TestExportKilledS3 is TestExportKilled on s3:// pools: killed with the
// export's PUT half sent, or just after it, the pools hold nothing 'journal
// ls' calls corrupt or 'decom verify' blocks on, and export run again
// converges to an uninterrupted run's objects.
func TestExportKilledS3(t *testing.T) { testExportKilled(t, newS3KillPools(t)) }

// TestAbandonKilledS3 is TestAbandonKilled on s3:// pools: at every
// install step of the disposition (its PUT half sent, or just after it or
// a deletion) the pools hold nothing a reader calls corrupt beyond the
// live disposition, the killed run's lease refuses a re-run, and after
// its expiry the same command converges.
func TestAbandonKilledS3(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, minioRefusesAbandon)
	testAbandonKilled(t, newS3KillPools(t))
}

// minioRefusesAbandon is why the abandon tests need SeaweedFS: MinIO
// ignores If-Match on DeleteObject, so abandon is refused there before
// its first write (TestOperatorFlowOnS3 shows it).
const minioRefusesAbandon = "MinIO ignores If-Match on DeleteObject, so abandon is refused there before its first write (TestOperatorFlowOnS3)"

// TestDispositionOwnershipS3 is TestDispositionOwnershipDirPools on
// s3:// pools: of two appliers of one disposition, the one that finds the
// other's live lease is refused, and one that lost its lease to a
// takeover deletes nothing more.
func TestDispositionOwnershipS3(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, minioRefusesAbandon)
	kp := newS3KillPools(t)
	testDispositionOwnership(t, func(t *testing.T) (string, string) {
		a, b, _ := setup(t)
		pa, pb, _ := kp.publish(t, a, b)
		return pa, pb
	})
}
