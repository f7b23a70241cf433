package journal

import (
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/manualjob"
)

// job classifies a manual transition job by the startup-recovery rows
// (docs/design/ilm-records.md#manual-transition-job).
func (c *classifier) job(e *entry, j *manualjob.Job) {
	r := jobRow(j, c.now)
	if r.d == LeaveToOwner && c.byKey[ilmpath.ManualScopeKey(j.ScopeKey)] == nil {
		r.why = "lease live but no scope admission; skipped until expiry"
	}
	setOut(e, r.c, r.d, r.why)
}

// jobRow is the row a decoded job's state and lease select.
func jobRow(j *manualjob.Job, now time.Time) row {
	switch {
	case j.State.Terminal():
		return row{Terminal, SkipTerminal, "terminal job history"}
	case leaseLive(now, j.LeaseExpiresAtUnixNanos):
		return row{Active, LeaveToOwner, "lease is live"}
	case j.ScanCompleted:
		return row{Recoverable, ReconcileResults, "expired; scan completed"}
	case j.CancelRequested:
		return row{Recoverable, CancelJob, "expired with cancel requested"}
	}
	return row{Recoverable, TakeOver, "expired lease"}
}

// scope classifies a scope admission by the job it names, looked up in
// the same scan, because RustFS never recovers a scope on its own: the
// job's recovery releases or re-claims it, and a claimant replaces it
// once it proves the named job terminal, or the scope's and job's leases
// both expired (claim_manual_transition_scope_admission). DecidedBy names
// the job record whose row decided.
func (c *classifier) scope(e *entry, s *manualjob.Scope) {
	jobKey := ilmpath.ManualJobKey(s.JobID)
	je := c.byKey[jobKey]
	j := as[manualjob.Job](je)
	switch {
	case j != nil:
		e.rec.DecidedBy = jobKey
		r := jobRow(j, c.now)
		switch r.c {
		case Terminal:
			setOut(e, Terminal, SkipTerminal, fmt.Sprintf("leftover admission of a %s job; startup recovery skips it and the next claimant replaces it", j.State))
		case Active:
			if leaseLive(c.now, s.LeaseExpiresAtUnixNanos) || j.LeaseID == s.LeaseID {
				setOut(e, Active, LeaveToOwner, "the job it names holds a live lease")
			} else {
				setOut(e, Active, LeaveToOwner, "scope lease expired but the job it names still holds a live lease")
			}
		default:
			setOut(e, r.c, r.d, "follows the job it names: "+r.why)
		}
	case je != nil:
		e.rec.DecidedBy = jobKey
		setOut(e, OperatorRequired, Retain, "the job this admission names is corrupt; RustFS cannot load it to release or replace the admission")
	case !c.complete:
		setOut(e, RetainedAmbiguous, Retain, "the job this admission names was not found and the scan is incomplete")
	case leaseLive(c.now, s.LeaseExpiresAtUnixNanos):
		setOut(e, Active, LeaveToOwner, "scope lease is live; the job it names has no record yet")
	default:
		setOut(e, Terminal, SkipTerminal, "the job this admission names has no record and the scope lease expired; the next claimant replaces it")
	}
}

// task classifies a task record by whether its worker result exists.
func (c *classifier) task(e *entry, t *manualjob.Task) {
	switch re := c.byKey[ilmpath.ManualResultKey(t.JobID, t.TaskKey)]; {
	case re != nil && as[manualjob.Result](re) == nil:
		setOut(e, OperatorRequired, Retain, "the task's worker result is corrupt: neither a result nor proof of none")
	case re != nil:
		setOut(e, Terminal, RetainHistory, "task has a worker result")
	default:
		setOut(e, Active, ReplayIfNoResult, "no worker result yet; the job owner replays it")
	}
}
