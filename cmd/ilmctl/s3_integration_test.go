//go:build integration

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/internal/itest"
)

// --check-cas on the server under test, through the real command line: on
// MinIO, which ignores If-Match on DeleteObject, it exits 1 with the
// documented message and runs no pass; on SeaweedFS, which honours it, the
// pass runs with no conditional_delete_unproven warning. Without the flag
// either server's pass warns once and reports the notice in JSON.
func TestCheckCASOnServer(t *testing.T) {
	endpoint, access, secret := itest.S3Env(t)
	server := itest.ServerEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	base := []string{"run", "--filer", "s3://" + endpoint, "--s3-path-style", "--state", t.TempDir(), "-runtime", "2m", "-o", "json"}
	const warning = "ilmctl: warning: conditional_delete_unproven: "

	t.Run("--check-cas", func(t *testing.T) {
		stdout, stderr, code := execute(t, append(base, "--check-cas")...)
		switch server {
		case itest.MinIO:
			want := "ilmctl: --check-cas: http://" + endpoint + ": server ignores If-Match on DeleteObject: identity-checked deletes are not guaranteed (a DeleteObject with a wrong If-Match deleted the object)"
			if code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr, want)
			}
			if stdout != "" {
				t.Errorf("a pass ran after the refusal: %s", stdout)
			}
		default:
			if code != 0 || strings.Contains(stderr, warning) || !strings.Contains(stderr, "honours If-Match on DeleteObject, with and without VersionId") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 0, the probe's finding and no %q", code, stderr, warning)
			}
			if n := unprovenNotices(t, stdout); n != 0 {
				t.Errorf("%d conditional_delete_unproven notices after --check-cas proved If-Match", n)
			}
		}
	})
	t.Run("without --check-cas", func(t *testing.T) {
		stdout, stderr, code := execute(t, base...)
		if code != 0 {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
		if n := strings.Count(stderr, warning); n != 1 || !strings.Contains(stderr, warning+"s3://"+endpoint) {
			t.Errorf("stderr holds %d warnings, want one naming s3://%s:\n%s", n, endpoint, stderr)
		}
		if n := unprovenNotices(t, stdout); n != 1 {
			t.Errorf("%d conditional_delete_unproven notices in JSON, want 1", n)
		}
	})
	t.Run("dry run", func(t *testing.T) {
		stdout, stderr, code := execute(t, append(base, "--dry-run")...)
		if code != 0 || strings.Contains(stderr, warning) || unprovenNotices(t, stdout) != 0 {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and no warning: a dry run deletes nothing", code, stderr)
		}
	})
}

func unprovenNotices(t *testing.T, stdout string) int {
	t.Helper()
	var rep struct {
		Notices []struct {
			Kind string `json:"kind"`
		} `json:"notices"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decode the JSON report: %v\n%s", err, stdout)
	}
	n := 0
	for _, x := range rep.Notices {
		if x.Kind == "conditional_delete_unproven" {
			n++
		}
	}
	return n
}
