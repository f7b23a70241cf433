package itest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/filer"
)

// Environment variables naming the SeaweedFS filer under test, beside
// EnvS3, EnvAccessKey and EnvSecretKey.
const (
	EnvFiler  = "ILMCTL_IT_FILER"   // filer HTTP host:port, e.g. 127.0.0.1:8888 (gRPC at +10000)
	EnvS3GRPC = "ILMCTL_IT_S3_GRPC" // S3 gateway gRPC host:port, e.g. 127.0.0.1:18333
	EnvWeed   = "ILMCTL_IT_WEED"    // path of the weed binary (scripts/seaweedfs.sh install prints it)
	EnvMaster = "ILMCTL_IT_MASTER"  // master host:port for `weed shell`; default 127.0.0.1:9333
)

// FilerTarget is the SeaweedFS under test.
type FilerTarget struct {
	Filer  string // filer HTTP host:port
	S3GRPC string // S3 gateway gRPC host:port
	Weed   string // weed binary
	Master string // master host:port
}

// FilerEnv reads EnvFiler, EnvS3GRPC and EnvWeed (and EnvMaster) and fails
// t when any of the first three is unset: an integration run without a
// server is a failure, not a skip.
func FilerEnv(t testing.TB) FilerTarget {
	t.Helper()
	ft := FilerTarget{Filer: os.Getenv(EnvFiler), S3GRPC: os.Getenv(EnvS3GRPC), Weed: os.Getenv(EnvWeed), Master: os.Getenv(EnvMaster)}
	if ft.Filer == "" || ft.S3GRPC == "" || ft.Weed == "" {
		t.Fatalf("integration tests need %s (filer host:port), %s (S3 gRPC host:port) and %s (weed binary); start a server with scripts/seaweedfs.sh start", EnvFiler, EnvS3GRPC, EnvWeed)
	}
	if ft.Master == "" {
		ft.Master = "127.0.0.1:9333"
	}
	return ft
}

// OpenFiler waits up to a minute for the filer to answer, opens it and
// closes it when t ends.
func OpenFiler(t testing.TB, ft FilerTarget) *seaweedfs.Store {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := seaweedfs.Open(ctx(t), ft.Filer, seaweedfs.Options{S3GRPC: ft.S3GRPC})
		if err == nil {
			t.Cleanup(func() { st.Close() })
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("filer %s not ready after a minute: %v", ft.Filer, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Backdate sets the mtime of key's version versionID ("null" for the bare
// object) to now-age through filer UpdateEntry, as SeaweedFS's own
// lifecycle tests age objects.
func Backdate(t testing.TB, st *seaweedfs.Store, bucket, key, versionID string, age time.Duration) {
	t.Helper()
	if err := st.SetVersionMtime(ctx(t), bucket, key, versionID, time.Now().Add(-age)); err != nil {
		t.Fatalf("backdate %s/%s@%s: %v", bucket, key, versionID, err)
	}
}

// BackdateUpload sets upload uploadID's initiation time to now-age.
func BackdateUpload(t testing.TB, st *seaweedfs.Store, bucket, uploadID string, age time.Duration) {
	t.Helper()
	if err := st.SetUploadMtime(ctx(t), bucket, uploadID, time.Now().Add(-age)); err != nil {
		t.Fatalf("backdate upload %s/%s: %v", bucket, uploadID, err)
	}
}

// Left returns what the filer holds for bucket, read through the store (not
// the S3 API), in S3.ListAll's format: "key@versionID" ("[DM]" appended for
// delete markers) and "key#uploadID", each sorted.
func Left(t testing.TB, st filer.Store, bucket string) (versions, uploads []string) {
	t.Helper()
	c := ctx(t)
	versions, uploads = []string{}, []string{}
	after := ""
	for {
		objs, next, err := st.ListObjects(c, bucket, after, 100)
		if err != nil {
			t.Fatalf("list %s: %v", bucket, err)
		}
		for _, o := range objs {
			for _, v := range o.Versions {
				e := o.Key + "@" + v.VersionID
				if v.DeleteMarker {
					e += "[DM]"
				}
				versions = append(versions, e)
			}
		}
		if next == "" {
			break
		}
		after = next
	}
	after = ""
	for {
		ups, next, err := st.ListUploads(c, bucket, after, 100)
		if err != nil {
			t.Fatalf("list uploads %s: %v", bucket, err)
		}
		for _, u := range ups {
			uploads = append(uploads, u.Key+"#"+u.UploadID)
		}
		if next == "" {
			break
		}
		after = next
	}
	sort.Strings(versions)
	sort.Strings(uploads)
	return versions, uploads
}

// WeedShell runs one `weed shell` command against the target and returns
// its output; a non-zero exit or an output line starting with "error"
// fails t.
func WeedShell(t testing.TB, ft FilerTarget, command string, timeout time.Duration) string {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(c, ft.Weed, "shell", "-master="+ft.Master, "-filer="+ft.Filer)
	cmd.Stdin = strings.NewReader(command + "\nexit\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if errors.Is(c.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %s", timeout)
	}
	if err != nil {
		t.Fatalf("weed shell %q: %v\n%s", command, err, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(line, "> ")), "error") {
			t.Fatalf("weed shell %q: %s\n%s", command, line, out.String())
		}
	}
	return out.String()
}

// BackdateNoncurrent sets the noncurrent-since stamp of key's version
// versionID to now-age.
func BackdateNoncurrent(t testing.TB, st *seaweedfs.Store, bucket, key, versionID string, age time.Duration) {
	t.Helper()
	at := time.Now().Add(-age)
	if err := st.SetVersionNoncurrentSince(ctx(t), bucket, key, versionID, at); err != nil {
		t.Fatalf("backdate noncurrent %s/%s@%s: %v", bucket, key, versionID, err)
	}
	// The version became noncurrent when its successor was created, and
	// S3 counts its noncurrent days from that creation: a successor
	// written after the stamp, or a version written after its own
	// demotion, would be a history no server writes. Either is moved back
	// to fit.
	obj, ok, err := st.LookupObject(ctx(t), bucket, key)
	if err != nil || !ok {
		t.Fatalf("look up %s/%s: %v (found %v)", bucket, key, err, ok)
	}
	for i := 1; i < len(obj.Versions); i++ {
		v, succ := obj.Versions[i], obj.Versions[i-1]
		if v.VersionID != versionID {
			continue
		}
		if succ.MtimeNs > at.UnixNano() {
			if err := st.SetVersionMtime(ctx(t), bucket, key, succ.VersionID, at); err != nil {
				t.Fatalf("backdate the successor %s/%s@%s: %v", bucket, key, succ.VersionID, err)
			}
		}
		if v.MtimeNs >= at.UnixNano() {
			if err := st.SetVersionMtime(ctx(t), bucket, key, v.VersionID, at.Add(-time.Second)); err != nil {
				t.Fatalf("backdate %s/%s@%s: %v", bucket, key, v.VersionID, err)
			}
		}
	}
}

// DeleteObjectVersion permanently deletes key's version versionID through
// the S3 API (s3.go has no such helper yet).
func DeleteObjectVersion(t testing.TB, s *S3, bucket, key, versionID string) {
	t.Helper()
	_, err := s.C.DeleteObject(ctx(t), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(versionID)})
	if err != nil {
		t.Fatalf("delete %s/%s@%s: %v", bucket, key, versionID, err)
	}
}

// WaitMetaLogPersisted polls (up to two flush intervals) until the filer
// has appended to its persisted meta-log after since, so the events
// written before since survive a server that is then killed: SeaweedFS
// flushes its in-memory meta-log once a minute and an unclean stop loses
// what is still in memory (see seaweedfs.Store.MetaLogPersistedNs).
func WaitMetaLogPersisted(t testing.TB, st *seaweedfs.Store, since time.Time) {
	t.Helper()
	deadline := time.Now().Add(2*time.Minute + 10*time.Second)
	for {
		ns, err := st.MetaLogPersistedNs(ctx(t))
		if err != nil {
			t.Fatalf("read the persisted meta-log: %v", err)
		}
		if ns > since.UnixNano() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the filer has not persisted its meta-log since %s (last append %s)", since.Format(time.RFC3339Nano), time.Unix(0, ns).UTC().Format(time.RFC3339Nano))
		}
		time.Sleep(time.Second) // polling an external server's once-a-minute flush
	}
}

// PurgeBuckets removes every bucket on the filer through the filer itself
// (seaweedfs.Store.DeleteBucketDir), whatever it holds. A lifecycle pass
// covers every bucket on its server, so a test that reasons about what
// each shard of a pass does starts from an empty server rather than from
// whatever earlier tests (or packages) could not remove through S3.
func PurgeBuckets(t testing.TB, st *seaweedfs.Store) {
	t.Helper()
	bs, err := st.ListBuckets(ctx(t))
	if err != nil {
		t.Fatalf("list buckets to purge: %v", err)
	}
	for _, b := range bs {
		if err := st.DeleteBucketDir(ctx(t), b.Name); err != nil {
			t.Fatalf("purge bucket %s: %v", b.Name, err)
		}
	}
}
