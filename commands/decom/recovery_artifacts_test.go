package decom

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/recovery"
	"github.com/ilmctl/ilmctl/internal/decomfixture"
)

const artifactSource = "ilm/tier-delete-journal/227870e5c0320ca1e9a8296e822983060b0d143fc8353658f44d75dfa5b98d2a.json"

// artifacts builds one of each recovery artifact, as `ilmctl recovery`
// encodes them, for a journal that is gone from every pool.
type artifacts struct {
	live, terminal, abandoned, export, prepared, completed []byte
	keys                                                   map[string]string
}

func newArtifacts(t *testing.T) artifacts {
	t.Helper()
	src := []byte(`{"journal":"bytes"}`)
	sum := envelope.SHA256Hex(src)
	copies := []recovery.Copy{{Pool: "pool:0000000000000001", Path: artifactSource, ETag: "e1", Size: int64(len(src)), SHA256: sum}}
	ctl := func(ident string, class recovery.Classification) *recovery.Control {
		c := &recovery.Control{ID: recovery.ControlID(recovery.ProtoJournal, artifactSource, ident), Protocol: recovery.ProtoJournal,
			SourcePath: artifactSource, StableIdentity: ident, RecordClass: "tier_delete_journal", FirstSeenAtUnixNanos: 1,
			Observed: recovery.NewGeneration("v1", "Committed", sum, copies), Revision: 2, Classification: class, LastErrorCode: recovery.ErrCodeNone}
		return c
	}
	live, term, ab := ctl("live", recovery.RetainedAmbiguous), ctl("done", recovery.Terminal), ctl("gone", recovery.Abandoned)
	x := &recovery.Export{ExportID: recovery.ExportID(ab.ID, sum, recovery.CopySetSHA256(copies)), ControlID: ab.ID, Protocol: recovery.ProtoJournal,
		SourcePath: artifactSource, SourceSchema: "v1", ContentSHA256: sum, CopySetSHA256: recovery.CopySetSHA256(copies), Copies: copies, Source: src}
	xb := x.Encode()
	d := &recovery.Disposition{DispositionID: recovery.DispositionID(x.ExportID, recovery.ActionAbandonRemoteCleanup), Action: recovery.ActionAbandonRemoteCleanup,
		ExportID: x.ExportID, ExportSHA256: envelope.SHA256Hex(xb), ControlID: ab.ID, ControlETag: "c1", Protocol: recovery.ProtoJournal,
		SourcePath: artifactSource, ReasonCode: recovery.ReasonLegacyRemoteCleanupAbandoned, Actor: "os-user:op", PreparedAtUnixNanos: 5,
		Manifest: copies, Revision: 1, State: recovery.Prepared,
		OwnerID: "os-user:op", OwnerEpoch: "7f1c0000-0000-4000-8000-000000000001", OwnerGeneration: 1,
		LeaseAcquiredAtUnixNanos: 5, LeaseExpiresAtUnixNanos: 6}
	prepared := d.Encode()
	done := *d
	done.Revision, done.State, done.ConfirmedAbsent, done.CompletedAtUnixNanos = 4, recovery.Completed, []string{copies[0].Pool}, 9
	ab.Disposition = &recovery.OperatorDisposition{DispositionID: d.DispositionID, Actor: d.Actor, ReasonCode: string(d.ReasonCode),
		ConfirmedAtUnixNano: 5, ExportSHA256: d.ExportSHA256, SourceETags: []string{"e1"}, ControlETag: "c1"}
	return artifacts{live: live.Encode(), terminal: term.Encode(), abandoned: ab.Encode(), export: xb, prepared: prepared, completed: done.Encode(),
		keys: map[string]string{"live": live.Key(), "terminal": term.Key(), "abandoned": ab.Key(), "export": x.Key(), "disposition": d.Key()}}
}

func put(t *testing.T, dir, pool, key string, b []byte) {
	t.Helper()
	p := filepath.Join(dir, pool, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyRecoveryArtifacts: ilmctl's own recovery artifacts on the
// source pool are decoded by core/recovery, never record_unsupported. Live
// work blocks with its own reason; finished history (terminal and
// abandoned controls, exports, completed dispositions) is movable: covered
// by a byte-identical copy on a target, blocked until one exists.
func TestVerifyRecoveryArtifacts(t *testing.T) {
	a := newArtifacts(t)
	for _, c := range []struct {
		name    string
		source  map[string][]byte
		target  map[string][]byte
		code    int
		reasons map[string]string // key -> blocking reason
	}{
		{"live control", map[string][]byte{a.keys["live"]: a.live}, nil, cmdutil.ExitBlocked,
			map[string]string{a.keys["live"]: "recovery_control_live"}},
		{"in-flight disposition", map[string][]byte{a.keys["disposition"]: a.prepared}, nil, cmdutil.ExitBlocked,
			map[string]string{a.keys["disposition"]: "recovery_disposition_in_flight"}},
		{"finished history moved", map[string][]byte{a.keys["terminal"]: a.terminal, a.keys["abandoned"]: a.abandoned,
			a.keys["export"]: a.export, a.keys["disposition"]: a.completed},
			map[string][]byte{a.keys["terminal"]: a.terminal, a.keys["abandoned"]: a.abandoned, a.keys["export"]: a.export, a.keys["disposition"]: a.completed},
			0, nil},
		{"finished history not moved", map[string][]byte{a.keys["terminal"]: a.terminal, a.keys["disposition"]: a.completed}, nil, cmdutil.ExitBlocked,
			map[string]string{a.keys["terminal"]: "recovery_artifact_not_moved", a.keys["disposition"]: "recovery_artifact_not_moved"}},
		{"target copy differs", map[string][]byte{a.keys["abandoned"]: a.abandoned}, map[string][]byte{a.keys["abandoned"]: a.terminal}, cmdutil.ExitBlocked,
			map[string]string{a.keys["abandoned"]: "recovery_artifact_target_differs"}},
		{"malformed control", map[string][]byte{a.keys["live"]: []byte(`{"schema":"rustfs-ilm-recovery-control-v1"}`)}, nil, cmdutil.ExitBlocked,
			map[string]string{a.keys["live"]: "record_corrupt"}},
		{"unknown control schema", map[string][]byte{a.keys["live"]: []byte(strings.Replace(string(a.live), "control-v1", "control-v9", 1))}, nil, cmdutil.ExitBlocked,
			map[string]string{a.keys["live"]: "record_unknown_schema"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			run := decomfixture.Complete()
			writeRun(t, dir, run)
			for k, b := range c.source {
				put(t, dir, decomfixture.Source, k, b)
			}
			for k, b := range c.target {
				put(t, dir, decomfixture.TargetB, k, b)
			}
			out, code := execute(t, verifyArgs(dir, run.Token, "-o", "json")...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			doc, _, _ := strings.Cut(out, "\nerror: ")
			var rep struct {
				Rows []struct {
					Path, Verdict, Reason, Detail string
				} `json:"rows"`
				Predicate struct {
					CoveredRecords int `json:"covered_records"`
					SourceRecords  int `json:"source_records"`
				} `json:"predicate"`
			}
			if err := json.Unmarshal([]byte(doc), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := map[string]string{}
			for _, r := range rep.Rows {
				if r.Verdict == "blocked" {
					got[r.Path] = r.Reason
					if r.Detail == "" || strings.Contains(r.Detail, "\n") {
						t.Errorf("%s: detail %q is not one line", r.Path, r.Detail)
					}
				}
			}
			if len(got) != len(c.reasons) {
				t.Fatalf("blocking rows %v, want %v", got, c.reasons)
			}
			for k, want := range c.reasons {
				if got[k] != want {
					t.Errorf("%s: %q, want %q", k, got[k], want)
				}
			}
			if c.code == 0 && rep.Predicate.CoveredRecords != rep.Predicate.SourceRecords {
				t.Errorf("covered %d of %d source records", rep.Predicate.CoveredRecords, rep.Predicate.SourceRecords)
			}
		})
	}
}
