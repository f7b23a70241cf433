// Package journal scans every metadata pool for durable ILM records (and
// the decommission namespace beside them), decodes each one strictly and
// classifies it with the recovery decision its current state and evidence
// select (docs/design/ilm-records.md#decisions). It is read-only: it never
// writes, deletes or calls a backend.
//
// The classification and decision vocabularies are a stable interface
// (docs/journal.md); scripts read them from `ilmctl journal ls -o json`.
package journal

// Classification says who may act on a record now.
type Classification string

// Classifications.
const (
	// Active: the record's live owner may still act; leave it alone.
	Active Classification = "active"
	// Recoverable: automatic recovery would act on it now.
	Recoverable Classification = "recoverable"
	// Terminal: only record cleanup remains.
	Terminal Classification = "terminal"
	// RetainedAmbiguous: evidence cannot identify a safe action (unknown
	// remote version, multiple possible owners); retained indefinitely.
	RetainedAmbiguous Classification = "retained_ambiguous"
	// OperatorRequired: destructive evidence is incomplete or inconsistent
	// (missing manifest, pools disagree); an operator must look.
	OperatorRequired Classification = "operator_required"
	// Corrupt: bytes or path failed strict decoding; never cleanup authority.
	Corrupt Classification = "corrupt"
	// NeedsSourceProof: the decision depends on an all-pool source /
	// free-version lookup that was not performed (no --filer).
	NeedsSourceProof Classification = "needs_source_proof"
)

// Classifications lists every classification in display order.
var Classifications = []Classification{Active, Recoverable, Terminal, RetainedAmbiguous, OperatorRequired, Corrupt, NeedsSourceProof}

// Decision names, in snake_case, the "current recovery decision" row
// that applies (docs/design/ilm-records.md#decisions).
type Decision string

// Decisions. Each comment cites the design row.
const (
	// Journal v1/v2, any state: "Quarantine and retain".
	QuarantineRetain Decision = "quarantine_retain"
	// Retain with no actor (unknown semantics, source present, mismatch,
	// corruption, read uncertainty).
	Retain Decision = "retain"
	// v5 Prepared with source present: "Abort exact record".
	AbortRecord Decision = "abort_record"
	// v5 Prepared/Dispatched with source absent: "CAS Committed, then delete".
	CommitThenDeleteRemote Decision = "commit_then_delete_remote"
	// v3/v4 Committed known semantics; v5/v6 Committed with source absent
	// (v6 with Completed manifest): "Idempotent remote delete".
	DeleteRemoteIdempotent Decision = "delete_remote_idempotent"
	// v6 Prepared: "Retain for manifest coordinator".
	RetainForManifest Decision = "retain_for_manifest"
	// v6 Dispatched with authorized/completed manifest, source absent:
	// "CAS Committed, release worker locks, wait for manifest coordinator".
	CommitThenWaitForManifest Decision = "commit_then_wait_for_manifest"
	// v6 Committed whose manifest is still DispatchAuthorized.
	WaitForManifest Decision = "wait_for_manifest"
	// Manifest Preparing: "Seal Aborting, delete the staged set, mark Aborted".
	SealAborting Decision = "seal_aborting"
	// Manifest Aborting: "Continue exact whole-set rollback".
	ContinueRollback Decision = "continue_rollback"
	// Manifest Aborted: "Verify staged journals are absent, then
	// conditionally delete manifest".
	DeleteRecordAfterMembersAbsent Decision = "delete_record_after_members_absent"
	// Manifest DispatchAuthorized: "Wait until all members Committed, then
	// CAS Completed".
	WaitForMembersCommitted Decision = "wait_for_members_committed"
	// Manifest DispatchAuthorized with every member Committed.
	MarkCompleted Decision = "mark_completed"
	// Manifest Completed: "Wait for all member records to disappear".
	WaitForMembersAbsent Decision = "wait_for_members_absent"
	// Terminal record cleanup only (transaction committed/aborted,
	// completed manifest with no members, completed parent).
	DeleteRecord Decision = "delete_record"
	// Parent Active, no child: "Retain the parent and rescan".
	RetainAndRescan Decision = "retain_and_rescan"
	// Parent with bound Preparing/Aborting/Aborted child.
	RetainForChildRollback Decision = "retain_for_child_rollback"
	// Parent with bound DispatchAuthorized child.
	WaitForChildCompletion Decision = "wait_for_child_completion"
	// Parent with bound Completed child: "CAS next sequence/count, clear binding".
	AdvanceParent Decision = "advance_parent"
	// Bound child missing and its journal namespace proven empty.
	ClearStaleBinding Decision = "clear_stale_binding"
	// Transaction upload_outcome_unknown after expiry: an identity-bound
	// provider probe decides (ilmctl makes no backend call).
	ProbeRemoteCandidate Decision = "probe_remote_candidate"
	// Transaction uploaded after expiry: "persist CleanupPending, then
	// recheck and delete the unreferenced candidate or record".
	CleanupPendingThenDelete Decision = "cleanup_pending_then_delete"
	// Transaction cleanup_pending with source absent or differing:
	// "Delete exact candidate, then record".
	DeleteCandidateThenRecord Decision = "delete_candidate_then_record"
	// Manual job: "Leave it to the current owner".
	LeaveToOwner Decision = "leave_to_owner"
	// Manual job terminal: "Startup recovery skips the job".
	SkipTerminal Decision = "skip_terminal"
	// Expired running job, scan completed: reconcile task/result journals.
	ReconcileResults Decision = "reconcile_results"
	// Expired running job with cancel requested: CAS Cancelled.
	CancelJob Decision = "cancel_job"
	// Expired non-cancelled running job: direct takeover CAS.
	TakeOver Decision = "take_over"
	// Task without result: "Replay idempotently" (under the job's owner).
	ReplayIfNoResult Decision = "replay_if_no_result"
	// Task/result history with no GC owner.
	RetainHistory Decision = "retain_history"
)
