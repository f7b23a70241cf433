package metastore

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	core "github.com/ilmctl/ilmctl/core/metastore"
)

// deleteMode is what a loopback S3 server does with If-Match on DELETE.
type deleteMode int

const (
	honours      deleteMode = iota // 412 on a wrong ETag, deletes on the right one (AWS, SeaweedFS)
	ignores                        // deletes whatever If-Match says (MinIO)
	rejects                        // 501 NotImplemented for any DELETE with If-Match
	refusesMatch                   // 412 even on the matching ETag
	deniesPut                      // 403 AccessDenied on every PUT
)

// condServer is a loopback S3 server, one bucket: PUT (If-None-Match: *,
// If-Match), GET, HEAD, ListObjectsV2 and DELETE with If-Match as mode
// says. It records every request as "METHOD key".
type condServer struct {
	mode deleteMode
	mu   sync.Mutex
	objs map[string][]byte
	log  []string
}

func etagOfBody(b []byte) string {
	s := md5.Sum(b)
	return `"` + hex.EncodeToString(s[:]) + `"`
}

func (c *condServer) fail(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, code)
}

func (c *condServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/bucket"), "/")
	c.log = append(c.log, r.Method+" "+key)
	cur, present := c.objs[key]
	switch {
	case r.Method == http.MethodGet && key == "" && r.URL.Query().Get("list-type") == "2":
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>bucket</Name><IsTruncated>false</IsTruncated>`)
		for k, v := range c.objs {
			if strings.HasPrefix(k, r.URL.Query().Get("prefix")) {
				fmt.Fprintf(&b, `<Contents><Key>%s</Key><ETag>%s</ETag><Size>%d</Size><LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents>`, k, etagOfBody(v), len(v))
			}
		}
		b.WriteString(`</ListBucketResult>`)
		w.Header().Set("Content-Type", "application/xml")
		_, _ = io.WriteString(w, b.String())
	case r.Method == http.MethodPut:
		if c.mode == deniesPut {
			c.fail(w, 403, "AccessDenied")
			return
		}
		body, err := readBody(r)
		if err != nil {
			c.fail(w, 400, "IncompleteBody")
			return
		}
		if r.Header.Get("If-None-Match") == "*" && present || r.Header.Get("If-Match") != "" && (!present || r.Header.Get("If-Match") != etagOfBody(cur)) {
			c.fail(w, 412, "PreconditionFailed")
			return
		}
		c.objs[key] = body
		w.Header().Set("ETag", etagOfBody(body))
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && !present:
		c.fail(w, 404, "NoSuchKey")
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		w.Header().Set("ETag", etagOfBody(cur))
		w.Header().Set("Content-Length", strconv.Itoa(len(cur)))
		if r.Method == http.MethodGet {
			_, _ = w.Write(cur)
		}
	case r.Method == http.MethodDelete:
		im := r.Header.Get("If-Match")
		switch {
		case im == "" || c.mode == ignores:
		case c.mode == rejects:
			c.fail(w, 501, "NotImplemented")
			return
		case c.mode == refusesMatch || !present || im != etagOfBody(cur):
			c.fail(w, 412, "PreconditionFailed")
			return
		}
		delete(c.objs, key)
		w.WriteHeader(http.StatusNoContent)
	default:
		c.fail(w, 405, "MethodNotAllowed")
	}
}

// readBody returns a PUT's payload, decoding the SDK's aws-chunked
// encoding (size;ext CRLF data CRLF ... 0 CRLF trailers CRLF) when used.
func readBody(r *http.Request) ([]byte, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil || !strings.Contains(r.Header.Get("Content-Encoding"), "aws-chunked") {
		return raw, err
	}
	var out bytes.Buffer
	br := bufio.NewReader(bytes.NewReader(raw))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(line, ";", 2)[0]), 16, 64)
		if err != nil {
			return nil, err
		}
		if size == 0 {
			return out.Bytes(), nil
		}
		if _, err := io.CopyN(&out, br, size); err != nil {
			return nil, err
		}
		if _, err := br.ReadString('\n'); err != nil {
			return nil, err
		}
	}
}

// requests counts the requests of method the server saw for keys under
// keyPrefix.
func (c *condServer) requests(method, keyPrefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.log {
		if strings.HasPrefix(l, method+" "+keyPrefix) {
			n++
		}
	}
	return n
}

// openCond starts a loopback server in mode holding one record and opens
// the s3:// pool s3://<server>/bucket/pool at a clock the test moves.
func openCond(t *testing.T, mode deleteMode) (*condServer, *S3, *time.Time) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDPROBE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("ILMCTL_S3_HTTPS", "")
	srv := &condServer{mode: mode, objs: map[string][]byte{"pool/" + probeRecord: []byte(`{"v":1}`)}}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	s, err := OpenS3(t.Context(), "s3://"+strings.TrimPrefix(hs.URL, "http://")+"/bucket/pool")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	return srv, s, &now
}

const probeRecord = "ilm/recovery-exports/tier_delete_journal/41/0d/x.json"

// TestDeleteIfMatchRefusedUnlessConditional: DeleteIfMatch on an s3://
// pool deletes only after the server has shown, on a probe object in the
// pool's temporaries, that a wrong If-Match keeps the object and the
// right one removes it. Any other server is refused with
// ErrConditionalDeleteUnsupported (or, when the probe cannot even be
// written, another error), the record is left as it was, no DELETE
// reaches it, and no probe object is left behind.
func TestDeleteIfMatchRefusedUnlessConditional(t *testing.T) {
	cases := []struct {
		name        string
		mode        deleteMode
		unsupported bool   // the error wraps ErrConditionalDeleteUnsupported
		wantErr     string // "" = the delete proceeds
	}{
		{"server honours If-Match", honours, false, ""},
		{"server ignores If-Match (MinIO)", ignores, true, "a DELETE of the probe .ilmctl-tmp/delete-probe-"},
		{"server rejects If-Match with 501", rejects, true, "want 412 PreconditionFailed"},
		{"server refuses the matching If-Match", refusesMatch, true, "with the matching If-Match"},
		{"probe cannot be written", deniesPut, false, "conditional-delete probe: write .ilmctl-tmp/delete-probe-"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, s, _ := openCond(t, tc.mode)
			_, etag, err := s.Get(t.Context(), probeRecord)
			if err != nil {
				t.Fatal(err)
			}
			err = s.DeleteIfMatch(t.Context(), probeRecord, etag)
			_, _, gerr := s.Get(t.Context(), probeRecord)
			if tc.wantErr == "" {
				if err != nil || !errors.Is(gerr, core.ErrNotFound) {
					t.Fatalf("DeleteIfMatch = %v, then Get = %v; want deleted", err, gerr)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, core.ErrConditionalDeleteUnsupported) != tc.unsupported {
					t.Fatalf("DeleteIfMatch = %v; want an error containing %q (unsupported %v)", err, tc.wantErr, tc.unsupported)
				}
				if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), s.Name()+": ") {
					t.Fatalf("error %q: want one line naming the pool", err)
				}
				if gerr != nil {
					t.Fatalf("after a refused DeleteIfMatch the record is gone: %v", gerr)
				}
				if n := srv.requests(http.MethodDelete, "pool/ilm/"); n != 0 {
					t.Fatalf("%d DELETE requests reached the record", n)
				}
			}
			if tc.unsupported && !strings.Contains(err.Error(), "ilmctl deletes nothing in this pool: keep it on a server that honours If-Match") {
				t.Fatalf("error %q does not name the fix", err)
			}
			for k := range srv.objs {
				if strings.Contains(k, TempDir) {
					t.Fatalf("probe %s left behind", k)
				}
			}
		})
	}
}

// TestProbeTrustedForTTL: a probe that passed is trusted by the same S3
// value for ProbeTTL by its clock and asked again after; a refusal is
// never cached.
func TestProbeTrustedForTTL(t *testing.T) {
	srv, s, now := openCond(t, honours)
	probes := func() int { return srv.requests(http.MethodPut, "pool/"+ProbePrefix) }
	steps := []struct {
		advance time.Duration
		want    int // probes written so far
	}{{0, 1}, {ProbeTTL - time.Second, 1}, {time.Second, 2}, {-time.Hour, 3}}
	for i, st := range steps {
		*now = now.Add(st.advance)
		if err := s.CheckConditionalDelete(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := probes(); got != st.want {
			t.Fatalf("step %d (+%v): %d probes, want %d", i, st.advance, got, st.want)
		}
	}
	srv.mu.Lock()
	srv.mode = ignores
	srv.mu.Unlock()
	*now = now.Add(ProbeTTL)
	for range 2 {
		if err := s.CheckConditionalDelete(t.Context()); !errors.Is(err, core.ErrConditionalDeleteUnsupported) {
			t.Fatalf("after the server changed: %v, want ErrConditionalDeleteUnsupported", err)
		}
	}
	if got := probes(); got != 5 {
		t.Fatalf("%d probes, want 5: a refusal is asked again", got)
	}
}

// TestListSkipsTemporaries: a probe a killed process left in the pool's
// temporaries is not listed, as the dir: store does not list its own.
func TestListSkipsTemporaries(t *testing.T) {
	srv, s, _ := openCond(t, honours)
	srv.objs["pool/"+ProbePrefix+"0011223344556677"] = []byte(probeBody)
	p, err := s.List(t.Context(), "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Objects) != 1 || p.Objects[0].Key != probeRecord {
		t.Fatalf("List = %+v, want only %s", p.Objects, probeRecord)
	}
}
