package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// TestLoadFixtureErrorPlace: filer load reports a bad fixture in one line
// that names the file, the bucket, key and version, and the byte offset.
func TestLoadFixtureErrorPlace(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, at, want string
	}{
		{"bad mtime",
			`{"buckets":[{"name":"logs","versioning":"Enabled","objects":[{"key":"app/x","versions":[{"version_id":"v1","mtime":"2026-13-01T00:00:00Z"}]}]}]}`,
			`"2026-13`, `bucket logs, key app/x: version v1: mtime "2026-13-01T00:00:00Z": month out of range`},
		{"unknown field",
			`{"buckets":[{"name":"logs","colour":"red"}]}`,
			`"colour"`, `bucket logs: unknown field "colour": want one of name, versioning, object_lock, lifecycle_xml, objects, uploads`},
		{"cut short",
			`{"buckets":[{"name":"logs","versioning":"Enabled","objects":[{"key":"app/x","versions":[`,
			"", `bucket logs, key app/x: unexpected EOF: the document is cut short`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fixture.json")
			if err := os.WriteFile(path, []byte(tc.fixture), 0o600); err != nil {
				t.Fatal(err)
			}
			off := len(tc.fixture)
			if tc.at != "" {
				off = strings.Index(tc.fixture, tc.at)
			}
			_, stderr, code := execute(t, "filer", "load", path, "--filer", filepath.Join(t.TempDir(), "d"))
			want := fmt.Sprintf("ilmctl: %s: %s (byte %d)\n", path, tc.want, off)
			if code != cmdutil.ExitFailure || stderr != want {
				t.Errorf("exit %d, stderr %q\nwant exit 1, %q", code, stderr, want)
			}
		})
	}
}
