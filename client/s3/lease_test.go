package s3

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/leasetest"
)

// objectServer keeps objects in memory and answers GET and conditional
// PUT as SeaweedFS and MinIO do (docs/s3.md#conditional-requests-per-server): If-None-Match: * refuses an existing key, If-Match a changed
// ETag, both with 412. notImplemented answers conditional PUTs 501.
type objectServer struct {
	mu             sync.Mutex
	objs           map[string][]byte
	notImplemented bool
}

func etagOf(b []byte) string { return fmt.Sprintf(`"%x"`, md5.Sum(b)) }

func (o *objectServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fail := func(status int, code string) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>x</Message></Error>`, code)
	}
	cur, found := o.objs[r.URL.Path]
	switch r.Method {
	case http.MethodGet:
		if !found {
			fail(http.StatusNotFound, "NoSuchKey")
			return
		}
		w.Header().Set("ETag", etagOf(cur))
		_, _ = w.Write(cur)
	case http.MethodPut:
		inm, im := r.Header.Get("If-None-Match"), r.Header.Get("If-Match")
		if o.notImplemented && (inm != "" || im != "") {
			fail(http.StatusNotImplemented, "NotImplemented")
			return
		}
		if (inm == "*" && found) || (im != "" && (!found || im != etagOf(cur))) {
			fail(http.StatusPreconditionFailed, "PreconditionFailed")
			return
		}
		body, _ := io.ReadAll(r.Body)
		o.objs[r.URL.Path] = body
		w.Header().Set("ETag", etagOf(body))
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func openStateStore(t *testing.T, addr, state string) *Store {
	t.Helper()
	st, err := Open(context.Background(), addr, Options{PathStyle: true, State: state,
		Credentials: credentials.NewStaticCredentialsProvider("a", "b", "")})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Lease objects in a bucket: two Stores on one endpoint are two hosts,
// each judging expiry by its own wall clock (advanced here by hand).
func TestShardLeaseContractBucket(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) (filer.ShardLeaser, filer.ShardLeaser) {
			hs := httptest.NewServer(&objectServer{objs: map[string][]byte{}})
			t.Cleanup(hs.Close)
			addr := strings.TrimPrefix(hs.URL, "http://")
			a, b := openStateStore(t, addr, "s3://state/ilmctl"), openStateStore(t, addr, "s3://state/ilmctl")
			a.wall = func() time.Time { return now }
			b.wall = func() time.Time { return now }
			return a, b
		},
		Expire: func(*testing.T) { now = now.Add(2 * time.Minute) },
	})
}

// Lock files in a state directory: two Stores on one directory are two
// passes of one host. A flock outlives no process, so there is no expiry
// to advance.
func TestShardLeaseContractDir(t *testing.T) {
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) (filer.ShardLeaser, filer.ShardLeaser) {
			dir := t.TempDir()
			return openStateStore(t, "127.0.0.1:1", dir), openStateStore(t, "127.0.0.1:1", dir)
		},
	})
}

// A server that does not implement conditional PUT gets no lease: the
// shard is refused with ErrNoConditionalWrite rather than run unguarded.
func TestShardLeaseRefusedWithoutConditionalPut(t *testing.T) {
	hs := httptest.NewServer(&objectServer{objs: map[string][]byte{}, notImplemented: true})
	defer hs.Close()
	st := openStateStore(t, strings.TrimPrefix(hs.URL, "http://"), "s3://state/ilmctl")
	_, err := st.AcquireShardLease(context.Background(), 0, "host-a", time.Minute)
	if !errors.Is(err, ErrNoConditionalWrite) || !strings.Contains(err.Error(), "--state DIR") {
		t.Fatalf("AcquireShardLease: %v, want ErrNoConditionalWrite saying what to do", err)
	}
}
