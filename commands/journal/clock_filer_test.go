package journal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/client"
)

const (
	poolA = "../../testdata/ilm/pool-a"
	poolB = "../../testdata/ilm/pool-b"
	// fixtureNow is the instant core/journal's fixture generator classifies
	// at: "past" deadlines are 1ns before it, "future" ones an hour after.
	fixtureNow = "2025-06-15T15:06:40Z"
)

type lsRecord struct {
	Path           string `json:"path"`
	Protocol       string `json:"protocol"`
	Schema         string `json:"schema"`
	State          string `json:"state"`
	Classification string `json:"classification"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	SourceEvidence string `json:"source_evidence"`
}

type lsOutput struct {
	Records []lsRecord `json:"records"`
	Summary []struct {
		Protocol       string `json:"protocol"`
		Classification string `json:"classification"`
		Count          int    `json:"count"`
	} `json:"summary"`
	Incomplete bool `json:"incomplete"`
}

func ls(t *testing.T, args ...string) lsOutput {
	t.Helper()
	out, err := run(t, append([]string{"ls", "--meta", poolA, "--meta", poolB, "-o", "json"}, args...)...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	var v lsOutput
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Incomplete {
		t.Fatal("scan of the fixture pools is incomplete")
	}
	return v
}

func byPath(v lsOutput) map[string]lsRecord {
	m := map[string]lsRecord{}
	for _, r := range v.Records {
		m[r.Path] = r
	}
	return m
}

const (
	txUnknownExpired = "ilm/transition-transactions/records/d0/00/d0000000000040008000000000000003.json"
	txUploadedLive   = "ilm/transition-transactions/records/d0/00/d0000000000040008000000000000004.json"
	txUploadedPast   = "ilm/transition-transactions/records/d0/00/d0000000000040008000000000000005.json"
	txLocalCommit    = "ilm/transition-transactions/records/d0/00/d0000000000040008000000000000006.json"
	txCleanup        = "ilm/transition-transactions/records/d0/00/d0000000000040008000000000000007.json"
	jobExpired       = "ilm/manual-transition/jobs/f0/00/f0000000000040008000000000000001.json"
	jobLive          = "ilm/manual-transition/jobs/f0/00/f0000000000040008000000000000003.json"
	journalSplit     = "ilm/tier-delete-journal/a3eca9108685e477bb8096e245161342e7d411ac07a55d490be3782cc892d2a4.json"
)

// TestLsNowPinsClassification runs ls on the committed fixtures at a fixed
// --now and checks representative records and every summary count.
func TestLsNowPinsClassification(t *testing.T) {
	v := ls(t, "--now", fixtureNow)
	recs := byPath(v)
	for path, want := range map[string][2]string{
		txUnknownExpired: {"operator_required", "probe_remote_candidate"},
		txUploadedLive:   {"active", "retain"},
		txUploadedPast:   {"recoverable", "cleanup_pending_then_delete"},
		txLocalCommit:    {"needs_source_proof", "retain"},
		jobExpired:       {"recoverable", "take_over"},
		jobLive:          {"active", "leave_to_owner"},
		journalSplit:     {"operator_required", "retain"},
	} {
		r, ok := recs[path]
		if !ok {
			t.Errorf("%s: missing", path)
			continue
		}
		if r.Classification != want[0] || r.Decision != want[1] {
			t.Errorf("%s: got %s/%s (%s), want %s/%s", path, r.Classification, r.Decision, r.Reason, want[0], want[1])
		}
	}
	got := map[string]int{}
	for _, s := range v.Summary {
		got[s.Protocol+"/"+s.Classification] = s.Count
	}
	want := map[string]int{
		"manual_transition/active": 9, "manual_transition/corrupt": 8, "manual_transition/operator_required": 2,
		"manual_transition/recoverable": 5, "manual_transition/terminal": 6,
		"other/corrupt":              1,
		"tier_delete_journal/active": 4, "tier_delete_journal/corrupt": 6, "tier_delete_journal/needs_source_proof": 5,
		"tier_delete_journal/operator_required": 1, "tier_delete_journal/recoverable": 2, "tier_delete_journal/retained_ambiguous": 3,
		"tier_delete_manifest/active": 4, "tier_delete_manifest/recoverable": 7, "tier_delete_manifest/terminal": 5,
		"transition_transaction/active": 3, "transition_transaction/corrupt": 3, "transition_transaction/needs_source_proof": 2,
		"transition_transaction/operator_required": 1, "transition_transaction/recoverable": 1, "transition_transaction/terminal": 2,
	}
	if len(got) != len(want) {
		t.Errorf("summary has %d rows, want %d: %v", len(got), len(want), got)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("summary %s = %d, want %d", k, got[k], n)
		}
	}

	// An hour earlier no deadline has passed: the same records are owned.
	early := byPath(ls(t, "--now", "2025-06-15T14:06:40Z"))
	for _, p := range []string{txUnknownExpired, txUploadedPast, jobExpired} {
		if r := early[p]; r.Classification != "active" {
			t.Errorf("%s at an earlier --now: got %s/%s, want active", p, r.Classification, r.Decision)
		}
	}
}

// sourceFixture is the filer the source lookups run against: objects of
// bucket photos whose versions match, differ from, or lack the sources the
// v5/v6 journals and transactions of testdata/ilm record.
const sourceFixture = `{"buckets":[{"name":"photos","versioning":"Enabled","objects":[
 {"key":"v5-Prepared","versions":[{"version_id":"11111111-2222-4333-8444-555555555555","mtime":"2025-06-01T00:00:00Z","size":10,"etag":"etag-v5-Prepared"}]},
 {"key":"v5-Committed","versions":[{"version_id":"11111111-2222-4333-8444-555555555555","mtime":"2025-06-01T00:00:00Z","size":10,"etag":"rewritten"}]},
 {"key":"auth/a","versions":[{"version_id":"11111111-2222-4333-8444-555555555555","mtime":"2025-06-01T00:00:00Z","size":10,"etag":"etag-auth/a"},
                             {"mtime":"2025-06-02T00:00:00Z","delete_marker":true}]},
 {"key":"cat.jpg","versions":[{"version_id":"22222222-2222-4333-8444-555555555555","mtime":"2023-11-14T22:13:20Z","size":42,"etag":"abc"}]}
]}]}`

func loadFiler(t *testing.T, fixture string) string {
	t.Helper()
	dir := t.TempDir()
	f, err := client.Open(t.Context(), dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := client.LoadFixture(t.Context(), f, strings.NewReader(fixture)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLsFilerSourceProof runs the all-pool source lookup against a real
// embedded filer and checks the v5/v6 and transaction rows it decides.
func TestLsFilerSourceProof(t *testing.T) {
	v := ls(t, "--now", fixtureNow, "--filer", loadFiler(t, sourceFixture))
	type want struct{ class, decision, evidence string }
	got := map[string]lsRecord{}
	for _, r := range v.Records {
		switch {
		case r.Schema == "v5", r.Schema == "v6" && r.SourceEvidence != "":
			got[r.Schema+" "+r.State] = r
		case r.Path == txLocalCommit || r.Path == txCleanup:
			st, _, _ := strings.Cut(r.State, "@") // state@revision
			got[st] = r
		}
	}
	for k, w := range map[string]want{
		"v5 Prepared":          {"recoverable", "abort_record", "present"},        // exact source present
		"v5 Dispatched":        {"needs_source_proof", "retain", "source_absent"}, // no such key; free-version unprovable
		"v5 Committed":         {"retained_ambiguous", "retain", "uncertain"},     // same version id, different etag
		"v6 Dispatched":        {"retained_ambiguous", "retain", "present"},       // present under a delete marker
		"v6 Committed":         {"needs_source_proof", "retain", "source_absent"}, // Completed manifest, source gone
		"local_commit_started": {"retained_ambiguous", "retain", "source_absent"}, // only another version of cat.jpg
		"cleanup_pending":      {"recoverable", "delete_candidate_then_record", "source_absent"},
	} {
		r, ok := got[k]
		if !ok {
			t.Errorf("%s: no such record with a lookup", k)
			continue
		}
		if r.Classification != w.class || r.Decision != w.decision || r.SourceEvidence != w.evidence {
			t.Errorf("%s: got %s/%s evidence %q (%s), want %s/%s evidence %q", k, r.Classification, r.Decision, r.SourceEvidence, r.Reason, w.class, w.decision, w.evidence)
		}
	}
	if len(got) != 7 {
		t.Errorf("%d records were looked up, want 7: %v", len(got), got)
	}
}

// TestLsFilerLookupErrorIsNotAbsence: a filer without the source bucket
// answers every lookup with an error; nothing becomes absent.
func TestLsFilerLookupErrorIsNotAbsence(t *testing.T) {
	v := ls(t, "--now", fixtureNow, "--filer", loadFiler(t, `{"buckets":[{"name":"other","versioning":"Enabled"}]}`))
	n := 0
	for _, r := range v.Records {
		if r.SourceEvidence == "" {
			continue
		}
		n++
		if r.SourceEvidence != "uncertain" || r.Classification != "retained_ambiguous" || r.Decision != "retain" {
			t.Errorf("%s: got %s/%s evidence %q", r.Path, r.Classification, r.Decision, r.SourceEvidence)
		}
	}
	if n != 7 {
		t.Errorf("%d records were looked up, want 7", n)
	}
}
