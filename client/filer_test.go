package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/internal/hint"
)

func TestOpenSpecs(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	tests := []struct {
		name    string
		spec    string
		opts    Options
		wantErr string
		// wantHint, when set, is the advice the error carries beside its
		// message (internal/hint).
		wantHint string
		wantDB   string // file that must exist after a successful open
	}{
		{name: "plain path", spec: filepath.Join(tmp, "a"), wantDB: filepath.Join(tmp, "a", "filer.db")},
		{name: "dir prefix", spec: "dir:" + filepath.Join(tmp, "b"), wantDB: filepath.Join(tmp, "b", "filer.db")},
		{name: "unknown scheme", spec: "gs://bucket", wantErr: `filer scheme "gs" not supported`,
			wantHint: "use seaweedfs://HOST:PORT, s3://HOST:PORT or a directory"},
		{name: "empty", spec: "", wantErr: "empty filer spec"},
		{name: "empty dir prefix", spec: "dir:", wantErr: "names no directory"},
		{name: "must exist", spec: filepath.Join(tmp, "c"), opts: Options{MustExist: true},
			wantErr: "no filer at " + filepath.Join(tmp, "c"), wantHint: "run 'ilmctl filer load FIXTURE.json --filer " + filepath.Join(tmp, "c") + "' first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Open(ctx, tc.spec, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if got := hint.All(err); tc.wantHint != "" && (len(got) != 1 || got[0] != tc.wantHint) {
					t.Errorf("hints = %q, want %q", got, tc.wantHint)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := os.Stat(tc.wantDB); err != nil {
				t.Errorf("no database: %v", err)
			}
		})
	}
	if _, err := Open(ctx, filepath.Join(tmp, "d"), Options{MustExist: true}); !errors.Is(err, ErrNoFiler) {
		t.Errorf("MustExist err = %v, want ErrNoFiler", err)
	}
}

func TestLoadFixtureThroughClient(t *testing.T) {
	ctx := context.Background()
	f, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := LoadFixture(ctx, f, strings.NewReader(`{"buckets":[{"name":"b"}]}`))
	if err != nil || sum.Buckets != 1 {
		t.Fatalf("LoadFixture = %+v, %v", sum, err)
	}
}

func TestLoadSpecs(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	tests := []struct {
		name, spec, wantErr string
		wantDB              string
	}{
		{name: "plain path", spec: filepath.Join(tmp, "a"), wantDB: filepath.Join(tmp, "a", "filer.db")},
		{name: "dir prefix", spec: "dir:" + filepath.Join(tmp, "b"), wantDB: filepath.Join(tmp, "b", "filer.db")},
		{name: "seaweedfs", spec: "seaweedfs://127.0.0.1:1", wantErr: "filer seaweedfs://127.0.0.1:1 cannot load fixtures: fixtures load into the embedded filer only (--filer DIR)"},
		{name: "s3", spec: "s3://127.0.0.1:1", wantErr: "filer s3://127.0.0.1:1 cannot load fixtures"},
		{name: "empty dir prefix", spec: "dir:", wantErr: "names no directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Load(ctx, tc.spec, strings.NewReader(`{"buckets":[{"name":"b"}]}`), LoadOptions{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !res.Created || res.Buckets != 1 {
				t.Fatalf("Load = %+v, %v", res, err)
			}
			if _, err := os.Stat(tc.wantDB); err != nil {
				t.Errorf("no database: %v", err)
			}
		})
	}
}

// TestCheckSpec: a remote spec without a host (and for seaweedfs:// a port)
// and an empty spec are ErrBadSpec, before anything is opened; well-formed
// specs pass whether or not anything is there.
func TestCheckSpec(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want string // "" = well-formed
		// hint, when set, is the advice the error carries (every
		// malformed spec carries one, printed on a line of its own).
		hint string
	}{
		{"seaweedfs://127.0.0.1:8888", "", ""},
		{"seaweedfs://filer.internal:8888", "", ""},
		{"seaweedfs://[::1]:8888", "", ""},
		{"s3://127.0.0.1:8333", "", ""},
		{"s3://s3.example.com", "", ""},
		{"./ilmctl-data", "", ""},
		{"dir:/srv/filer", "", ""},
		{"seaweedfs://", `--filer "seaweedfs://" names no SeaweedFS filer`, "use the filer's HTTP host:port, e.g. seaweedfs://127.0.0.1:8888"},
		{"seaweedfs://:8888", "names no SeaweedFS filer", ""},
		{"seaweedfs://127.0.0.1", "names no SeaweedFS filer", ""},
		{"seaweedfs://127.0.0.1:", "names no SeaweedFS filer", ""},
		{"seaweedfs://127.0.0.1:0", "names no SeaweedFS filer", ""},
		{"seaweedfs://127.0.0.1:70000", "names no SeaweedFS filer", ""},
		{"seaweedfs://127.0.0.1:http", "names no SeaweedFS filer", ""},
		{"s3://", `--filer "s3://" names no S3 endpoint`, "use the S3 endpoint's host:port, e.g. s3://127.0.0.1:8333"},
		{"s3://:8333", "names no S3 endpoint", ""},
		{"s3://127.0.0.1:", "names no S3 endpoint", ""},
		{"s3://bucket/prefix", "names no S3 endpoint", ""},
		{"", "empty filer spec", "use seaweedfs://HOST:PORT, s3://HOST:PORT or a directory"},
		{"dir:", `"dir:" names no directory`, "pass --filer dir:PATH"},
		{"gs://bucket", `filer scheme "gs" not supported`, ""},
	} {
		err := CheckSpec(tc.spec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckSpec(%q) = %v, want well-formed", tc.spec, err)
		case tc.want != "" && (!errors.Is(err, ErrBadSpec) || !strings.Contains(fmt.Sprint(err), tc.want)):
			t.Errorf("CheckSpec(%q) = %v, want ErrBadSpec with %q", tc.spec, err, tc.want)
		}
		if got := hint.All(err); tc.want != "" && (len(got) != 1 || tc.hint != "" && got[0] != tc.hint) {
			t.Errorf("CheckSpec(%q) hints = %q, want one hint %q", tc.spec, got, tc.hint)
		}
		if tc.want != "" {
			if f, err := Open(context.Background(), tc.spec, Options{}); !errors.Is(err, ErrBadSpec) {
				if f != nil {
					f.Close()
				}
				t.Errorf("Open(%q) = %v, want ErrBadSpec", tc.spec, err)
			}
		}
	}
}
