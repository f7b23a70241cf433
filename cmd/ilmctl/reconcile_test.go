package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/client/embedded"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/reconcile"
)

const (
	rcBucket  = "photos"
	rcObject  = "2024/a.jpg"
	rcVersion = "v1"
	rcRemote  = "ab/cd/remote-1"
)

// legacyMeta is a transition tuple written before transitioned-version-
// state existed: both prefixes, no state, no destination id.
func legacyMeta(tier string, extra map[string]string) map[string]string {
	md := map[string]string{}
	for _, p := range reconcile.Prefixes {
		md[p+reconcile.SuffixStatus] = "complete"
		md[p+reconcile.SuffixTier] = tier
		md[p+reconcile.SuffixRemoteObject] = rcRemote
	}
	maps.Copy(md, extra)
	return md
}

// reconcileSets loads n embedded filers (sets), each holding the version
// with md, and returns their directories.
func reconcileSets(t *testing.T, n int, md map[string]string) []string {
	t.Helper()
	var dirs []string
	for range n {
		v := ver(rcVersion, "2026-01-01T00:00:00Z", 42)
		v["internal_metadata"] = md
		dirs = append(dirs, loadFixture(t, map[string]any{"buckets": []any{
			map[string]any{"name": rcBucket, "versioning": "Enabled", "objects": []any{obj(rcObject, v)}},
		}}))
	}
	return dirs
}

// writeTiers writes a --tiers file with one tier and returns its path.
func writeTiers(t *testing.T, name, endpoint, bucket, akEnv, skEnv string) string {
	t.Helper()
	doc := reconcile.TierFile{Tiers: []reconcile.TierEntry{{Name: name, Type: reconcile.TierS3, Endpoint: endpoint, Bucket: bucket,
		Prefix: "cold/", Region: "us-east-1", AccessKeyEnv: akEnv, SecretKeyEnv: skEnv}}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tiers.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func reconcileArgs(verb, tiers string, dirs []string, extra ...string) []string {
	args := []string{"reconcile", verb, "--bucket", rcBucket, "--object", rcObject, "--version-id", rcVersion, "--tiers", tiers}
	for _, d := range dirs {
		args = append(args, "--filer", d)
	}
	return append(args, extra...)
}

func decodeReport(t *testing.T, out string) reconcile.Report {
	t.Helper()
	var rep reconcile.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	return rep
}

// setMeta reads the version's internal metadata and generation in dir.
func setMeta(t *testing.T, dir string) embedded.InternalVersion {
	t.Helper()
	f, err := embedded.Open(dir, embedded.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := f.InternalMetadata(context.Background(), rcBucket, rcObject, rcVersion)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Cases that need no tier: the probe is never reached, or fails at once on
// a closed port.
func TestReconcileWithoutTier(t *testing.T) {
	t.Setenv("RC_AK", "ak")
	t.Setenv("RC_SK", "sk")
	closed := writeTiers(t, "WARM", "http://127.0.0.1:1", "tier", "RC_AK", "RC_SK")
	tests := []struct {
		name    string
		md      map[string]string
		args    func(dirs []string) []string
		code    int
		outcome reconcile.Outcome
		stderr  string
	}{
		{name: "tier down", md: legacyMeta("WARM", nil), code: cmdutil.ExitBackendUnavailable, outcome: reconcile.BackendUnavailable, stderr: "probe failed"},
		{name: "explicit unknown is corrupt, no probe", md: legacyMeta("WARM", map[string]string{"x-rustfs-internal-transitioned-version-state": "unknown"}),
			code: cmdutil.ExitCorrupt, outcome: reconcile.Corrupt, stderr: "explicit"},
		{name: "prefixes conflict", md: legacyMeta("WARM", map[string]string{"x-minio-internal-transition-tier": "COLD"}),
			code: cmdutil.ExitCorrupt, outcome: reconcile.Corrupt, stderr: "differs between"},
		{name: "tier not in --tiers", md: legacyMeta("GLACIER", nil), code: cmdutil.ExitBackendUnavailable, outcome: reconcile.BackendUnavailable, stderr: "not in --tiers"},
		{name: "credentials unset", md: legacyMeta("WARM", nil), code: cmdutil.ExitBackendUnavailable, outcome: reconcile.BackendUnavailable, stderr: "RC_NOPE",
			args: func(dirs []string) []string {
				return reconcileArgs("get", writeTiers(t, "WARM", "http://127.0.0.1:1", "tier", "RC_NOPE", "RC_SK"), dirs, "-o", "json")
			}},
		{name: "not transitioned", md: map[string]string{"x-rustfs-internal-other": "x"}, code: cmdutil.ExitFailure, stderr: "not transitioned"},
		{name: "version not found", md: legacyMeta("WARM", nil), code: cmdutil.ExitFailure,
			stderr: "ilmctl: " + rcBucket + "/" + rcObject + ` has no version "v9" in any set; check --version-id and --filer` + "\n",
			args: func(dirs []string) []string {
				a := reconcileArgs("get", closed, dirs, "-o", "json")
				a[7] = "v9"
				return a
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dirs := reconcileSets(t, 2, tt.md)
			args := reconcileArgs("get", closed, dirs, "-o", "json")
			if tt.args != nil {
				args = tt.args(dirs)
			}
			out, stderr, code := execute(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d containing %q", code, stderr, tt.code, tt.stderr)
			}
			if tt.outcome != "" {
				if rep := decodeReport(t, out); rep.Outcome != tt.outcome || rep.Ready {
					t.Fatalf("outcome %s ready %v, want %s", rep.Outcome, rep.Ready, tt.outcome)
				}
			}
			for _, d := range dirs {
				if g := setMeta(t, d).Generation; g != 1 {
					t.Fatalf("get changed %s: generation %d", d, g)
				}
			}
		})
	}
}

func TestReconcileUsage(t *testing.T) {
	t.Setenv("RC_AK", "ak")
	t.Setenv("RC_SK", "sk")
	tiers := writeTiers(t, "WARM", "http://127.0.0.1:1", "tier", "RC_AK", "RC_SK")
	dirs := reconcileSets(t, 1, legacyMeta("WARM", nil))
	badTiers := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(badTiers, []byte(`{"tiers":[{"name":"WARM","type":"glacier"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A plan that parses but is not ready, and one that is edited.
	notReady := filepath.Join(t.TempDir(), "plan.json")
	out, _, _ := execute(t, reconcileArgs("get", tiers, dirs, "-o", "json")...)
	if err := os.WriteFile(notReady, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	// One set under other spellings: a link to it, and a path through a
	// sibling directory.
	link := filepath.Join(t.TempDir(), "set-link")
	if err := os.Symlink(dirs[0], link); err != nil {
		t.Fatal(err)
	}
	sibling := filepath.Join(filepath.Dir(dirs[0]), "sibling")
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(dirs[0])
	t.Chdir(filepath.Dir(dirs[0]))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no version id", []string{"reconcile", "get", "--bucket", "b", "--object", "o", "--tiers", tiers}, "--version-id is required"},
		{"empty version id", []string{"reconcile", "get", "--bucket", "b", "--object", "o", "--version-id", "", "--tiers", tiers}, "version id is empty"},
		{"no tiers", []string{"reconcile", "get", "--bucket", "b", "--object", "o", "--version-id", "null"}, "--tiers is required"},
		{"bad tiers", reconcileArgs("get", badTiers, dirs), "type \"glacier\""},
		{"remote filer", reconcileArgs("get", tiers, []string{"seaweedfs://127.0.0.1:8888"}), "embedded filer"},
		{"same filer twice", reconcileArgs("get", tiers, []string{dirs[0], dirs[0]}), "--filer " + dirs[0] + " and --filer " + dirs[0] + " name the same set"},
		{"same filer, dir: and a trailing slash", reconcileArgs("get", tiers, []string{dirs[0], "dir:" + dirs[0] + "/"}), "--filer " + dirs[0] + " and --filer dir:" + dirs[0] + "/ name the same set"},
		{"same filer through a link", reconcileArgs("get", tiers, []string{link, dirs[0]}), "--filer " + link + " and --filer " + dirs[0] + " name the same set"},
		{"same filer through a sibling", reconcileArgs("get", tiers, []string{dirs[0], sibling + "/../" + base}), "name the same set"},
		{"same filer, relative", reconcileArgs("get", tiers, []string{base, "./" + base + "/"}), "--filer " + base + " and --filer ./" + base + "/ name the same set"},
		{"same filer, post", reconcileArgs("post", tiers, []string{dirs[0], dirs[0] + "/."}, "--plan", notReady, "--confirm"), "name the same set"},
		{"post without --confirm", reconcileArgs("post", tiers, dirs, "--plan", notReady), "--confirm is required"},
		{"post without --plan", reconcileArgs("post", tiers, dirs, "--confirm"), "--plan is required"},
		{"post a plan that is not ready", reconcileArgs("post", tiers, dirs, "--plan", notReady, "--confirm"), "not ready-to-migrate"},
		{"post a file that is no plan", reconcileArgs("post", tiers, dirs, "--plan", tiers, "--confirm"), "is not a plan"},
		{"unknown subcommand", []string{"reconcile", "list"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := execute(t, tt.args...)
			if code != cmdutil.ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d containing %q", code, stderr, cmdutil.ExitUsage, tt.want)
			}
			if !oneMessage(stderr) {
				t.Fatalf("error is not one message line and hints: %q", stderr)
			}
		})
	}
}

// --version-id null selects the null version of an unversioned bucket.
func TestReconcileNullSelector(t *testing.T) {
	t.Setenv("RC_AK", "ak")
	t.Setenv("RC_SK", "sk")
	tiers := writeTiers(t, "WARM", "http://127.0.0.1:1", "tier", "RC_AK", "RC_SK")
	v := map[string]any{"version_id": nil, "mtime": "2026-01-01T00:00:00Z", "size": 7, "etag": "e", "internal_metadata": legacyMeta("WARM", nil)}
	dir := loadFixture(t, map[string]any{"buckets": []any{map[string]any{"name": "flat", "objects": []any{obj("k", v)}}}})
	out, stderr, code := execute(t, "reconcile", "get", "--bucket", "flat", "--object", "k", "--version-id", "null", "--filer", dir, "--tiers", tiers, "-o", "json")
	if code != cmdutil.ExitBackendUnavailable {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep := decodeReport(t, out)
	if rep.Source == nil || rep.Source.VersionID != "null" || rep.Source.Size != 7 || rep.Outcome != reconcile.BackendUnavailable {
		t.Fatalf("report %+v", rep)
	}
}
