package journal

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

var update = flag.Bool("update", false, "rewrite testdata/ilm fixtures")

// fixtureNow is the fixed clock every fixture is classified at.
var fixtureNowNanos int64 = 1_750_000_000_000_000_000

func sp(s string) *string { return &s }

func bid(b byte) *[32]byte {
	var x [32]byte
	for i := range x {
		x[i] = b
	}
	return &x
}

func vs(v tierdelete.VersionState) *tierdelete.VersionState { return &v }
func js(s tierdelete.State) *tierdelete.State               { return &s }
func bp(b bool) *bool                                       { return &b }

func source(obj string) *tierdelete.Source {
	return &tierdelete.Source{Bucket: "photos", Object: obj, VersionID: sp("11111111-2222-4333-8444-555555555555"), Versioned: true,
		DataDir: sp("66666666-7777-4888-9999-aaaaaaaaaaaa"), ETag: sp("etag-" + obj), ModTime: sp("2025-06-01T00:00:00Z")}
}

type fixture struct {
	pool string // "pool-a" or "pool-b" or "both"
	key  string
	data []byte
	// expected classification/decision
	class    Classification
	decision Decision
}

const topo = "abababababababababababababababababababababababababababababababab"

// buildFixtures returns every fixture record. Keys are canonical unless
// the case is about a bad path.
func buildFixtures() []fixture {
	var fx []fixture
	add := func(pool, key string, data []byte, c Classification, d Decision) {
		fx = append(fx, fixture{pool, key, data, c, d})
	}
	j := func(j *tierdelete.Journal) (string, []byte) { return j.CanonicalKey(), j.Encode() }

	// Journals v1..v5.
	k, d := j(&tierdelete.Journal{Version: 1, ObjName: "remote/v1", VersionID: "", TierName: "WARM"})
	add("pool-a", k, d, RetainedAmbiguous, QuarantineRetain)
	k, d = j(&tierdelete.Journal{Version: 2, ObjName: "remote/v2", TierName: "WARM", BackendIdentity: bid(2)})
	add("pool-a", k, d, RetainedAmbiguous, QuarantineRetain)
	k, d = j(&tierdelete.Journal{Version: 3, ObjName: "remote/v3", VersionID: "rv3", TierName: "WARM", BackendIdentity: bid(3), VersionIDExact: bp(true)})
	add("pool-a", k, d, Recoverable, DeleteRemoteIdempotent)
	k, d = j(&tierdelete.Journal{Version: 4, ObjName: "remote/v4", VersionID: "", TierName: "WARM", BackendIdentity: bid(4), VersionState: vs(tierdelete.VersionKnownDisabled)})
	add("pool-a", k, d, Recoverable, DeleteRemoteIdempotent)
	k, d = j(&tierdelete.Journal{Version: 4, ObjName: "remote/v4u", VersionID: "x", TierName: "WARM", BackendIdentity: bid(4), VersionState: vs(tierdelete.VersionUnknown)})
	add("pool-a", k, d, RetainedAmbiguous, Retain)
	for _, st := range []tierdelete.State{tierdelete.Prepared, tierdelete.Dispatched, tierdelete.Committed} {
		k, d = j(&tierdelete.Journal{Version: 5, ObjName: "remote/v5-" + string(st), VersionID: "null", TierName: "WARM", BackendIdentity: bid(5),
			VersionIDExact: bp(true), VersionState: vs(tierdelete.VersionSuspendedNull), State: js(st), Source: source("v5-" + string(st))})
		add("pool-a", k, d, NeedsSourceProof, Retain)
	}

	// A single-dispatch manifest per state with v6 members.
	inc := "0f0f0f0f-0000-4000-8000-000000000001"
	mk := func(op, prefix string, st tierdelete.ManifestState, memberStates []tierdelete.State, chunk bool) {
		var names []string
		var members [][2]string
		for i, ms := range memberStates {
			jr := &tierdelete.Journal{Version: 6, ObjName: "remote/" + prefix + string(rune('a'+i)), VersionID: "rv-" + prefix, TierName: "COLD", BackendIdentity: bid(6),
				VersionIDExact: bp(true), VersionState: vs(tierdelete.VersionExact), State: js(ms), Source: source(prefix + string(rune('a'+i))),
				Dispatch: &tierdelete.Dispatch{OperationID: op, TopologyGeneration: topo}}
			members = append(members, [2]string{jr.CanonicalKey(), ""})
			names = append(names, jr.CanonicalKey())
			_ = jr
		}
		sortStrings(names)
		m := &tierdelete.Manifest{Version: 1, OperationID: op, Bucket: "photos", BucketIncarnation: inc, Prefix: prefix,
			JournalNames: names, JournalSetSHA256: ilmpath.JournalSetSHA256(names), JournalCount: uint64(len(names)), TopologyGeneration: topo, State: st}
		mkey := m.RootKey()
		if chunk {
			mkey = m.ChunkKey()
		}
		for i, ms := range memberStates {
			jr := &tierdelete.Journal{Version: 6, ObjName: "remote/" + prefix + string(rune('a'+i)), VersionID: "rv-" + prefix, TierName: "COLD", BackendIdentity: bid(6),
				VersionIDExact: bp(true), VersionState: vs(tierdelete.VersionExact), State: js(ms), Source: source(prefix + string(rune('a'+i))),
				Dispatch: &tierdelete.Dispatch{OperationID: op, ManifestObject: mkey, JournalSetSHA256: m.JournalSetSHA256, TopologyGeneration: topo}}
			c, dd := journalExpect(ms, st)
			add("pool-a", jr.CanonicalKey(), jr.Encode(), c, dd)
		}
		_ = members
		c, dd := manifestExpect(st, memberStates)
		if !chunk {
			add("pool-a", mkey, m.Encode(), c, dd)
		} else {
			fx = append(fx, fixture{"pool-a", mkey, m.Encode(), c, dd})
		}
	}
	mk("a0000000-0000-4000-8000-000000000001", "prep/", tierdelete.Preparing, []tierdelete.State{tierdelete.Prepared}, false)
	mk("a0000000-0000-4000-8000-000000000002", "abrt/", tierdelete.Aborting, []tierdelete.State{tierdelete.Prepared}, false)
	mk("a0000000-0000-4000-8000-000000000003", "abtd/", tierdelete.Aborted, nil, false)
	mk("a0000000-0000-4000-8000-000000000004", "auth/", tierdelete.DispatchAuthorized, []tierdelete.State{tierdelete.Dispatched, tierdelete.Committed}, false)
	mk("a0000000-0000-4000-8000-000000000005", "allc/", tierdelete.DispatchAuthorized, []tierdelete.State{tierdelete.Committed}, false)
	mk("a0000000-0000-4000-8000-000000000006", "done/", tierdelete.ManifestCompleted, []tierdelete.State{tierdelete.Committed}, false)
	mk("a0000000-0000-4000-8000-000000000007", "gone/", tierdelete.ManifestCompleted, nil, false)

	// Chunk parents.
	parent := func(prefix string, st tierdelete.ParentState, child *tierdelete.Manifest, c Classification, d Decision) {
		p := &tierdelete.Parent{Version: 1, OperationID: "b0000000-0000-4000-8000-000000000001", Bucket: "photos", BucketIncarnation: inc, Prefix: prefix,
			TopologyGeneration: topo, Revision: 3, NextChunkSequence: 2, CompletedJournalCount: 10, State: st}
		if child != nil {
			p.ActiveChunk = &tierdelete.ChildBinding{Sequence: 1, OperationID: child.OperationID, ManifestObject: child.ChunkKey(), JournalSetSHA256: child.JournalSetSHA256, JournalCount: child.JournalCount}
		}
		add("pool-a", p.RootKey(), p.Encode(), c, d)
	}
	parent("pnone/", tierdelete.ParentActive, nil, Active, RetainAndRescan)
	parent("pdone/", tierdelete.ParentCompleted, nil, Terminal, DeleteRecord)
	for i, cs := range []struct {
		st tierdelete.ManifestState
		c  Classification
		d  Decision
	}{
		{tierdelete.Preparing, Active, RetainForChildRollback},
		{tierdelete.DispatchAuthorized, Active, WaitForChildCompletion},
		{tierdelete.ManifestCompleted, Recoverable, AdvanceParent},
	} {
		prefix := "pc" + string(rune('0'+i)) + "/"
		op := "c0000000-0000-4000-8000-00000000000" + string(rune('1'+i))
		child := &tierdelete.Manifest{Version: 1, OperationID: op, Bucket: "photos", BucketIncarnation: inc, Prefix: prefix,
			JournalNames: []string{}, JournalSetSHA256: ilmpath.JournalSetSHA256(nil), TopologyGeneration: topo, State: cs.st}
		parent(prefix, tierdelete.ParentActive, child, cs.c, cs.d)
		cc, cd := manifestExpect(cs.st, nil)
		add("pool-a", child.ChunkKey(), child.Encode(), cc, cd)
	}
	// Bound child missing, namespace empty.
	ghost := &tierdelete.Manifest{Version: 1, OperationID: "c0000000-0000-4000-8000-0000000000ff", Bucket: "photos", BucketIncarnation: inc, Prefix: "pmiss/",
		JournalSetSHA256: ilmpath.JournalSetSHA256(nil), TopologyGeneration: topo}
	parent("pmiss/", tierdelete.ParentActive, ghost, Recoverable, ClearStaleBinding)

	// Transition transactions.
	tx := func(n byte, st transition.State, rev uint64, rv transition.RemoteVersion, notAfter int64, c Classification, d Decision) {
		id := "d0000000-0000-4000-8000-0000000000" + string([]byte{"0123456789abcdef"[n>>4], "0123456789abcdef"[n&15]})
		t := &transition.Transaction{DeploymentID: "e0000000-0000-4000-8000-000000000001", TransactionID: id, Revision: rev,
			OwnerEpoch: "e0000000-0000-4000-8000-000000000002", WriteID: "e0000000-0000-4000-8000-000000000003",
			Source: transition.Source{Bucket: "photos", Object: "cat.jpg", VersionID: sp("11111111-2222-4333-8444-555555555555"), DataDir: "66666666-7777-4888-9999-aaaaaaaaaaaa",
				ModTimeUnixNanos: 1_700_000_000_000_000_000, Size: 42, ETag: "abc", VersionMode: transition.ModeVersioned},
			TierName: "WARM", BackendFingerprint: *bid(9), RemoteVersion: rv, State: st, NotAfterUnixNanos: notAfter}
		t.RemoteObject = ilmpath.TransitionRemoteObject(t.DeploymentID, t.Source.Bucket, t.TransactionID, t.WriteID)
		add("pool-a", ilmpath.TransitionKey(id), t.Encode(), c, d)
	}
	unk := transition.RemoteVersion{Kind: transition.RemoteUnknown}
	ver := transition.RemoteVersion{Kind: transition.RemoteVersioned, VersionID: sp("remote-v1")}
	past, future := fixtureNowNanos-1, fixtureNowNanos+3_600_000_000_000
	tx(1, transition.UploadStarted, 1, unk, future, Active, Retain)
	tx(2, transition.UploadOutcomeUnknown, 2, unk, future, Active, Retain)
	tx(3, transition.UploadOutcomeUnknown, 2, unk, past, OperatorRequired, ProbeRemoteCandidate)
	tx(4, transition.Uploaded, 2, ver, future, Active, Retain)
	tx(5, transition.Uploaded, 3, ver, past, Recoverable, CleanupPendingThenDelete)
	tx(6, transition.LocalCommitStarted, 3, ver, past, NeedsSourceProof, Retain)
	tx(7, transition.CleanupPending, 4, ver, past, NeedsSourceProof, Retain)
	tx(8, transition.Committed, 5, ver, past, Terminal, DeleteRecord)
	tx(9, transition.AbortedNoRemote, 2, unk, past, Terminal, DeleteRecord)

	// Manual job records.
	job := &manualjob.Job{JobID: "f0000000-0000-4000-8000-000000000001", ScopeKey: ilmpath.ManualScopeDigest("photos", false), Bucket: "photos",
		Tier: sp("WARM"), OwnerID: "node-1", LeaseID: "f0000000-0000-4000-8000-000000000002", LeaseExpiresAtUnixNanos: past,
		State: manualjob.Running, CreatedAtUnixNanos: past - 10, UpdatedAtUnixNanos: past - 5,
		Report: []byte(`{"bucket":"photos","scanned":3}`), QueueSnapshot: []byte(`{"queued":0}`)}
	add("pool-a", ilmpath.ManualJobKey(job.JobID), job.Encode(), Recoverable, TakeOver)
	task := &manualjob.Task{Schema: manualjob.TaskSchema, JobID: job.JobID, TaskKey: ilmpath.ManualTaskDigest("photos", "cat.jpg", ""), Bucket: "photos", Object: "cat.jpg",
		StorageClass: "WARM", QueuedAtUnixNanos: past}
	add("pool-a", ilmpath.ManualTaskKey(task.JobID, task.TaskKey), task.Encode(), Active, ReplayIfNoResult)
	// One job per design row (§ Manual transition job: Recovery decisions),
	// each on its own bucket so scope admissions do not collide.
	mjob := func(n byte, bucket string, st manualjob.JobState, leaseEnd int64, mut func(*manualjob.Job), c Classification, d Decision) *manualjob.Job {
		j := *job
		j.JobID = "f0000000-0000-4000-8000-00000000000" + string(rune('0'+n))
		j.ScopeKey, j.Bucket, j.State, j.LeaseExpiresAtUnixNanos = ilmpath.ManualScopeDigest(bucket, false), bucket, st, leaseEnd
		if mut != nil {
			mut(&j)
		}
		add("pool-a", ilmpath.ManualJobKey(j.JobID), j.Encode(), c, d)
		return &j
	}
	scope := func(j *manualjob.Job, leaseEnd int64, c Classification, d Decision) {
		s := &manualjob.Scope{Schema: manualjob.JobSchema, ScopeKey: j.ScopeKey, JobID: j.JobID, LeaseID: j.LeaseID, OwnerID: j.OwnerID,
			Bucket: j.Bucket, Tier: j.Tier, LeaseExpiresAtUnixNanos: leaseEnd, UpdatedAtUnixNanos: past - 5}
		add("pool-a", ilmpath.ManualScopeKey(s.ScopeKey), s.Encode(), c, d)
	}
	done := mjob(2, "photos", manualjob.Completed, past, func(j *manualjob.Job) { j.CompletedAtUnixNanos = &j.UpdatedAtUnixNanos }, Terminal, SkipTerminal)
	scope(done, past, Terminal, SkipTerminal) // leftover scope of a terminal job: startup recovery skips it, a claimant replaces it
	live := mjob(3, "videos", manualjob.Running, future, nil, Active, LeaveToOwner)
	scope(live, future, Active, LeaveToOwner)
	mjob(4, "docs", manualjob.Running, future, nil, Active, LeaveToOwner) // live lease, no scope admission
	scanned := mjob(5, "music", manualjob.Running, past, func(j *manualjob.Job) { j.ScanCompleted = true }, Recoverable, ReconcileResults)
	cancelled := mjob(6, "logs", manualjob.Running, past, func(j *manualjob.Job) { j.CancelRequested = true }, Recoverable, CancelJob)
	doneTask := &manualjob.Task{Schema: manualjob.TaskSchema, JobID: scanned.JobID, TaskKey: ilmpath.ManualTaskDigest("music", "song.mp3", ""), Bucket: "music", Object: "song.mp3",
		StorageClass: "WARM", QueuedAtUnixNanos: past}
	add("pool-a", ilmpath.ManualTaskKey(doneTask.JobID, doneTask.TaskKey), doneTask.Encode(), Terminal, RetainHistory)
	res := &manualjob.Result{Schema: manualjob.ResultSchema, JobID: scanned.JobID, TaskKey: doneTask.TaskKey, Result: manualjob.OutcomeTierFailure,
		FailureReason: sp("timeout"), CompletedAtUnixNanos: past}
	add("pool-a", ilmpath.ManualResultKey(res.JobID, res.TaskKey), res.Encode(), Terminal, RetainHistory)

	// Malformations (all corrupt).
	good3 := &tierdelete.Journal{Version: 3, ObjName: "remote/bad", VersionID: "rv", TierName: "WARM", BackendIdentity: bid(3), VersionIDExact: bp(true)}
	gk := good3.CanonicalKey()
	corrupt := func(key string, data []byte) { add("pool-a", key, data, Corrupt, Retain) }
	enc := string(good3.Encode())
	corrupt(strings.Replace(gk, ".json", "", 1)[:len(gk)-6]+"00.json", []byte(enc))                                                    // path disagrees with payload
	corrupt(gk, []byte(strings.Replace(enc, `}`, `,"extra":1}`, 1)))                                                                   // unknown field
	corrupt("ilm/tier-delete-journal/"+strings.Repeat("1", 64)+".json", []byte(strings.Replace(enc, `"version":3`, `"version":7`, 1))) // unsupported version
	corrupt("ilm/tier-delete-journal/"+strings.Repeat("2", 64)+".json", []byte(`{"version":4,"obj_name":"o","version_id":"","tier_name":"T","backend_identity":null,"version_state":"exact"}`))
	corrupt("ilm/tier-delete-journal/"+strings.ToUpper(strings.Repeat("ab", 32))+".json", []byte(enc)) // uppercase alias
	corrupt("ilm/tier-delete-journal/extra/"+strings.Repeat("3", 64)+".json", []byte(enc))             // extra component
	corrupt("ilm/not-a-namespace/x.json", []byte(`{}`))                                                // unregistered
	// Manual-job parity with RustFS's readers. A job or scope whose lease
	// expires exactly now is still live: RustFS expires a lease only when
	// now is later than its expiry.
	mjobID := func(id, bucket string, st manualjob.JobState, leaseEnd int64, mut func(*manualjob.Job)) *manualjob.Job {
		j := *job
		j.JobID, j.LeaseID = id, "e0000000-0000-4000-8000-"+id[len(id)-12:]
		j.ScopeKey, j.Bucket, j.State, j.LeaseExpiresAtUnixNanos = ilmpath.ManualScopeDigest(bucket, false), bucket, st, leaseEnd
		if mut != nil {
			mut(&j)
		}
		return &j
	}
	addJob := func(j *manualjob.Job, c Classification, d Decision) {
		add("pool-a", ilmpath.ManualJobKey(j.JobID), j.Encode(), c, d)
	}
	atInstant := mjobID("f1000000-0000-4000-8000-000000000001", "instant", manualjob.Running, fixtureNowNanos, nil)
	addJob(atInstant, Active, LeaveToOwner)
	scope(atInstant, fixtureNowNanos, Active, LeaveToOwner)
	// A scope whose job's lease expired follows the job's takeover row.
	expired := mjobID("f1000000-0000-4000-8000-000000000002", "expired", manualjob.Running, past, nil)
	addJob(expired, Recoverable, TakeOver)
	scope(expired, past, Recoverable, TakeOver)
	// A scope under the legacy key format (bucket, prefix, upper-cased tier,
	// run mode), as carried by a live job, is honoured like a current one.
	legacy := mjobID("f1000000-0000-4000-8000-000000000003", "media", manualjob.Running, future, func(j *manualjob.Job) {
		j.Prefix, j.Tier = "legacy/", sp("warm")
		j.ScopeKey = ilmpath.ManualScopeLegacyDigest(j.Bucket, j.Prefix, j.Tier, false)
	})
	addJob(legacy, Active, LeaveToOwner)
	ls := &manualjob.Scope{Schema: manualjob.JobSchema, ScopeKey: legacy.ScopeKey, JobID: legacy.JobID, LeaseID: legacy.LeaseID, OwnerID: legacy.OwnerID,
		Bucket: legacy.Bucket, Prefix: legacy.Prefix, Tier: legacy.Tier, LeaseExpiresAtUnixNanos: future, UpdatedAtUnixNanos: past}
	add("pool-a", ilmpath.ManualScopeKey(ls.ScopeKey), ls.Encode(), Active, LeaveToOwner)
	// Scopes naming a job with no record: live while the scope lease is,
	// then a leftover the next claimant replaces.
	orphan := func(bucket string, leaseEnd int64, c Classification, d Decision) {
		s := &manualjob.Scope{Schema: manualjob.JobSchema, ScopeKey: ilmpath.ManualScopeDigest(bucket, false), JobID: "f1000000-0000-4000-8000-0000000000ff",
			LeaseID: "e1000000-0000-4000-8000-0000000000ff", OwnerID: "node-9", Bucket: bucket, LeaseExpiresAtUnixNanos: leaseEnd, UpdatedAtUnixNanos: past}
		add("pool-a", ilmpath.ManualScopeKey(s.ScopeKey), s.Encode(), c, d)
	}
	orphan("orphan-live", fixtureNowNanos, Active, LeaveToOwner)
	orphan("orphan-expired", past, Terminal, SkipTerminal)
	// A scope naming a corrupt job cannot be released or replaced by RustFS.
	badJob := mjobID("f1000000-0000-4000-8000-000000000004", "badjob", manualjob.Cancelled, past, func(j *manualjob.Job) { j.CompletedAtUnixNanos = &j.UpdatedAtUnixNanos })
	corrupt(ilmpath.ManualJobKey(badJob.JobID), badJob.Encode()) // cancelled without cancel_requested
	scope(badJob, past, OperatorRequired, Retain)
	// Consistency rules RustFS's job validation applies, one refused record each.
	for i, mut := range []func(*manualjob.Job){
		func(j *manualjob.Job) { j.OwnerID = "  " },                                       // blank owner_id
		func(j *manualjob.Job) { j.ScopeKey = ilmpath.ManualScopeDigest("other", false) }, // scope key of another scope
		func(j *manualjob.Job) { j.ScopeKey = "" },                                        // empty scope key
	} {
		b := mjobID(fmt.Sprintf("f2000000-0000-4000-8000-%012d", i+1), "rules", manualjob.Running, future, mut)
		corrupt(ilmpath.ManualJobKey(b.JobID), b.Encode())
	}
	// RustFS accepts a job checksum computed before the report gained
	// tier_failure_by_reason.
	old := mjobID("f1000000-0000-4000-8000-000000000005", "oldsum", manualjob.Completed, past, func(j *manualjob.Job) { j.CompletedAtUnixNanos = &j.UpdatedAtUnixNanos })
	add("pool-a", ilmpath.ManualJobKey(old.JobID), []byte(strings.Replace(string(old.Encode()), `"scanned":3}`, `"scanned":3,"tier_failure_by_reason":{}}`, 1)), Terminal, SkipTerminal)

	badTx := strings.Replace(string(fxData(fx, ilmpath.TransitionKey("d0000000-0000-4000-8000-000000000008"))), `"revision":5`, `"revision":6`, 1)
	corrupt(ilmpath.TransitionKey("d0000000-0000-4000-8000-000000000008")[:37]+"zz/"+ilmpath.TransitionKey("d0000000-0000-4000-8000-000000000008")[40:], []byte(badTx)) // mis-sharded
	corrupt(ilmpath.TransitionKey("d0000000-0000-4000-8000-0000000000aa"), []byte(strings.Replace(badTx, "rustfs-transition-transaction-v1", "rustfs-transition-transaction-v2", 1)))
	corrupt(ilmpath.TransitionKey("d0000000-0000-4000-8000-0000000000bb"), []byte(badTx)) // bad checksum

	// Manual-job malformations.
	jk := ilmpath.ManualJobKey(job.JobID)
	corrupt(jk[:27]+strings.ToUpper(jk[27:65])+".json", job.Encode()) // uppercase alias of a live job
	tampered := *job
	tampered.JobID = "f0000000-0000-4000-8000-000000000007"
	corrupt(ilmpath.ManualJobKey(tampered.JobID), []byte(strings.Replace(string(tampered.Encode()), `"scanned":3`, `"scanned":4`, 1))) // bad checksum
	wrongScope := &manualjob.Scope{Schema: manualjob.JobSchema, ScopeKey: ilmpath.ManualScopeDigest("photos", true), JobID: job.JobID, LeaseID: job.LeaseID,
		OwnerID: job.OwnerID, Bucket: "photos", LeaseExpiresAtUnixNanos: future, UpdatedAtUnixNanos: past}
	corrupt(ilmpath.ManualScopeKey(wrongScope.ScopeKey), wrongScope.Encode()) // scope_key is not the digest of (bucket, dry_run)
	// A task whose worker result is corrupt has neither a usable result nor
	// a proven absence of one.
	cTask := &manualjob.Task{Schema: manualjob.TaskSchema, JobID: cancelled.JobID, TaskKey: ilmpath.ManualTaskDigest("logs", "app.log", ""), Bucket: "logs", Object: "app.log",
		StorageClass: "WARM", QueuedAtUnixNanos: past}
	add("pool-a", ilmpath.ManualTaskKey(cTask.JobID, cTask.TaskKey), cTask.Encode(), OperatorRequired, Retain)
	cRes := &manualjob.Result{Schema: manualjob.ResultSchema, JobID: cTask.JobID, TaskKey: cTask.TaskKey, Result: manualjob.OutcomeTierFailure, FailureReason: sp("exploded"), CompletedAtUnixNanos: past}
	corrupt(ilmpath.ManualResultKey(cRes.JobID, cRes.TaskKey), cRes.Encode()) // unknown failure reason

	// Two pools disagreeing about one record.
	dis := &tierdelete.Journal{Version: 4, ObjName: "remote/split", VersionID: "v", TierName: "WARM", BackendIdentity: bid(4), VersionIDExact: bp(true), VersionState: vs(tierdelete.VersionExact)}
	add("pool-a", dis.CanonicalKey(), dis.Encode(), OperatorRequired, Retain)
	fx = append(fx, fixture{"pool-b", dis.CanonicalKey(), append(dis.Encode(), ' '), OperatorRequired, Retain})
	return fx
}

func fxData(fx []fixture, key string) []byte {
	for _, f := range fx {
		if f.key == key {
			return f.data
		}
	}
	return nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func journalExpect(js tierdelete.State, ms tierdelete.ManifestState) (Classification, Decision) {
	switch {
	case js == tierdelete.Prepared:
		return Active, RetainForManifest
	case ms != tierdelete.DispatchAuthorized && ms != tierdelete.ManifestCompleted:
		return Active, RetainForManifest
	case js == tierdelete.Committed && ms == tierdelete.DispatchAuthorized:
		return Active, WaitForManifest
	}
	return NeedsSourceProof, Retain
}

func manifestExpect(st tierdelete.ManifestState, members []tierdelete.State) (Classification, Decision) {
	switch st {
	case tierdelete.Preparing:
		return Recoverable, SealAborting
	case tierdelete.Aborting:
		return Recoverable, ContinueRollback
	case tierdelete.Aborted:
		if len(members) == 0 {
			return Terminal, DeleteRecord
		}
		return Terminal, DeleteRecordAfterMembersAbsent
	case tierdelete.DispatchAuthorized:
		for _, m := range members {
			if m != tierdelete.Committed {
				return Active, WaitForMembersCommitted
			}
		}
		return Recoverable, MarkCompleted
	}
	if len(members) == 0 {
		return Terminal, DeleteRecord
	}
	return Terminal, WaitForMembersAbsent
}

// writeFixtures materializes fixtures under dir/<pool>/<key>.
func writeFixtures(dir string, fx []fixture) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, f := range fx {
		p := filepath.Join(dir, f.pool, filepath.FromSlash(f.key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func readFixture(dir string, f fixture) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, f.pool, filepath.FromSlash(f.key)))
}
