package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// TestS3NoCredentialsOneLine: with no credentials anywhere, an s3:// filer
// fails with ilmctl's own line and nothing else, not with the AWS SDK's
// log lines (its default logger writes "SDK ... WARN falling back to
// IMDSv1" to the process's stderr when the instance metadata service
// refuses a token, as this stand-in does).
func TestS3NoCredentialsOneLine(t *testing.T) {
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer imds.Close()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "",
		"AWS_PROFILE": "", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_EC2_METADATA_DISABLED": "",
		"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL,
	} {
		t.Setenv(k, v)
	}
	// The SDK's default logger takes os.Stderr when the configuration
	// is loaded: catch what it would print.
	procErr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = procErr
	_, stderr, code := execute(t, "filer", "ls", "--filer", "s3://127.0.0.1:1")
	os.Stderr = saved
	procErr.Close()
	leaked, err := os.ReadFile(procErr.Name())
	if err != nil {
		t.Fatal(err)
	}
	if code != cmdutil.ExitFailure || !strings.HasPrefix(stderr, "ilmctl: no S3 credentials: set AWS_ACCESS_KEY_ID") ||
		strings.Count(stderr, "\n") != 1 || len(leaked) > 0 {
		t.Errorf("exit %d, stderr %q, SDK wrote %q to the process's stderr; want exit 1 and ilmctl's one line only", code, stderr, leaked)
	}
}
