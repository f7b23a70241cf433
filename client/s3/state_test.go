//go:build !windows

package s3

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/ilmctl/ilmctl/internal/atomicfile/atomicfiletest"
)

const cursorPath = "/etc/s3/lifecycle/daily-cursors/shard-00.json"

// TestDirStateWrite: a cursor in a local --state directory is created
// 0600 (less the umask), a rewrite keeps the mode the operator gave it,
// and no temporary file is left beside it. Before atomicfile the rewrite
// reset an operator's 0640 to 0600.
func TestDirStateWrite(t *testing.T) {
	cases := []struct {
		name     string
		existing fs.FileMode // 0: no cursor yet
	}{
		{"new cursor", 0},
		{"rewrite keeps 0600", 0o600},
		{"rewrite keeps the operator's 0640", 0o640},
		{"rewrite keeps the operator's 0644", 0o644},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			st, err := openState(root, nil)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(root, filepath.FromSlash(cursorPath))
			want := tc.existing
			if tc.existing != 0 {
				if err := st.write(ctx, cursorPath, []byte(`{"old":true}`)); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(file, tc.existing); err != nil {
					t.Fatal(err)
				}
			} else {
				ref := filepath.Join(t.TempDir(), "ref") // os.WriteFile's mode under this umask
				if err := os.WriteFile(ref, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(ref)
				if err != nil {
					t.Fatal(err)
				}
				want = fi.Mode().Perm()
			}
			if err := st.write(ctx, cursorPath, []byte(`{"new":true}`)); err != nil {
				t.Fatal(err)
			}
			if got, err := st.read(ctx, cursorPath); err != nil || string(got) != `{"new":true}` {
				t.Errorf("read = %q, %v", got, err)
			}
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), want)
			}
			es, err := os.ReadDir(filepath.Dir(file))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range es {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{"shard-00.json"}) {
				t.Errorf("cursor directory holds %v, want only shard-00.json", names)
			}
		})
	}
}

// TestDirStateNeverPartial: a pass reading a cursor while another rewrites
// it sees one whole cursor or the other, never a partial file.
func TestDirStateNeverPartial(t *testing.T) {
	ctx := context.Background()
	st, err := openState(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	atomicfiletest.NeverPartial(t,
		func() ([]byte, error) { return st.read(ctx, cursorPath) },
		func(data []byte) error { return st.write(ctx, cursorPath, data) })
}

// condPutServer answers a cursor PUT by its conditional headers: status
// for one carrying If-None-Match or If-Match (200 stores it), 200 for one
// carrying neither. It records every PUT as "<conditional header>" or
// "plain".
type condPutServer struct {
	status int
	mu     sync.Mutex
	puts   []string
}

func (c *condPutServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Method != http.MethodPut {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	kind := "plain"
	switch {
	case r.Header.Get("If-None-Match") != "":
		kind = "If-None-Match"
	case r.Header.Get("If-Match") != "":
		kind = "If-Match"
	}
	c.puts = append(c.puts, kind)
	if kind != "plain" && c.status != http.StatusOK {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(c.status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>x</Message></Error>`, map[int]string{501: "NotImplemented", 412: "PreconditionFailed"}[c.status])
		return
	}
	w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
}

// TestBucketStateConditionalWrite: a cursor in s3://bucket/prefix is only
// ever written with If-None-Match or If-Match. A server that does not
// implement them (501) gets no unconditional PUT instead: the save fails
// with ErrNoConditionalWrite and says to keep cursors in a directory.
func TestBucketStateConditionalWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		want   error
	}{
		{"honoured", http.StatusOK, nil},
		{"lost the race", http.StatusPreconditionFailed, ErrStateConflict},
		{"not implemented", http.StatusNotImplemented, ErrNoConditionalWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &condPutServer{status: tc.status}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			st, err := Open(context.Background(), strings.TrimPrefix(hs.URL, "http://"), Options{
				PathStyle: true, State: "s3://state/cursors",
				Credentials: credentials.NewStaticCredentialsProvider("a", "b", ""),
			})
			if err != nil {
				t.Fatal(err)
			}
			err = st.WriteFile(context.Background(), cursorPath, []byte("{}\n"))
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("WriteFile: %v, want %v", err, tc.want)
			}
			if tc.want == ErrNoConditionalWrite && !strings.Contains(err.Error(), "--state DIR") {
				t.Errorf("error %q does not say what the operator does instead", err)
			}
			if !slices.Equal(srv.puts, []string{"If-None-Match"}) {
				t.Errorf("PUTs sent %v, want exactly one with If-None-Match", srv.puts)
			}
		})
	}
}
