package journal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// classifier assigns each decoded record its classification and decision.
// byKey holds every record of the scan, so a record's row can depend on
// the records it names (a journal's manifest, a scope's job). complete is
// false when a pool could not be listed completely: a missing record then
// proves nothing.
type classifier struct {
	ctx      context.Context
	opt      Options
	now      time.Time
	byKey    map[string]*entry
	complete bool
}

func (c *classifier) classify(e *entry) {
	oldest := e.copies[0].LastModified
	for _, cp := range e.copies {
		if cp.LastModified.Before(oldest) {
			oldest = cp.LastModified
		}
	}
	if !oldest.IsZero() {
		age := int64(c.now.Sub(oldest) / time.Second)
		e.rec.AgeSeconds = &age
	}
	if e.err != nil {
		if errors.Is(e.err, ilmpath.ErrUnregistered) {
			e.rec.Schema = "unregistered"
		}
		setOut(e, Corrupt, Retain, e.err.Error())
		return
	}
	describe(e)
	if !copiesAgree(e) {
		setOut(e, OperatorRequired, Retain, fmt.Sprintf("%d pools hold divergent copies of this record", len(e.copies)))
		return
	}
	switch p := e.payload.(type) {
	case *tierdelete.Journal:
		c.journal(e, p)
	case *tierdelete.Manifest:
		c.manifest(e, p)
	case *tierdelete.Parent:
		c.parent(e, p)
	case *transition.Transaction:
		c.transaction(e, p)
	case *manualjob.Job:
		c.job(e, p)
	case *manualjob.Scope:
		c.scope(e, p)
	case *manualjob.Task:
		c.task(e, p)
	case *manualjob.Result:
		setOut(e, Terminal, RetainHistory, "worker result history; no GC owner")
	case *decom.Classified:
		c.decommission(e, p)
	case *Artifact:
		if p.Terminal {
			setOut(e, Terminal, RetainHistory, p.Reason)
		} else {
			setOut(e, Active, LeaveToOwner, p.Reason)
		}
	}
}

// describe fills the record's schema, state, owner and key format from
// its payload.
func describe(e *entry) {
	r := &e.rec
	switch p := e.payload.(type) {
	case *tierdelete.Journal:
		r.Schema = fmt.Sprintf("v%d", p.Version)
		r.State = string(p.EffectiveState())
		switch {
		case p.Version <= 2:
			r.Owner = "quarantine"
		case p.Version == 6:
			r.Owner = "manifest operation " + p.Dispatch.OperationID
		default:
			r.Owner = "journal recovery"
		}
	case *tierdelete.Manifest:
		r.Schema = "v1"
		r.State = string(p.State)
		r.Owner = "manifest operation " + p.OperationID
	case *tierdelete.Parent:
		r.Schema = "v1 chunked_parent"
		r.State = fmt.Sprintf("%s@%d", p.State, p.Revision)
		r.Owner = "parent operation " + p.OperationID
	case *transition.Transaction:
		r.Schema = transition.Schema
		r.State = fmt.Sprintf("%s@%d", p.State, p.Revision)
		r.Owner = "owner_epoch " + p.OwnerEpoch
	case *manualjob.Job:
		r.Schema = manualjob.JobSchema
		r.State = string(p.State)
		r.Owner = p.OwnerID + " lease " + p.LeaseID
		r.KeyFormat = string(p.ScopeKeyFormat)
	case *manualjob.Scope:
		r.Schema = manualjob.JobSchema
		r.State = "admitted"
		r.Owner = p.OwnerID + " job " + p.JobID
		r.KeyFormat = string(p.KeyFormat)
	case *manualjob.Task:
		r.Schema = manualjob.TaskSchema
		r.State = "queued"
		r.Owner = "job " + p.JobID
	case *manualjob.Result:
		r.Schema = manualjob.ResultSchema
		r.State = string(p.Result)
		r.Owner = "job " + p.JobID
	case *Artifact:
		r.Schema, r.State, r.Owner = p.Schema, p.State, p.Owner
	}
}

func setOut(e *entry, c Classification, d Decision, reason string) {
	e.rec.Classification, e.rec.Decision, e.rec.Reason = c, d, reason
}

// copiesAgree reports whether every pool holds identical bytes.
func copiesAgree(e *entry) bool {
	for _, d := range e.data[1:] {
		if string(d) != string(e.data[0]) {
			return false
		}
	}
	return true
}

// leaseLive reports whether a RustFS lease expiring at expiresNs is still
// held at now: RustFS treats a lease as expired only when now is later
// than its expiry (manual_transition_job_lease_expired and
// manual_transition_scope_admission_lease_expired compare with ">"), so
// the lease is live through its exact instant.
func leaseLive(now time.Time, expiresNs int64) bool { return now.UnixNano() <= expiresNs }

// source runs the lookup for one record and stores the evidence on it.
// Without a prover it returns EvidenceNone. An error, or a subject the
// record cannot state exactly, is EvidenceUncertain with the reason: it is
// never absence.
func (c *classifier) source(e *entry, sub SourceSubject, subErr error) (Evidence, string) {
	if c.opt.Sources == nil {
		return EvidenceNone, ""
	}
	ev, why := EvidenceUncertain, ""
	if subErr != nil {
		why = subErr.Error()
	} else {
		got, err := c.opt.Sources.SourceEvidence(c.ctx, sub)
		if err != nil {
			why = err.Error()
		} else {
			ev = got
		}
	}
	e.rec.SourceEvidence = ev
	return ev, why
}

// uncertain is the reason for evidence that decides nothing.
func uncertain(ev Evidence, why string) string {
	if ev != EvidenceUncertain {
		return fmt.Sprintf("source lookup returned %q, which does not apply to this record", ev)
	}
	return "source lookup uncertain: " + why
}
