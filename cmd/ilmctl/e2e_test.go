package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

// execute runs the root command as main does, returning stdout, stderr and
// the exit code.
func execute(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRootCommand()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(normalizeSingleDashFlags(root, args))
	code := report(&errb, root.ExecuteContext(context.Background()))
	return out.String(), errb.String(), code
}

const lc = `<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`

// e2eFixture covers each action kind, filter and versioning state; the
// comments give each object's fate at 2026-11-30T00:00:00Z.
var e2eFixture = map[string]any{"buckets": []any{
	map[string]any{"name": "ver", "versioning": "Enabled", "lifecycle_xml": lc +
		`<Rule><ID>exp</ID><Filter><Prefix>exp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>` +
		`<Rule><ID>nc</ID><Filter><Prefix>nc/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>2</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>nnv</ID><Filter><Prefix>keep/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>edm</ID><Filter><Prefix>dm/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>` +
		`<Rule><ID>tag</ID><Filter><Tag><Key>env</Key><Value>dev</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
		`<Rule><ID>size</ID><Filter><And><Prefix>size/</Prefix><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan></And></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
		`<Rule><ID>mpu</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>` +
		`<Rule><ID>off</ID><Filter><Prefix>nc/</Prefix></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
		`</LifecycleConfiguration>`,
		"objects": []any{
			obj("exp/a", ver("v1", "2026-11-26T10:30:00Z", 10)),                                       // due 11-30T00:00: delete marker
			obj("exp/b", ver("v1", "2026-11-27T00:00:00Z", 10)),                                       // due 12-01: stays
			obj("nc/x", ver("v1", "2026-11-01T00:00:00Z", 10), ver("v2", "2026-11-27T12:00:00Z", 10)), // v1 due 11-30: deleted
			obj("nc/y", ver("v1", "2026-11-01T00:00:00Z", 10), ver("v2", "2026-11-28T12:00:00Z", 10)), // v1 due 12-01: stays
			obj("keep/k", ver("v1", "2026-01-01T00:00:00Z", 1), ver("v2", "2026-02-01T00:00:00Z", 1),
				ver("v3", "2026-03-01T00:00:00Z", 1), ver("v4", "2026-04-01T00:00:00Z", 1)), // v1, v2 over the cap of 1
			obj("dm/lonely", dm("d1", "2026-10-01T00:00:00Z")),                                      // expired delete marker: removed
			obj("dm/other", ver("o1", "2026-10-01T00:00:00Z", 1), dm("d2", "2026-10-02T00:00:00Z")), // marker with a version: stays
			obj("tag/t1", tagged("t1", "2026-11-01T00:00:00Z", "dev")),                              // tag match: delete marker
			obj("tag/t2", tagged("t2", "2026-11-01T00:00:00Z", "prod")),                             // stays
			obj("size/big", ver("s1", "2026-11-01T00:00:00Z", 200)),                                 // > 100: delete marker
			obj("size/eq", ver("s2", "2026-11-01T00:00:00Z", 100)),                                  // strict: stays
		},
		"uploads": []any{
			map[string]any{"upload_id": "u-old", "key": "big.bin", "initiated": "2026-11-01T00:00:00Z"},
			map[string]any{"upload_id": "u-new", "key": "big.bin", "initiated": "2026-11-29T12:00:00Z"},
		}},
	map[string]any{"name": "susp", "versioning": "Suspended", "lifecycle_xml": lc +
		`<Rule><ID>e</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`,
		"objects": []any{obj("s/a", map[string]any{"version_id": nil, "mtime": "2026-11-01T00:00:00Z", "size": 5, "etag": "e"})}},
	map[string]any{"name": "flat", "lifecycle_xml": lc +
		`<Rule><ID>d</ID><Filter><Prefix>f/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2026-06-01T00:00:00Z</Date></Expiration></Rule></LifecycleConfiguration>`,
		"objects": []any{
			obj("f/a", map[string]any{"mtime": "2026-01-01T00:00:00Z", "size": 5, "etag": "e"}),
			obj("f/b", map[string]any{"mtime": "2026-07-01T00:00:00Z", "size": 5, "etag": "e"}),
			obj("g/c", map[string]any{"mtime": "2026-01-01T00:00:00Z", "size": 5, "etag": "e"}),
		}},
	map[string]any{"name": "lock", "versioning": "Enabled", "object_lock": true, "lifecycle_xml": lc +
		`<Rule><ID>n</ID><Filter></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule></LifecycleConfiguration>`,
		"objects": []any{
			obj("l/a", map[string]any{"version_id": "a1", "mtime": "2026-01-01T00:00:00Z", "size": 1, "etag": "e", "legal_hold": true}, ver("a2", "2026-02-01T00:00:00Z", 1)),
			obj("l/b", map[string]any{"version_id": "b1", "mtime": "2026-01-01T00:00:00Z", "size": 1, "etag": "e", "retain_until": "2026-12-31T00:00:00Z"}, ver("b2", "2026-02-01T00:00:00Z", 1)),
			obj("l/c", ver("c1", "2026-01-01T00:00:00Z", 1), ver("c2", "2026-02-01T00:00:00Z", 1)),
		}},
}}

func obj(key string, versions ...map[string]any) map[string]any {
	return map[string]any{"key": key, "versions": versions}
}
func ver(id, mtime string, size int) map[string]any {
	return map[string]any{"version_id": id, "mtime": mtime, "size": size, "etag": "etag-" + id}
}
func dm(id, mtime string) map[string]any {
	return map[string]any{"version_id": id, "mtime": mtime, "delete_marker": true}
}
func tagged(id, mtime, env string) map[string]any {
	v := ver(id, mtime, 10)
	v["tags"] = map[string]string{"env": env}
	return v
}

// remaining lists the filer's contents as bucket/key@version, with
// generated delete markers as @DM, and uploads as bucket/key#upload.
func remaining(t *testing.T, dir string) []string {
	t.Helper()
	out, stderr, code := execute(t, "filer", "ls", "--filer", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("filer ls: %s", stderr)
	}
	var ls struct {
		Versions []struct {
			Bucket, Key  string
			VersionID    string `json:"version_id"`
			DeleteMarker bool   `json:"delete_marker"`
		}
		Uploads []struct {
			Bucket, Key string
			UploadID    string `json:"upload_id"`
		}
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		t.Fatalf("filer ls json: %v\n%s", err, out)
	}
	var got []string
	for _, v := range ls.Versions {
		id := v.VersionID
		if v.DeleteMarker && strings.HasPrefix(id, "dm") || v.DeleteMarker && id == "null" {
			id = "DM"
		}
		got = append(got, v.Bucket+"/"+v.Key+"@"+id)
	}
	for _, u := range ls.Uploads {
		got = append(got, u.Bucket+"/"+u.Key+"#"+u.UploadID)
	}
	sort.Strings(got)
	return got
}

// loadFixture loads fixture (marshalled to JSON) into a fresh embedded
// filer with ilmctl filer load and returns its directory.
func loadFixture(t *testing.T, fixture any) string {
	t.Helper()
	dir, _ := loadFixtureStderr(t, fixture)
	return dir
}

func TestRunEndToEnd(t *testing.T) {
	dir := loadFixture(t, e2eFixture)

	stdout, stderr, code := execute(t, "run", "-runtime", "60m", "--filer", dir, "--now", "2026-11-30T00:00:00Z", "-o", "json")
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stderr, "daily_run: status=ok shards=16 errors=0 duration=") || strings.Count(stderr, "daily_run:") != 1 {
		t.Errorf("heartbeat = %q", stderr)
	}
	var rep struct {
		Status  string
		Actions []struct{ Bucket, Key, Kind, Outcome string }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("run -o json is not JSON: %v\n%s", err, stdout)
	}
	want := []string{
		"flat/g/c@null",
		"lock/l/a@a1", "lock/l/a@a2", "lock/l/b@b1", "lock/l/b@b2", "lock/l/c@c2",
		"susp/s/a@DM",
		"ver/big.bin#u-new",
		"ver/dm/other@d2", "ver/dm/other@o1",
		"ver/exp/a@DM", "ver/exp/a@v1",
		"ver/exp/b@v1",
		"ver/keep/k@v3", "ver/keep/k@v4",
		"ver/nc/x@v2",
		"ver/nc/y@v1", "ver/nc/y@v2",
		"ver/size/big@DM", "ver/size/big@s1",
		"ver/size/eq@s2",
		"ver/tag/t1@DM", "ver/tag/t1@t1",
		"ver/tag/t2@t2",
	}
	if diff := cmp.Diff(want, remaining(t, dir)); diff != "" {
		t.Fatalf("remaining after the first pass (-want +got):\n%s", diff)
	}
	locked := 0
	for _, a := range rep.Actions {
		if a.Outcome == "SKIPPED_OBJECT_LOCK" {
			locked++
		}
	}
	if locked != 2 {
		t.Errorf("SKIPPED_OBJECT_LOCK actions = %d, want 2 (legal hold, retention)", locked)
	}

	// A day later the replay picks up what came due at 2026-12-01.
	if _, stderr, code := execute(t, "run", "--runtime", "60m", "--filer", dir, "--now", "2026-12-01T00:00:00Z"); code != 0 {
		t.Fatalf("second run exit %d: %s", code, stderr)
	}
	got := remaining(t, dir)
	for _, gone := range []string{"ver/nc/y@v1"} {
		for _, g := range got {
			if g == gone {
				t.Errorf("%s still present after the second pass", gone)
			}
		}
	}
	if !contains(got, "ver/exp/b@DM") || !contains(got, "ver/exp/b@v1") {
		t.Errorf("exp/b not expired to a delete marker: %v", got)
	}

	// Once l/b's retention ends (2026-12-31) the walker deletes it, though
	// replay moved past its event when it was locked; the legal hold stays.
	if _, stderr, code := execute(t, "run", "--filer", dir, "--now", "2027-01-02T00:00:00Z"); code != 0 {
		t.Fatalf("third run exit %d: %s", code, stderr)
	}
	got = remaining(t, dir)
	if contains(got, "lock/l/b@b1") || !contains(got, "lock/l/a@a1") {
		t.Errorf("after retention ended: %v", got)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestRunDryRunChangesNothing(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	before := remaining(t, dir)
	stdout, stderr, code := execute(t, "run", "--dry-run", "--now", "2027-01-01T00:00:00Z", "--filer", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("dry run exit %d: %s", code, stderr)
	}
	var rep struct {
		DryRun  bool `json:"dry_run"`
		Actions []struct{ Outcome string }
		Shards  []struct {
			CursorSaved bool `json:"cursor_saved"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.DryRun || len(rep.Actions) == 0 {
		t.Fatalf("dry run report: %+v", rep)
	}
	for _, a := range rep.Actions {
		if a.Outcome != "DRY_RUN" {
			t.Errorf("outcome %s in a dry run", a.Outcome)
		}
	}
	for _, s := range rep.Shards {
		if s.CursorSaved {
			t.Error("a dry run saved a cursor")
		}
	}
	if diff := cmp.Diff(before, remaining(t, dir)); diff != "" {
		t.Fatalf("dry run changed the filer:\n%s", diff)
	}
	// Still cold: the dry run moved no cursor.
	_, stderr, _ = execute(t, "run", "--dry-run", "--now", "2027-01-01T00:00:00Z", "--filer", dir)
	if !strings.Contains(stderr, "cursor_lag_max=cold walked_max_age=cold") {
		t.Errorf("second dry run heartbeat %q", stderr)
	}
}

func TestRunUsageErrors(t *testing.T) {
	dir := loadFixture(t, e2eFixture)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "--filer", dir, "--shards", "3-1"}, cmdutil.ExitUsage, "backwards"},
		{[]string{"run", "--filer", dir, "--shards", "16"}, cmdutil.ExitUsage, "0-15"},
		{[]string{"run", "--filer", dir, "--now", "yesterday"}, cmdutil.ExitUsage, "RFC3339"},
		{[]string{"run", "--filer", dir, "--due-rounding", "up"}, cmdutil.ExitUsage, "aws or exact"},
		{[]string{"run", "--filer", dir, "--now", "2300-01-01T00:00:00Z"}, cmdutil.ExitUsage, "ilmctl: --now 2300-01-01T00:00:00Z is out of range\n" +
			"ilmctl: hint: use a time from 1970-01-01T00:00:00Z to 2262-04-11T23:47:16Z\n"},
		{[]string{"run", "--filer", dir, "--now", "0001-01-01T00:00:00Z"}, cmdutil.ExitUsage, "--now 0001-01-01T00:00:00Z is out of range"},
		{[]string{"run", "--filer", dir, "-o", "yaml"}, cmdutil.ExitUsage, "use table, wide, json or jsonl"},
		{[]string{"run", "--filer", dir, "-runtime", "0s"}, cmdutil.ExitUsage, "must be positive"},
		{[]string{"run", "--filer", dir, "--bogus"}, cmdutil.ExitUsage, "unknown flag"},
		{[]string{"run", "--filer", filepath.Join(t.TempDir(), "missing")}, cmdutil.ExitFailure, "filer load"},
		{[]string{"bogus"}, cmdutil.ExitUsage, `unknown command "bogus" for "ilmctl"`},
		{[]string{"filer", "bogus"}, cmdutil.ExitUsage, `unknown command "bogus" for "ilmctl filer"`},
		{[]string{"journal", "bogus"}, cmdutil.ExitUsage, `unknown command "bogus"`},
		{[]string{"journal", "list"}, cmdutil.ExitUsage, "ilmctl: unknown command \"list\" for \"ilmctl journal\"\n" +
			"ilmctl: hint: did you mean 'ilmctl journal ls'? (see 'ilmctl journal --help')\n"},
		{[]string{"run", "extra-arg"}, cmdutil.ExitUsage, "takes no arguments"},
		// A flag the root or a group does not have, before the command:
		// cobra takes the command for the flag's value, and the help with
		// exit 0 would leave a cron job that never runs a pass.
		{[]string{"--quiet", "run", "--filer", dir}, cmdutil.ExitUsage, "ilmctl: unknown flag: --quiet\nilmctl: hint: see 'ilmctl --help'\n"},
		{[]string{"--dry-run", "run", "--filer", dir}, cmdutil.ExitUsage, "ilmctl: unknown flag: --dry-run\n"},
		{[]string{"-x"}, cmdutil.ExitUsage, "unknown shorthand flag: 'x' in -x"},
		{[]string{"filer", "--bogus", "ls"}, cmdutil.ExitUsage, "ilmctl: unknown flag: --bogus\nilmctl: hint: see 'ilmctl filer --help'\n"},
		{[]string{"filer", "list", "--filer", dir}, cmdutil.ExitUsage, "ilmctl: unknown command \"list\" for \"ilmctl filer\"\n" +
			"ilmctl: hint: did you mean 'ilmctl filer ls'? (see 'ilmctl filer --help')\n"},
		{[]string{"run", "--filer", "gs://bucket"}, cmdutil.ExitUsage, "ilmctl: filer scheme \"gs\" not supported\n" +
			"ilmctl: hint: use seaweedfs://HOST:PORT, s3://HOST:PORT or a directory\n"},
	} {
		_, stderr, code := execute(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d stderr %q, want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.msg)
		}
		if !strings.Contains(stderr, os.TempDir()) { // a temporary path is as long as it is
			fits(t, strings.Join(tc.args, " "), stderr)
		}
	}
}

func TestNormalizeSingleDashFlags(t *testing.T) {
	root := newRootCommand()
	for _, tc := range []struct{ in, want []string }{
		{[]string{"run", "-runtime", "60m"}, []string{"run", "--runtime", "60m"}},
		{[]string{"run", "-runtime=5m", "-o", "json"}, []string{"run", "--runtime=5m", "-o", "json"}},
		{[]string{"run", "-dry-run", "-now", "2027-01-01T00:00:00Z"}, []string{"run", "--dry-run", "--now", "2027-01-01T00:00:00Z"}},
		{[]string{"run", "--", "-runtime"}, []string{"run", "--", "-runtime"}},
		{[]string{"filer", "ls", "-filer", "x"}, []string{"filer", "ls", "--filer", "x"}},
		{[]string{"run", "-xyz"}, []string{"run", "-xyz"}},
	} {
		if got := normalizeSingleDashFlags(root, tc.in); !cmp.Equal(got, tc.want) {
			t.Errorf("normalize(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestVersionAndCompletion(t *testing.T) {
	out, _, code := execute(t, "--version")
	if code != 0 || !strings.Contains(out, "ilmctl version") {
		t.Errorf("--version: %d %q", code, out)
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		out, _, code := execute(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "ilmctl") {
			t.Errorf("completion %s: exit %d", sh, code)
		}
	}
	// No shell, or one without a script, is a usage error naming the
	// shells, and writes nothing a script could install.
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}} {
		out, errOut, code := execute(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "bash, fish, powershell, zsh") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, the shells named", args, code, out, errOut)
		}
	}
}
