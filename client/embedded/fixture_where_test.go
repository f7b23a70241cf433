package embedded

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFixtureErrorPlaces: every fault in a fixture names the bucket, the
// object or upload and the version it is in, and its byte offset: the bad
// value or character where the decoder names one (at is the text found
// there), the start of the innermost value otherwise, the end of a
// document cut short.
func TestFixtureErrorPlaces(t *testing.T) {
	const head = `{"buckets":[{"name":"logs","versioning":"Enabled","objects":[`
	obj := func(versions string) string {
		return head + `{"key":"app/x","versions":[` + versions + `]}]}]}`
	}
	const versionFields = "one of version_id, mtime, size, etag, tags, delete_marker, retain_until, legal_hold, internal_metadata"
	for _, tc := range []struct {
		name, fixture string
		at            string // the text the offset points at; "" for the end
		want          string // the message, before " (byte N)"
	}{
		{"month out of range", obj(`{"version_id":"v1","mtime":"2026-13-01T00:00:00Z"}`), `"2026-13`,
			`bucket logs, key app/x: version v1: mtime "2026-13-01T00:00:00Z": month out of range`},
		{"not a time", obj(`{"version_id":"v1","mtime":"2026-01-01T00:00:00Z"},{"mtime":"soon"}`), `"soon"`,
			`bucket logs, key app/x: versions[1]: mtime "soon": want an RFC3339 time, e.g. 2026-01-01T00:00:00Z`},
		{"unknown version field", obj(`{"version_id":"v1","mtime":"2026-01-01T00:00:00Z","colour":"red"}`), `"colour"`,
			`bucket logs, key app/x: version v1: unknown field "colour": want ` + versionFields},
		{"wrong type", obj(`{"version_id":"v1","mtime":"2026-01-01T00:00:00Z","size":"12"}`), `"12"`,
			`bucket logs, key app/x: version v1: size: want a whole number, got a JSON string`},
		{"unknown object field", head + `{"key":"app/x","vers":[]}]}]}`, `"vers"`,
			`bucket logs, key app/x: unknown field "vers": want one of key, versions`},
		{"bad JSON", obj(`{"version_id":"v1",,"mtime":"2026-01-01T00:00:00Z"}`), `,"mtime"`,
			`bucket logs, key app/x: bad JSON: invalid character ',' looking for beginning of object key string`},
		{"cut short in an object", head + `{"key":"app/x","versions":[{"version_id":"v1","mt`, "",
			`bucket logs, key app/x: unexpected EOF: the document is cut short`},
		{"cut short between buckets", `{"buckets":[{"name":"logs"},`, "",
			`buckets[1]: unexpected EOF: the document is cut short`},
		{"a bad character at the end", `{"buckets":[{"name":"logs"},x`, "x",
			`buckets[1]: invalid character 'x' looking for beginning of value`},
		{"validation names the version", obj(`{"version_id":"v1","mtime":"2026-01-01T00:00:00Z"},{"version_id":"v2","mtime":"2026-01-01T00:00:00Z"}`), `{"version_id":"v2"`,
			`bucket logs, key app/x: version v2: mtime 2026-01-01T00:00:00Z is not after the previous version's 2026-01-01T00:00:00Z: list versions oldest first with strictly increasing mtimes`},
		{"held bucket", `{"buckets":[{"objects":[{"key":"app/x","versions":[{"version_id":"v1","mtime":"2026-13-01T00:00:00Z"}]}],"name":"logs"}]}`, `"2026-13`,
			`buckets[0], key app/x: version v1: mtime "2026-13-01T00:00:00Z": month out of range`},
		{"bad versioning", `{"buckets":[{"name":"logs","versioning":"on"}]}`, `"on"`,
			`bucket logs: versioning "on": use "Enabled", "Suspended" or "Off"`},
		{"name of the wrong type", `{"buckets":[{"name":7}]}`, `7`,
			`buckets[0]: name: want a string, got a JSON number`},
		{"upload", `{"buckets":[{"name":"logs","uploads":[{"upload_id":"u1","key":"big.bin","initiated":"2026-02-30T00:00:00Z"}]}]}`, `"2026-02-30`,
			`bucket logs, upload u1 of key big.bin: initiated "2026-02-30T00:00:00Z": day out of range`},
		{"trailing data", `{"buckets":[]} {}`, `{}`,
			`trailing data after the top-level object: a fixture is one JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := openTest(t, Options{})
			_, err := f.LoadFixture(context.Background(), strings.NewReader(tc.fixture))
			off := len(tc.fixture)
			if tc.at != "" {
				off = strings.Index(tc.fixture, tc.at)
			}
			want := fmt.Sprintf("%s (byte %d)", tc.want, off)
			var fe *FixtureError
			if !errors.As(err, &fe) || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
			assertEmpty(t, f)
		})
	}
}
