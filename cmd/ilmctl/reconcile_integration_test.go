//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/client/embedded"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/reconcile"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// tierBucket creates a bucket on the SeaweedFS under test in the given
// versioning mode ("" never enabled), puts the remote object `puts` times
// and returns the bucket, the tiers file and the last version id.
func tierBucket(t *testing.T, versioning string, puts int) (bucket, tiers, lastID string) {
	t.Helper()
	s3 := itest.FromEnv(t)
	bucket = s3.CreateBucket(t, "tier")
	if versioning != "" {
		s3.PutVersioning(t, bucket, versioning)
	}
	for range puts {
		lastID, _ = s3.PutObject(t, bucket, "cold/"+rcRemote, "payload", nil)
	}
	endpoint, _, _ := itest.S3Env(t)
	tiers = writeTiers(t, "WARM", "http://"+endpoint, bucket, itest.EnvAccessKey, itest.EnvSecretKey)
	return bucket, tiers, lastID
}

// savePlan runs get -o json, checks its exit code and saves the plan.
func savePlan(t *testing.T, tiers string, dirs []string, wantCode int) (string, reconcile.Report) {
	t.Helper()
	out, stderr, code := execute(t, reconcileArgs("get", tiers, dirs, "-o", "json")...)
	if code != wantCode {
		t.Fatalf("get: exit %d, want %d: %s", code, wantCode, stderr)
	}
	p := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, decodeReport(t, out)
}

func post(t *testing.T, tiers, plan string, dirs []string) (reconcile.Report, int, string) {
	t.Helper()
	out, stderr, code := execute(t, reconcileArgs("post", tiers, dirs, "--plan", plan, "--confirm", "-o", "json")...)
	if code == cmdutil.ExitUsage || code == cmdutil.ExitFailure {
		return reconcile.Report{}, code, stderr
	}
	return decodeReport(t, out), code, stderr
}

// A SeaweedFS bucket per versioning mode: get proposes the design's
// derivation, post writes it to every set under both prefixes, and a
// second post is an idempotent migrated.
func TestReconcileSeaweedFSTier(t *testing.T) {
	tests := []struct {
		versioning string
		state      reconcile.State
		exactID    bool   // the remote version is the PutObject version id
		remote     string // else this remote version
	}{
		{versioning: "", state: reconcile.StateKnownDisabled},
		{versioning: "Enabled", state: reconcile.StateExact, exactID: true},
		{versioning: "Suspended", state: reconcile.StateSuspendedNull, remote: "null"},
	}
	for _, tt := range tests {
		t.Run("versioning "+tt.versioning, func(t *testing.T) {
			_, tiers, lastID := tierBucket(t, tt.versioning, 1)
			want := tt.remote
			if tt.exactID {
				want = lastID
			}
			dirs := reconcileSets(t, 2, legacyMeta("WARM", nil))
			plan, rep := savePlan(t, tiers, dirs, 0)
			if rep.Outcome != reconcile.ReadyToMigrate || rep.Target == nil || rep.Target.State != tt.state || rep.Target.RemoteVersionID != want {
				t.Fatalf("get: %+v target %+v, want %s %q", rep.Outcome, rep.Target, tt.state, want)
			}
			got, code, stderr := post(t, tiers, plan, dirs)
			if code != 0 || got.Outcome != reconcile.Migrated || !got.BytesChanged {
				t.Fatalf("post: exit %d %s %q bytes_changed=%v %s", code, got.Outcome, got.Reason, got.BytesChanged, stderr)
			}
			for _, d := range dirs {
				v := setMeta(t, d)
				for _, p := range reconcile.Prefixes {
					md := v.Metadata
					if md[p+reconcile.SuffixState] != string(tt.state) || md[p+reconcile.SuffixDestinationID] != rep.Source.DestinationID {
						t.Fatalf("%s %s: %v", d, p, md)
					}
					if rv, ok := md[p+reconcile.SuffixRemoteVersion]; (tt.state != reconcile.StateKnownDisabled) != ok || rv != want {
						t.Fatalf("%s %s: remote version %q present=%v, want %q", d, p, rv, ok, want)
					}
				}
			}
			again, code, _ := post(t, tiers, plan, dirs)
			if code != 0 || again.Outcome != reconcile.Migrated || again.BytesChanged {
				t.Fatalf("second post: exit %d %s bytes_changed=%v", code, again.Outcome, again.BytesChanged)
			}
			_, rep = savePlan(t, tiers, dirs, 0)
			if rep.Outcome != reconcile.Migrated {
				t.Fatalf("get after post: %s", rep.Outcome)
			}
		})
	}
}

// A remote object with two versions proves nothing: get and post are
// retained-ambiguous (exit 6), and a plan made while it had one version
// writes nothing once it has two.
func TestReconcileTwoRemoteVersions(t *testing.T) {
	bucket, tiers, _ := tierBucket(t, "Enabled", 1)
	dirs := reconcileSets(t, 1, legacyMeta("WARM", nil))
	plan, _ := savePlan(t, tiers, dirs, 0)
	itest.FromEnv(t).PutObject(t, bucket, "cold/"+rcRemote, "payload 2", nil)
	if _, rep := savePlan(t, tiers, dirs, cmdutil.ExitRetainedAmbiguous); rep.Outcome != reconcile.RetainedAmbiguous {
		t.Fatalf("get: %s", rep.Outcome)
	}
	got, code, _ := post(t, tiers, plan, dirs)
	if code != cmdutil.ExitRetainedAmbiguous || got.Outcome != reconcile.RetainedAmbiguous || got.BytesChanged {
		t.Fatalf("post: exit %d %s bytes_changed=%v", code, got.Outcome, got.BytesChanged)
	}
	if g := setMeta(t, dirs[0]).Generation; g != 1 {
		t.Fatalf("generation %d after a retained post", g)
	}
}

// The tier goes down between get and post: backend-unavailable (exit 8),
// nothing written.
func TestReconcileTierDown(t *testing.T) {
	_, tiers, _ := tierBucket(t, "Enabled", 1)
	dirs := reconcileSets(t, 1, legacyMeta("WARM", nil))
	plan, rep := savePlan(t, tiers, dirs, 0)
	down := writeTiers(t, "WARM", "http://127.0.0.1:1", rep.Source.Destination.Bucket, itest.EnvAccessKey, itest.EnvSecretKey)
	got, code, _ := post(t, down, plan, dirs)
	// The plan binds the destination: another endpoint is another
	// destination, which cannot be acquired.
	if code != cmdutil.ExitBackendUnavailable || got.Outcome != reconcile.BackendUnavailable {
		t.Fatalf("post to a moved tier: exit %d %s", code, got.Outcome)
	}
	if _, rep := savePlan(t, down, dirs, cmdutil.ExitBackendUnavailable); !strings.Contains(rep.Reason, "probe failed") {
		t.Fatalf("get on a down tier: %q", rep.Reason)
	}
	if g := setMeta(t, dirs[0]).Generation; g != 1 {
		t.Fatalf("generation %d", g)
	}
}

// A retry after a partial write: one set already holds the proven target,
// the other its original keys; post fills only the missing one. A set
// holding anything else is corrupt (exit 7). An edited plan is refused
// before anything is read (exit 2).
func TestReconcileRetrySubset(t *testing.T) {
	_, tiers, lastID := tierBucket(t, "Enabled", 1)
	dirs := reconcileSets(t, 2, legacyMeta("WARM", nil))
	plan, rep := savePlan(t, tiers, dirs, 0)
	write := func(dir string, keys map[string]string) {
		t.Helper()
		f, err := embedded.Open(dir, embedded.Options{MustExist: true})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		v, err := f.InternalMetadata(t.Context(), rcBucket, rcObject, rcVersion)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.UpdateInternalMetadata(t.Context(), rcBucket, rcObject, rcVersion, v.Generation, keys); err != nil {
			t.Fatal(err)
		}
	}
	target := map[string]string{}
	for _, p := range reconcile.Prefixes {
		target[p+reconcile.SuffixState] = "exact"
		target[p+reconcile.SuffixRemoteVersion] = lastID
		target[p+reconcile.SuffixDestinationID] = rep.Source.DestinationID
	}

	edited := filepath.Join(t.TempDir(), "edited.json")
	b, _ := os.ReadFile(plan)
	if err := os.WriteFile(edited, []byte(strings.Replace(string(b), lastID, "forged", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, code, stderr := post(t, tiers, edited, dirs); code != cmdutil.ExitUsage || !strings.Contains(stderr, "edited") {
		t.Fatalf("edited plan: exit %d %s", code, stderr)
	}

	write(dirs[0], target)
	got, code, _ := post(t, tiers, plan, dirs)
	if code != 0 || got.Outcome != reconcile.Migrated || !got.BytesChanged {
		t.Fatalf("retry: exit %d %s %q", code, got.Outcome, got.Reason)
	}
	if g0, g1 := setMeta(t, dirs[0]).Generation, setMeta(t, dirs[1]).Generation; g0 != 2 || g1 != 2 {
		t.Fatalf("generations %d, %d: want each set written once", g0, g1)
	}

	dirs = reconcileSets(t, 2, legacyMeta("WARM", nil))
	plan, _ = savePlan(t, tiers, dirs, 0)
	write(dirs[1], map[string]string{"x-minio-internal-transitioned-versionID": "something-else"})
	got, code, _ = post(t, tiers, plan, dirs)
	if code != cmdutil.ExitCorrupt || got.Outcome != reconcile.Corrupt || got.BytesChanged {
		t.Fatalf("divergent set: exit %d %s bytes_changed=%v", code, got.Outcome, got.BytesChanged)
	}
}
