package s3

import (
	"os"
	"path/filepath"
	"testing"
)

// The no-credentials error carries the SDK chain's detail only when
// something was set up for the chain to read: otherwise the detail (down
// to the instance-metadata probe) says only that nothing was.
func TestCredentialsConfigured(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		file string // created under HOME/.aws
		want bool
	}{
		{"nothing", nil, "", false},
		{"a profile", map[string]string{"AWS_PROFILE": "ops"}, "", true},
		{"keys", map[string]string{"AWS_ACCESS_KEY_ID": "k"}, "", true},
		{"a credentials file", nil, "credentials", true},
		{"a config file", nil, "config", true},
		{"a credentials file named that is not there", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
				t.Setenv(v, "")
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.file != "" {
				if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, ".aws", tc.file), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got := credentialsConfigured(); got != tc.want {
				t.Fatalf("credentialsConfigured() = %v, want %v", got, tc.want)
			}
		})
	}
}
