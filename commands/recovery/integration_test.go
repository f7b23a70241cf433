//go:build integration

// Integration test of the recovery operator flow on s3:// metadata pools:
// two prefixes of a bucket on the S3 server under test (ILMCTL_IT_S3,
// ILMCTL_IT_ACCESS_KEY, ILMCTL_IT_SECRET_KEY; the SeaweedFS gateway of
// scripts/seaweedfs.sh or the MinIO of scripts/minio.sh), so the
// conditional writes and deletes of the protocol meet a real server.
package recovery

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/internal/itest"
)

func TestOperatorFlowOnS3(t *testing.T) {
	_, _, rec := setup(t)
	endpoint, access, secret := itest.S3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	admin := itest.NewClient(endpoint, access, secret)
	bucket := admin.CreateBucket(t, "ilmctl-recovery")
	body, err := os.ReadFile(filepath.Join("../../testdata/ilm/pool-a", v1Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, pool := range []string{"pool0", "pool1"} {
		admin.PutObject(t, bucket, pool+"/"+v1Path, string(body), nil)
	}
	metas := []string{"--meta", "s3://" + endpoint + "/" + bucket + "/pool0", "--meta", "s3://" + endpoint + "/" + bucket + "/pool1"}

	out, errs, code := run(t, append([]string{"scan", "-o", "json"}, metas...)...)
	if code != 0 {
		t.Fatalf("scan: %d\n%s%s", code, out, errs)
	}
	items := mustJSON(t, out)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("scan items: %v", items)
	}
	id := items[0].(map[string]any)["control_id"].(string)
	// A second scan writes nothing (never hot-looped).
	out, _, _ = run(t, append([]string{"scan", "-o", "json"}, metas...)...)
	if got := mustJSON(t, out)["items"].([]any)[0].(map[string]any)["outcome"]; got != "unchanged" {
		t.Fatalf("rescan outcome %v", got)
	}

	work := t.TempDir()
	receipt := filepath.Join(work, "receipt.json")
	out, errs, code = run(t, append([]string{"inspect", id, "--receipt-out", receipt}, metas...)...)
	if code != 0 || !strings.Contains(out, "ready                   yes") {
		t.Fatalf("inspect: %d\n%s%s", code, out, errs)
	}
	if a := auditLines(t, errs); len(a) != 1 || a[0]["actor"] != "access-key:"+access || strings.Contains(errs, secret) {
		t.Fatalf("audit actor: %v", a)
	}
	out, errs, code = run(t, append([]string{"export", id, "--receipt", receipt, "-o", "json"}, metas...)...)
	if code != 0 {
		t.Fatalf("export: %d\n%s%s", code, out, errs)
	}
	x := mustJSON(t, out)
	abandon := append([]string{"abandon", id, "--receipt", receipt, "--export-id", x["export_id"].(string),
		"--export-sha256", x["export_sha256"].(string), "--reason", "legacy_remote_cleanup_abandoned",
		"--confirm", "--acknowledge-remote-cleanup-abandoned"}, metas...)
	out, errs, code = run(t, abandon...)
	if itest.ServerEnv(t) == itest.MinIO {
		abandonRefusedOnMinIO(t, admin, bucket, abandon, out, errs, code)
		return
	}
	if code != 0 || !strings.Contains(out, "2 of 2 copies confirmed absent") {
		t.Fatalf("abandon: %d\n%s%s", code, out, errs)
	}
	keys, _ := admin.ListAll(t, bucket)
	for _, k := range keys {
		if strings.Contains(k, "tier-delete-journal") {
			t.Fatalf("journal copy %s survived", k)
		}
	}
	if out, _, code = run(t, abandon...); code != 0 || !strings.Contains(out, "already Completed") {
		t.Fatalf("re-run: %d\n%s", code, out)
	}
	for _, k := range rec.keys {
		if !strings.HasPrefix(k, "ilm/") && !strings.HasPrefix(k, "decommission/") {
			t.Fatalf("a store operation named %q", k)
		}
	}
}

// abandonRefusedOnMinIO: MinIO ignores If-Match on DeleteObject, so the
// abandon the flow ends with is refused before its first write: exit 1,
// one line naming the pool, the server behaviour and the fix (also the
// error of -o json's one document); no disposition written, both journal
// copies kept, and no probe object left in either pool.
func abandonRefusedOnMinIO(t *testing.T, admin *itest.S3, bucket string, abandon []string, out, errs string, code int) {
	t.Helper()
	line := errs[strings.LastIndex(errs, "ERR ")+len("ERR "):]
	if code != 1 || strings.Count(line, "\n") != 1 ||
		!regexp.MustCompile(`/pool[01]: server does not honour If-Match on DeleteObject: a DELETE of the probe \.ilmctl-tmp/delete-probe-`).MatchString(line) ||
		!strings.Contains(line, "ilmctl deletes nothing in this pool: keep it on a server that honours If-Match on DeleteObject") {
		t.Fatalf("abandon on MinIO: exit %d, want 1 and the refusal\n%s%s", code, out, errs)
	}
	jout, _, jcode := run(t, append(abandon, "-o", "json")...)
	if doc := mustJSON(t, jout); jcode != 1 || !strings.Contains(doc["error"].(string), "server does not honour If-Match on DeleteObject") {
		t.Fatalf("abandon -o json on MinIO: exit %d\n%s", jcode, jout)
	}
	keys, _ := admin.ListAll(t, bucket)
	copies := 0
	for _, k := range keys {
		switch {
		case strings.Contains(k, "recovery-dispositions"):
			t.Fatalf("a refused abandon wrote %s", k)
		case strings.Contains(k, ".ilmctl-tmp"):
			t.Fatalf("the probe %s was left behind", k)
		case strings.Contains(k, "tier-delete-journal"):
			copies++
		}
	}
	if copies != 2 {
		t.Fatalf("%d journal copies left of 2: %v", copies, keys)
	}
}
