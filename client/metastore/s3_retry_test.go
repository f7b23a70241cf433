package metastore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	core "github.com/ilmctl/ilmctl/core/metastore"
)

// s3Answers is an S3 endpoint on loopback that answers each conditional
// write (PUT, DELETE) with the next status of answers (the last one
// repeats) and every HEAD with 200, and counts the requests by method.
// The conditional-delete probe under ProbePrefix is answered apart, as a
// server that honours If-Match does, and not counted.
type s3Answers struct {
	mu      sync.Mutex
	answers []int
	count   map[string]int
	probe   bool // the probe object exists
}

func (a *s3Answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if strings.Contains(r.URL.Path, "/"+clientmeta.ProbePrefix) {
		a.mu.Lock()
		defer a.mu.Unlock()
		switch {
		case r.Method == http.MethodPut:
			a.probe = true
			w.Header().Set("ETag", `"probe"`)
		case r.Method == http.MethodHead && a.probe:
			w.Header().Set("ETag", `"probe"`)
		case r.Method == http.MethodHead:
			w.WriteHeader(http.StatusNotFound)
		case r.Header.Get("If-Match") == `"probe"` || r.Header.Get("If-Match") == "":
			a.probe = false
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusPreconditionFailed)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>PreconditionFailed</Message></Error>`)
		}
		return
	}
	a.mu.Lock()
	n := a.count[r.Method]
	a.count[r.Method]++
	a.mu.Unlock()
	if r.Method == http.MethodHead {
		w.Header().Set("ETag", `"other"`)
		return
	}
	status := a.answers[min(n, len(a.answers)-1)]
	code := map[int]string{http.StatusPreconditionFailed: "PreconditionFailed",
		http.StatusInternalServerError: "InternalError", http.StatusServiceUnavailable: "SlowDown"}[status]
	switch {
	case code != "":
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, code)
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("ETag", `"new"`)
	}
}

// openLoopback opens the pool s3://<srv>/pool exactly as `--meta` does,
// with static credentials and no shared config files in the environment.
func openLoopback(t *testing.T, srv *httptest.Server) *clientmeta.S3 {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "ilmctl", "AWS_SECRET_ACCESS_KEY": "ilmctl-secret", "AWS_REGION": "us-east-1",
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_PROFILE": "", "AWS_MAX_ATTEMPTS": "", "AWS_RETRY_MODE": "", "ILMCTL_S3_HTTPS": "",
	} {
		t.Setenv(k, v)
		if v == "" {
			if err := os.Unsetenv(k); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err := clientmeta.OpenS3(t.Context(), "s3://"+srv.Listener.Addr().String()+"/pool")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestS3ConditionalWritesAreOneRequest: each conditional write of an
// s3:// pool is one request whatever the server answers, so a write whose
// answer was lost is never resent into a conflict with itself; 412 is
// resolved by one HEAD, as the store contract says.
func TestS3ConditionalWritesAreOneRequest(t *testing.T) {
	ops := []struct {
		name, method string
		// conflict is what a 412 means for this write.
		conflict error
		write    func(context.Context, *clientmeta.S3) error
	}{
		{"PutIfAbsent", http.MethodPut, core.ErrExists, func(ctx context.Context, s *clientmeta.S3) error {
			_, err := s.PutIfAbsent(ctx, "k", []byte("v"))
			return err
		}},
		{"PutIfMatch", http.MethodPut, core.ErrPreconditionFailed, func(ctx context.Context, s *clientmeta.S3) error {
			_, err := s.PutIfMatch(ctx, "k", []byte("v"), "old")
			return err
		}},
		{"DeleteIfMatch", http.MethodDelete, core.ErrPreconditionFailed, func(ctx context.Context, s *clientmeta.S3) error {
			return s.DeleteIfMatch(ctx, "k", "old")
		}},
	}
	for _, tc := range []struct {
		name    string
		answers []int
		// ok: the write succeeds; conflict: it fails with the op's
		// conflict error; else it fails with none of the contract's three.
		ok, conflict bool
	}{
		{name: "200", answers: []int{http.StatusOK}, ok: true},
		{name: "412", answers: []int{http.StatusPreconditionFailed}, conflict: true},
		{name: "500", answers: []int{http.StatusInternalServerError}},
		{name: "503 SlowDown", answers: []int{http.StatusServiceUnavailable}},
		// The write was applied and its answer lost: a resend would be
		// refused by the write's own result, a false conflict.
		{name: "500 then 412", answers: []int{http.StatusInternalServerError, http.StatusPreconditionFailed}},
	} {
		for _, op := range ops {
			t.Run(tc.name+"/"+op.name, func(t *testing.T) {
				srv := &s3Answers{answers: tc.answers, count: map[string]int{}}
				ts := httptest.NewServer(srv)
				defer ts.Close()
				err := op.write(t.Context(), openLoopback(t, ts))
				wantHeads := 0
				switch {
				case tc.ok:
					if err != nil {
						t.Fatalf("err = %v, want success", err)
					}
				case tc.conflict:
					if !errors.Is(err, op.conflict) {
						t.Fatalf("err = %v, want %v", err, op.conflict)
					}
					if op.conflict == core.ErrPreconditionFailed {
						wantHeads = 1 // a 412 on If-Match asks whether the key exists
					}
				default:
					for _, e := range []error{core.ErrExists, core.ErrPreconditionFailed, core.ErrNotFound} {
						if errors.Is(err, e) {
							t.Fatalf("err = %v: a failed request reported as %v", err, e)
						}
					}
					if err == nil {
						t.Fatal("err = nil, want the server's error")
					}
				}
				if got := srv.count[op.method]; got != 1 {
					t.Errorf("%d %s requests for one %s, want 1", got, op.method, op.name)
				}
				if got := srv.count[http.MethodHead]; got != wantHeads {
					t.Errorf("%d HEAD requests, want %d", got, wantHeads)
				}
			})
		}
	}
}
