// Package decomfixture builds decommission runs for tests and the
// committed testdata/decom pools: a source pool whose durable ILM records
// were copied to a target, receipts on source and target, and the
// expected-receipt manifest, plus one mutation per failure ilmctl decom
// verify must catch. Every record and receipt is encoded by ilmctl's own
// codecs, so the fixtures follow the formats those codecs document.
package decomfixture

import (
	"sort"
	"strings"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// The run identity: a pool command line and a decommission start time.
const (
	CmdLine        = "http://node{1...4}:9000/data{1...4}"
	StartUnixNanos = int64(1_750_000_000_123_456_789)
)

// Pool names.
const (
	Source  = "source"
	TargetA = "target-a"
	TargetB = "target-b"
)

// Run is a decommission run: pool name -> key -> bytes.
type Run struct {
	Token string
	Pools map[string]map[string][]byte
}

// Keys of the fixture's records.
var (
	TxUploaded  = ilmpath.TransitionKey(txID(1))
	TxTerminal  = ilmpath.TransitionKey(txID(2))
	JobKey      = ilmpath.ManualJobKey(jobID)
	ScopeKey    = ilmpath.ManualScopeKey(ilmpath.ManualScopeDigest("photos", false))
	JournalKey  = legacyJournal().CanonicalKey()
	ManifestKey = dispatchManifest().RootKey()
)

const jobID = "f0000000-0000-4000-8000-000000000001"

func sp(s string) *string { return &s }

func txID(n byte) string {
	return "d0000000-0000-4000-8000-0000000000" + string("0123456789abcdef"[n>>4]) + string("0123456789abcdef"[n&15])
}

func transaction(n byte, st transition.State, rev uint64) *transition.Transaction {
	t := &transition.Transaction{DeploymentID: "e0000000-0000-4000-8000-000000000001", TransactionID: txID(n), Revision: rev,
		OwnerEpoch: "e0000000-0000-4000-8000-000000000002", WriteID: "e0000000-0000-4000-8000-000000000003",
		Source: transition.Source{Bucket: "photos", Object: "cat.jpg", VersionID: sp("11111111-2222-4333-8444-555555555555"),
			DataDir: "66666666-7777-4888-9999-aaaaaaaaaaaa", ModTimeUnixNanos: 1_700_000_000_000_000_000, Size: 42, ETag: "abc",
			VersionMode: transition.ModeVersioned},
		TierName: "WARM", BackendFingerprint: [32]byte{9}, State: st, NotAfterUnixNanos: 1_760_000_000_000_000_000,
		RemoteVersion: transition.RemoteVersion{Kind: transition.RemoteVersioned, VersionID: sp("remote-v1")}}
	if st == transition.UploadStarted {
		t.RemoteVersion = transition.RemoteVersion{Kind: transition.RemoteUnknown}
	}
	t.RemoteObject = ilmpath.TransitionRemoteObject(t.DeploymentID, t.Source.Bucket, t.TransactionID, t.WriteID)
	return t
}

const report = `{"bucket":"photos","prefix":"","tier":"WARM","dry_run":false,"scanned":10,"eligible":4,"enqueued":4,` +
	`"dry_run_eligible":0,"skipped_not_transition":6,"skipped_tier":0,"skipped_delete_marker":0,"skipped_directory":0,` +
	`"skipped_replication":0,"skipped_already_transitioned":0,"skipped_already_in_flight":0,"skipped_queue_full":0,` +
	`"skipped_queue_closed":0,"skipped_queue_timeout":0,"transition_completed":3,"transition_failed":0,"tier_failure":0,` +
	`"tier_failure_by_reason":{},"lifecycle_config_found":true,"truncated_by_limit":false,"truncated_by_duration":false,` +
	`"cancelled":false,"continuation_token":null}`

func job() *manualjob.Job {
	return &manualjob.Job{JobID: jobID, ScopeKey: ilmpath.ManualScopeDigest("photos", false), Bucket: "photos", Tier: sp("WARM"),
		OwnerID: "node-1", LeaseID: "f0000000-0000-4000-8000-000000000002", LeaseExpiresAtUnixNanos: 1_750_000_100_000_000_000,
		State: manualjob.Running, CreatedAtUnixNanos: 1_749_999_000_000_000_000, UpdatedAtUnixNanos: 1_749_999_900_000_000_000,
		Report: []byte(report), QueueSnapshot: []byte(`{"queue_capacity":8,"queued":1,"workers":2,"active":1}`)}
}

func scope() *manualjob.Scope {
	j := job()
	return &manualjob.Scope{Schema: manualjob.JobSchema, ScopeKey: j.ScopeKey, JobID: j.JobID, LeaseID: j.LeaseID, OwnerID: j.OwnerID,
		Bucket: j.Bucket, Tier: j.Tier, LeaseExpiresAtUnixNanos: j.LeaseExpiresAtUnixNanos, UpdatedAtUnixNanos: j.UpdatedAtUnixNanos}
}

func legacyJournal() *tierdelete.Journal {
	vs, exact := tierdelete.VersionExact, true
	return &tierdelete.Journal{Version: 4, ObjName: "remote/cat.jpg", VersionID: "remote-v7", TierName: "WARM",
		BackendIdentity: &[32]byte{7}, VersionIDExact: &exact, VersionState: &vs}
}

func dispatchManifest() *tierdelete.Manifest {
	return &tierdelete.Manifest{Version: 1, OperationID: "b0000000-0000-4000-8000-000000000001", Bucket: "photos",
		BucketIncarnation: "b0000000-0000-4000-8000-000000000002", Prefix: "logs/", JournalNames: []string{},
		JournalSetSHA256: ilmpath.JournalSetSHA256(nil), TopologyGeneration: strings.Repeat("a", 64), State: tierdelete.Preparing}
}

// Complete is a run that may finish: five records on the source, each
// copied to target-a and covered by a receipt there (the transaction
// TxUploaded has since advanced one step on the target; TxTerminal reached
// a terminal checkpoint and its target copy was cleaned up), the expected
// receipts and the manifest on the source, nothing on target-b.
func Complete() *Run {
	r := &Run{Token: decom.RunToken(CmdLine, StartUnixNanos), Pools: map[string]map[string][]byte{Source: {}, TargetA: {}, TargetB: {}}}
	put := func(key string, src, tgt []byte, terminal []byte) {
		r.Pools[Source][key] = src
		if tgt != nil {
			r.Pools[TargetA][key] = tgt
		}
		rec, err := decom.RecordCheckpoint(key, src)
		if err != nil {
			panic(key + ": " + err.Error())
		}
		rc := &decom.Receipt{SourcePath: key, Namespace: rec.Namespace, IDKind: rec.IDKind, ID: rec.ID, Checkpoint: rec.Checkpoint.Encode()}
		if terminal != nil {
			t, err := decom.RecordCheckpoint(key, terminal)
			if err != nil {
				panic(key + ": " + err.Error())
			}
			rc.TerminalCheckpoint = t.Checkpoint.Encode()
		}
		rk := rec.ReceiptKey(r.Token)
		r.Pools[Source][rk] = rc.Encode()
		r.Pools[TargetA][rk] = rc.Encode()
	}
	put(TxUploaded, transaction(1, transition.Uploaded, 2).Encode(), transaction(1, transition.LocalCommitStarted, 3).Encode(), nil)
	put(TxTerminal, transaction(2, transition.LocalCommitStarted, 3).Encode(), nil, transaction(2, transition.Committed, 4).Encode())
	put(JobKey, job().Encode(), job().Encode(), nil)
	put(ScopeKey, scope().Encode(), scope().Encode(), nil)
	put(JournalKey, legacyJournal().Encode(), legacyJournal().Encode(), nil)
	put(ManifestKey, dispatchManifest().Encode(), dispatchManifest().Encode(), nil)
	r.writeManifest()
	return r
}

// ReceiptPaths are the receipt keys on the source pool, the run's
// expected set, sorted.
func (r *Run) ReceiptPaths() []string {
	var out []string
	for k := range r.Pools[Source] {
		if strings.HasPrefix(k, decom.ReceiptPrefix(r.Token)) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (r *Run) writeManifest() {
	r.Pools[Source][decom.ManifestKey(r.Token)] = decom.NewManifest(r.Token, r.ReceiptPaths()).Encode()
}

// ReceiptKey is the receipt key of the source record at key.
func (r *Run) ReceiptKey(key string) string {
	rec, err := decom.RecordCheckpoint(key, r.Pools[Source][key])
	if err != nil {
		panic(err)
	}
	return rec.ReceiptKey(r.Token)
}

// MissingReceipt removes the scope's receipt from the target.
func (r *Run) MissingReceipt() *Run { delete(r.Pools[TargetA], r.ReceiptKey(ScopeKey)); return r }

// ExtraReceipt adds a receipt to the target for a record the run never
// expected (a second job id).
func (r *Run) ExtraReceipt() *Run {
	j := job()
	j.JobID = "f0000000-0000-4000-8000-0000000000ff"
	key := ilmpath.ManualJobKey(j.JobID)
	rec, err := decom.RecordCheckpoint(key, j.Encode())
	if err != nil {
		panic(err)
	}
	rc := &decom.Receipt{SourcePath: key, Namespace: rec.Namespace, IDKind: rec.IDKind, ID: rec.ID, Checkpoint: rec.Checkpoint.Encode()}
	r.Pools[TargetA][rec.ReceiptKey(r.Token)] = rc.Encode()
	r.Pools[TargetA][key] = j.Encode()
	return r
}

// DigestMismatch rewrites the manifest with the right count and the digest
// of another path set.
func (r *Run) DigestMismatch() *Run {
	paths := r.ReceiptPaths()
	paths[0] += ".stale"
	m := decom.NewManifest(r.Token, paths)
	r.Pools[Source][decom.ManifestKey(r.Token)] = m.Encode()
	return r
}

// NonSuccessor rewrites the target receipt of TxUploaded with a checkpoint
// that skips past the legal revision (committed at revision 9).
func (r *Run) NonSuccessor() *Run {
	bad := transaction(1, transition.Committed, 4)
	rec, err := decom.RecordCheckpoint(TxUploaded, bad.Encode())
	if err != nil {
		panic(err)
	}
	rec.Checkpoint.Revision = 9
	rc := &decom.Receipt{SourcePath: TxUploaded, Namespace: rec.Namespace, IDKind: rec.IDKind, ID: rec.ID, Checkpoint: rec.Checkpoint.Encode()}
	r.Pools[TargetA][rec.ReceiptKey(r.Token)] = rc.Encode()
	return r
}

// TerminalHidesTarget puts a nonterminal copy of TxTerminal on target-b,
// beside target-a's terminal receipt.
func (r *Run) TerminalHidesTarget() *Run {
	r.Pools[TargetB][TxTerminal] = transaction(2, transition.LocalCommitStarted, 3).Encode()
	return r
}

// ReceiptAdvanced moves TxUploaded's target receipt one legal step, to the
// generation its target copy holds, as a protocol writer does while the
// run is active; the run stays complete.
func (r *Run) ReceiptAdvanced() *Run {
	rec, err := decom.RecordCheckpoint(TxUploaded, r.Pools[TargetA][TxUploaded])
	if err != nil {
		panic(err)
	}
	rc := &decom.Receipt{SourcePath: TxUploaded, Namespace: rec.Namespace, IDKind: rec.IDKind, ID: rec.ID, Checkpoint: rec.Checkpoint.Encode()}
	r.Pools[TargetA][rec.ReceiptKey(r.Token)] = rc.Encode()
	return r
}

// TerminalHidesReceipt puts on target-b a receipt for TxTerminal without
// its terminal checkpoint, beside target-a's terminal one.
func (r *Run) TerminalHidesReceipt() *Run {
	rec, err := decom.RecordCheckpoint(TxTerminal, r.Pools[Source][TxTerminal])
	if err != nil {
		panic(err)
	}
	rc := &decom.Receipt{SourcePath: TxTerminal, Namespace: rec.Namespace, IDKind: rec.IDKind, ID: rec.ID, Checkpoint: rec.Checkpoint.Encode()}
	r.Pools[TargetB][rec.ReceiptKey(r.Token)] = rc.Encode()
	return r
}

// DivergentCopies puts a different generation of the job on target-b.
func (r *Run) DivergentCopies() *Run {
	j := job()
	j.UpdatedAtUnixNanos++
	r.Pools[TargetB][JobKey] = j.Encode()
	return r
}

// Unregistered adds a key under ilm/ that no durable namespace registers.
func (r *Run) Unregistered() *Run {
	r.Pools[Source]["ilm/future-durable/jobs/one.json"] = []byte(`{"v":1}`)
	return r
}

// CorruptReceipt flips one checkpoint byte of the job's target receipt, so
// its checksum no longer matches.
func (r *Run) CorruptReceipt() *Run {
	k := r.ReceiptKey(JobKey)
	b := []byte(strings.Replace(string(r.Pools[TargetA][k]), `"state":"running"`, `"state":"failed"`, 1))
	r.Pools[TargetA][k] = b
	return r
}
