package recovery

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/tierdelete"
)

// AbandonRequest is one `recovery abandon` invocation.
type AbandonRequest struct {
	ControlID    string
	ExportID     string
	ExportSHA256 string
	Reason       ReasonCode
	Receipt      *Receipt
	Actor        string
	// OwnerEpoch is a fresh UUID for this process's claim on the
	// disposition application (docs/design/recovery.md#disposition-ownership).
	OwnerEpoch string
	Clock      func() time.Time
	// Execute is false for a dry run: every check runs, nothing is written.
	Execute bool
}

// AbandonStep is one step the protocol took (or, in a dry run, would take).
type AbandonStep struct {
	Step   string `json:"step"`
	Pool   string `json:"pool,omitempty"`
	ETag   string `json:"etag,omitempty"`
	Result string `json:"result"`
}

// AbandonResult reports a run.
type AbandonResult struct {
	DryRun      bool          `json:"dry_run"`
	Disposition *Disposition  `json:"-"`
	Control     *Control      `json:"-"`
	Steps       []AbandonStep `json:"steps"`
	// TookOverFrom names the claim whose expired or released lease this
	// run took over ("" when none): the audit line reports it.
	TookOverFrom string `json:"took_over_from,omitempty"`
}

func (r *AbandonResult) step(step, pool, etag, result string) {
	r.Steps = append(r.Steps, AbandonStep{step, pool, etag, result})
}

func refused(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrRefused)...)
}

func conflict(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrConflict)...)
}

// abandonRun carries one run's inputs and proofs.
type abandonRun struct {
	ctx     context.Context
	pools   []metastore.Store
	req     AbandonRequest
	ctl     *Control
	ctlETag string
	export  *Export
	res     *AbandonResult
	// owned is true while this run's claim owns the disposition at
	// dispETag; a run that fails while owning releases the lease.
	owned    bool
	dispETag string
}

// Abandon runs abandon-after-export for one legacy journal v1/v2
// (docs/design/recovery.md#abandon-after-export). It is crash-convergent:
// re-running the same request after any crash or lost response continues
// from the durable disposition receipt. Progress is monotonic; any
// replacement, unbound copy, unreadable pool or decommission coverage
// stops it with the evidence kept. Only metadata pools are read or
// written: no tier backend is reachable from here.
func Abandon(ctx context.Context, pools []metastore.Store, req AbandonRequest) (*AbandonResult, error) {
	if req.Clock == nil || req.Actor == "" || req.Receipt == nil || (req.Execute && !envelope.IsCanonicalUUID(req.OwnerEpoch)) {
		return nil, errors.New("recovery.Abandon: clock, actor, receipt and (to execute) a UUID owner epoch are required")
	}
	if !envelope.IsSHA256Hex(req.ExportID) || !envelope.IsSHA256Hex(req.ExportSHA256) {
		return nil, refused("the export ID and its SHA-256 must be given in full (64 lowercase hex digits)")
	}
	run := &abandonRun{ctx: ctx, pools: pools, req: req, res: &AbandonResult{DryRun: !req.Execute}}
	err := run.run()
	if err != nil && run.owned {
		run.release()
	}
	return run.res, err
}

// release gives up this run's lease after a failure, so the operator (or
// another) can re-run at once instead of waiting for expiry. Best effort:
// a crashed process cannot release, and then its lease expires.
func (a *abandonRun) release() {
	key := DispositionKey(a.ctl.Protocol, DispositionID(a.req.ExportID, ActionAbandonRemoteCleanup))
	b, etag, err := a.pools[0].Get(a.ctx, key)
	if err != nil || etag != a.dispETag {
		return
	}
	d, err := DecodeDisposition(key, b)
	if err != nil || d.State == Completed || d.OwnerEpoch != a.req.OwnerEpoch {
		return
	}
	next := *d
	next.Revision++
	next.LeaseExpiresAtUnixNanos = 0
	if _, err := casExact(a.ctx, a.pools[0], key, next.Encode(), etag); err == nil {
		a.res.step("release", "", "", "lease released after the failure; the disposition can be resumed at once")
	}
}

func (a *abandonRun) run() error {
	ctl, etag, err := FindControl(a.ctx, a.pools[0], a.req.ControlID)
	if err != nil {
		return err
	}
	a.ctl, a.ctlETag, a.res.Control = ctl, etag, ctl
	if a.req.Reason != ReasonLegacyRemoteCleanupAbandoned {
		return refused("reason %q: the only accepted reason is %s", a.req.Reason, ReasonLegacyRemoteCleanupAbandoned)
	}
	if ctl.Protocol != ProtoJournal {
		return refused("control %s is a %s record: abandon applies to tier-delete journals v1/v2 only", ctl.ID, ctl.Protocol)
	}
	key := DispositionKey(ctl.Protocol, DispositionID(a.req.ExportID, ActionAbandonRemoteCleanup))
	cur, curETag, err := a.loadDisposition(key)
	if err != nil {
		return err
	}
	if cur != nil && cur.State == Completed && ctl.Classification == Abandoned {
		a.res.Disposition = cur
		a.res.step("disposition", "", "", "already Completed; the control is abandoned")
		return nil
	}
	// Ownership first: a second applier is refused naming the holder
	// before anything else is checked or written.
	if err := AbandonRefusal(ctl, cur, a.req.Clock()); err != nil {
		return err
	}
	// A fresh run binds the receipt's observed copies; a resumed one binds
	// the disposition's immutable manifest instead (some copies may be
	// gone already, so a fresh receipt cannot show them).
	if err := a.checkExport(cur); err != nil {
		return err
	}
	var bound []Copy
	if cur == nil {
		bound = a.export.Copies
	}
	if err := CheckReceipt(a.req.Receipt, "abandon", a.req.Actor, a.req.Clock(), ctl, etag, Topology(a.pools), bound); err != nil {
		return err
	}
	if err := a.checkDecom(key); err != nil {
		return err
	}
	if a.req.Execute {
		if err := requireConditionalDelete(a.ctx, a.deletePools(cur)); err != nil {
			return err
		}
	}
	if cur == nil {
		// Fresh: every bound copy must be exactly where the export saw it.
		if err := a.proveAllPresent(a.export.Copies); err != nil {
			return err
		}
		now := a.req.Clock()
		d := &Disposition{
			DispositionID: DispositionID(a.export.ExportID, ActionAbandonRemoteCleanup), Action: ActionAbandonRemoteCleanup,
			ExportID: a.export.ExportID, ExportSHA256: a.req.ExportSHA256, ControlID: ctl.ID, ControlETag: etag,
			Protocol: ctl.Protocol, SourcePath: ctl.SourcePath, ReasonCode: a.req.Reason, Actor: a.req.Actor,
			PreparedAtUnixNanos: now.UnixNano(), Manifest: a.export.Copies, Revision: 1, State: Prepared,
			OwnerID: a.req.Actor, OwnerEpoch: a.req.OwnerEpoch, OwnerGeneration: 1,
			LeaseAcquiredAtUnixNanos: now.UnixNano(), LeaseExpiresAtUnixNanos: now.Add(DispositionLease).UnixNano(),
		}
		if !a.req.Execute {
			a.res.Disposition = d
			a.plan(d)
			return nil
		}
		if err := admit(a.ctx, a.pools[0], DispositionPrefix, d.Key(), len(d.Encode())); err != nil {
			return err
		}
		newETag, _, err := createExact(a.ctx, a.pools[0], d.Key(), d.Encode())
		if err != nil {
			// Another applier's Prepared won the create-only race: name it.
			if other, _, lerr := a.loadDisposition(key); lerr == nil && other != nil {
				if _, herr := other.claimOf(a.req.OwnerEpoch, a.req.Clock()); herr != nil {
					return herr
				}
			}
			return fmt.Errorf("install the Prepared disposition: %w", err)
		}
		a.owned, a.dispETag = true, newETag
		a.res.step("prepare", "", "", fmt.Sprintf("disposition %s Prepared, owned by %s until %s", d.DispositionID, d.OwnerID, leaseTime(d.LeaseExpiresAtUnixNanos)))
		cur, curETag = d, newETag
	} else if !a.req.Execute {
		a.res.Disposition = cur
		a.plan(cur)
		return nil
	} else {
		a.res.step("resume", "", "", fmt.Sprintf("disposition %s is %s (%d of %d copies confirmed absent)", cur.DispositionID, cur.State, len(cur.ConfirmedAbsent), len(cur.Manifest)))
		if curETag, err = a.claim(cur, curETag); err != nil {
			return err
		}
	}
	a.res.Disposition = cur
	return a.converge(cur, curETag)
}

func leaseTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339) }

// deletePools are the pools this run may delete a copy from: every
// manifest entry not yet confirmed absent (the export's copies for a fresh
// run); none once the disposition is Completed.
func (a *abandonRun) deletePools(cur *Disposition) []metastore.Store {
	manifest := a.export.Copies
	if cur != nil {
		if cur.State == Completed {
			return nil
		}
		manifest = cur.Manifest
	}
	var out []metastore.Store
	for _, c := range manifest {
		if cur == nil || !cur.Confirmed(c.Pool) {
			out = append(out, poolByID(a.pools, c.Pool))
		}
	}
	return out
}

// claim makes this run the owner of a resumed disposition: a released or
// expired lease is taken over by a CAS of its own (a new owner, epoch and
// generation; no state change in the same revision).
func (a *abandonRun) claim(d *Disposition, etag string) (string, error) {
	now := a.req.Clock()
	c, err := d.claimOf(a.req.OwnerEpoch, now)
	switch {
	case err != nil:
		return etag, err
	case c == ClaimOwn:
		a.owned, a.dispETag = d.State != Completed, etag
		return etag, nil
	}
	prev := fmt.Sprintf("%s (epoch %.8s, generation %d)", d.OwnerID, d.OwnerEpoch, d.OwnerGeneration)
	next := *d
	next.Revision++
	next.OwnerID, next.OwnerEpoch, next.OwnerGeneration = a.req.Actor, a.req.OwnerEpoch, d.OwnerGeneration+1
	next.LeaseAcquiredAtUnixNanos, next.LeaseExpiresAtUnixNanos = now.UnixNano(), now.Add(DispositionLease).UnixNano()
	newETag, err := casExact(a.ctx, a.pools[0], d.Key(), next.Encode(), etag)
	if err != nil {
		return etag, a.lost(d.Key(), fmt.Errorf("take over disposition %s: %w", d.DispositionID, err))
	}
	*d = next
	a.owned, a.dispETag = true, newETag
	a.res.TookOverFrom = prev
	a.res.step("takeover", "", "", "took over from "+prev+"; owned by "+next.OwnerID+" until "+leaseTime(next.LeaseExpiresAtUnixNanos))
	return newETag, nil
}

// renew extends this run's lease by a CAS immediately before a deletion:
// the CAS is the fence, so a run whose ownership was taken over deletes
// nothing more.
func (a *abandonRun) renew(d *Disposition, etag string) (string, error) {
	now := a.req.Clock()
	next := *d
	next.Revision++
	next.LeaseExpiresAtUnixNanos = max(now.Add(DispositionLease).UnixNano(), d.LeaseExpiresAtUnixNanos+1)
	newETag, err := casExact(a.ctx, a.pools[0], d.Key(), next.Encode(), etag)
	if err != nil {
		return etag, a.lost(d.Key(), fmt.Errorf("renew the lease on disposition %s: %w", d.DispositionID, err))
	}
	*d = next
	a.dispETag = newETag
	return newETag, nil
}

// lost turns a failed ownership CAS into a one-line error naming who owns
// the disposition now, when another claim does.
func (a *abandonRun) lost(key string, err error) error {
	b, _, gerr := a.pools[0].Get(a.ctx, key)
	if gerr != nil {
		return err
	}
	d, derr := DecodeDisposition(key, b)
	if derr != nil || d.OwnerEpoch == a.req.OwnerEpoch {
		return err
	}
	a.owned = false
	return conflict("disposition %s was taken over by %s (epoch %.8s, generation %d); this run deletes nothing more", d.DispositionID, d.OwnerID, d.OwnerEpoch, d.OwnerGeneration)
}

// fits requires now to be at least ClockSkew before the lease's expiry,
// so a step never starts on a lease another claim may already take over.
func (a *abandonRun) fits(d *Disposition) error {
	if now := a.req.Clock(); now.Add(ClockSkew).After(time.Unix(0, d.LeaseExpiresAtUnixNanos)) {
		return refused("the lease on disposition %s expires at %s, too soon to start a deletion at %s; re-run", d.DispositionID, leaseTime(d.LeaseExpiresAtUnixNanos), now.UTC().Format(time.RFC3339))
	}
	return nil
}

func (a *abandonRun) loadDisposition(key string) (*Disposition, string, error) {
	b, etag, err := a.pools[0].Get(a.ctx, key)
	if errors.Is(err, metastore.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read disposition %s: %w", key, err)
	}
	d, err := DecodeDisposition(key, b)
	if err != nil {
		return nil, "", conflict("disposition %s is unreadable (%v); it is kept and nothing proceeds", key, err)
	}
	if d.ControlID != a.ctl.ID || d.ExportSHA256 != a.req.ExportSHA256 || d.ReasonCode != a.req.Reason {
		return nil, "", conflict("disposition %s binds another control, export digest or reason than this request", d.DispositionID)
	}
	return d, etag, nil
}

// checkExport loads the export and proves it is the one the request
// names, for this control, of a decodable journal v1/v2 at its canonical
// path, taken of the generation the receipt (fresh run) or the
// disposition's manifest (resumed run) binds.
func (a *abandonRun) checkExport(cur *Disposition) error {
	res, err := GetExport(a.ctx, a.pools[0], a.req.ExportID)
	if errors.Is(err, metastore.ErrNotFound) {
		return refused("export %s does not exist: run 'recovery export' first", a.req.ExportID)
	}
	if err != nil {
		return err
	}
	x := res.Export
	switch {
	case res.SHA256 != a.req.ExportSHA256:
		return refused("export %s has SHA-256 %s, not the %s given", x.ExportID, res.SHA256, a.req.ExportSHA256)
	case x.ControlID != a.ctl.ID || x.SourcePath != a.ctl.SourcePath:
		return refused("export %s is of another control", x.ExportID)
	case cur == nil && (x.CopySetSHA256 != a.req.Receipt.CopySetSHA256 || x.ContentSHA256 != a.req.Receipt.ContentSHA256):
		return refused("export %s was taken of another generation than the receipt observed", x.ExportID)
	case cur != nil && x.CopySetSHA256 != CopySetSHA256(cur.Manifest):
		return conflict("disposition %s binds another copy manifest than export %s", cur.DispositionID, x.ExportID)
	}
	j, err := tierdelete.DecodeJournal(x.Source)
	if err != nil {
		return refused("the exported bytes fail strict decoding (%v): malformed records are inspect-only", err)
	}
	if j.Version != 1 && j.Version != 2 {
		return refused("journal v%d: abandon applies to v1/v2 only; v3-v6 converge through their own protocol", j.Version)
	}
	if err := j.CheckPath(x.SourcePath); err != nil {
		return refused("the journal's identity is not its canonical path (%v)", err)
	}
	a.export = x
	return nil
}

// checkDecom refuses while a decommission receipt covers the record, its
// control, its export or its disposition, or when that cannot be ruled out.
func (a *abandonRun) checkDecom(dispKey string) error {
	cov := DecomCoverage(a.ctx, a.pools, a.ctl.SourcePath, a.ctl.Key(), ExportKey(a.ctl.Protocol, a.req.ExportID), dispKey)
	if len(cov.Active) > 0 {
		return refused("an active decommission covers the record: %s", strings.Join(cov.Active, "; "))
	}
	if len(cov.Unknown) > 0 {
		return fmt.Errorf("decommission coverage cannot be ruled out: %s: %w", strings.Join(cov.Unknown, "; "), ErrIncomplete)
	}
	return nil
}

// observe strongly reads the source path in every pool; an unreadable
// pool is ErrIncomplete.
func (a *abandonRun) observe() (*Observation, error) {
	obs := Observe(a.ctx, a.pools, a.ctl.SourcePath)
	if !obs.Complete() {
		return nil, fmt.Errorf("pools %s could not be read: %w", strings.Join(obs.Unreadable, ", "), ErrIncomplete)
	}
	return obs, nil
}

// proveAllPresent requires a fresh all-pool read to find every bound copy
// at its exact ETag and digest, and no copy the manifest does not bind.
func (a *abandonRun) proveAllPresent(manifest []Copy) error {
	obs, err := a.observe()
	if err != nil {
		return err
	}
	if CopySetSHA256(obs.Copies) != CopySetSHA256(manifest) {
		return conflict("the record's copies are no longer exactly the exported ones (a copy changed, vanished or appeared)")
	}
	return nil
}

// stableControl re-reads the control: its generation must still be the
// one the run started from.
func (a *abandonRun) stableControl() error {
	_, etag, err := a.pools[0].Get(a.ctx, a.ctl.Key())
	if err != nil {
		return fmt.Errorf("re-read control: %w", err)
	}
	if etag != a.ctlETag {
		return conflict("control %s changed during the disposition", a.ctl.ID)
	}
	return nil
}

func (a *abandonRun) plan(d *Disposition) {
	a.res.step("dry_run", "", "", "all checks passed; nothing was written. Re-run with --confirm --acknowledge-remote-cleanup-abandoned to execute")
	if d.State == Prepared && d.Revision == 1 && len(d.ConfirmedAbsent) == 0 {
		a.res.step("prepare", "", "", "would install disposition "+d.DispositionID+" Prepared")
	}
	for _, c := range d.Manifest {
		if d.Confirmed(c.Pool) {
			a.res.step("delete", c.Pool, c.ETag, "already confirmed absent")
		} else {
			a.res.step("delete", c.Pool, c.ETag, "would delete this exact ETag, prove absence, record progress")
		}
	}
	a.res.step("complete", "", "", "would prove every copy absent, mark Completed, and mark the control abandoned")
}

// converge drives a disposition from its current state to Completed and
// the control to abandoned.
func (a *abandonRun) converge(d *Disposition, etag string) error {
	var err error
	if d.State == Prepared {
		if err := a.proveAllPresent(d.Manifest); err != nil {
			return err
		}
		if err := a.checkDecom(d.Key()); err != nil {
			return err
		}
		next := *d
		next.Revision++
		next.State = Applying
		if etag, err = casExact(a.ctx, a.pools[0], d.Key(), next.Encode(), etag); err != nil {
			return a.lost(d.Key(), fmt.Errorf("disposition Prepared -> Applying: %w", err))
		}
		a.dispETag = etag
		*d = next
		a.res.step("applying", "", "", "every bound copy found at its exact ETag; Prepared -> Applying")
	}
	if d.State == Applying {
		obs, err := a.observe()
		if err != nil {
			return err
		}
		bound := map[string]bool{}
		for _, c := range d.Manifest {
			bound[c.Pool] = true
		}
		for _, c := range obs.Copies {
			if !bound[c.Pool] {
				return conflict("pool %s holds a copy the manifest does not bind (etag %s)", c.Pool, c.ETag)
			}
		}
		for _, c := range d.Manifest {
			if etag, err = a.applyEntry(d, etag, c); err != nil {
				return err
			}
		}
		if err := a.finalProof(d); err != nil {
			return err
		}
		next := *d
		next.Revision++
		next.State = Completed
		next.CompletedAtUnixNanos = a.req.Clock().UnixNano()
		if _, err = casExact(a.ctx, a.pools[0], d.Key(), next.Encode(), etag); err != nil {
			return a.lost(d.Key(), fmt.Errorf("disposition Applying -> Completed: %w", err))
		}
		*d = next
		a.owned = false
		a.res.step("complete", "", "", "every copy confirmed absent; Applying -> Completed")
	}
	return a.abandonControl(d)
}

// applyEntry handles one manifest entry independently: a confirmed entry
// must still be absent; an unconfirmed one is deleted at its exact ETag
// (or found already absent after a crash or lost response) and then added
// to confirmed_absent after a strong absence readback.
func (a *abandonRun) applyEntry(d *Disposition, etag string, c Copy) (string, error) {
	pool := poolByID(a.pools, c.Pool)
	if pool == nil {
		return etag, fmt.Errorf("manifest pool %s is not among the --meta pools: %w", c.Pool, ErrIncomplete)
	}
	b, cur, err := pool.Get(a.ctx, c.Path)
	present := err == nil
	switch {
	case err != nil && !errors.Is(err, metastore.ErrNotFound):
		return etag, fmt.Errorf("read %s in %s: %v: %w", c.Path, c.Pool, err, ErrIncomplete)
	case present && (cur != c.ETag || sha(b) != c.SHA256):
		return etag, conflict("%s holds a replacement (etag %s, not the bound %s); it is kept", c.Pool, cur, c.ETag)
	case d.Confirmed(c.Pool) && present:
		return etag, conflict("%s was confirmed absent but is present again", c.Pool)
	case d.Confirmed(c.Pool):
		a.res.step("delete", c.Pool, c.ETag, "confirmed absent earlier; still absent")
		return etag, nil
	}
	// Immediately before each deletion the decommission and control
	// proofs are repeated; absence found after a crash gets the same.
	if err := a.checkDecom(d.Key()); err != nil {
		return etag, err
	}
	if err := a.stableControl(); err != nil {
		return etag, err
	}
	if present {
		if err := deleteCheckErr(pool.CheckConditionalDelete(a.ctx)); err != nil {
			return etag, err
		}
	}
	// Ownership last, immediately before the deletion: renew by CAS (the
	// fence), then require the renewed lease to cover the step.
	etag, err = a.renew(d, etag)
	if err != nil {
		return etag, err
	}
	if err := a.fits(d); err != nil {
		return etag, err
	}
	result := "found absent (a crash or lost response deleted it); absence proven"
	if present {
		derr := pool.DeleteIfMatch(a.ctx, c.Path, c.ETag)
		if errors.Is(derr, metastore.ErrPreconditionFailed) {
			return etag, conflict("%s changed just before its conditional delete; it is kept", c.Pool)
		}
		if errors.Is(derr, metastore.ErrConditionalDeleteUnsupported) {
			return etag, refusal{derr} // the store sent no delete
		}
		result = "deleted at its exact ETag; absence proven"
		if derr != nil && !errors.Is(derr, metastore.ErrNotFound) {
			result = "delete response lost; absence proven by readback"
		}
	}
	if _, _, rerr := pool.Get(a.ctx, c.Path); !errors.Is(rerr, metastore.ErrNotFound) {
		if rerr == nil {
			return etag, conflict("%s still holds %s after the conditional delete", c.Pool, c.Path)
		}
		return etag, fmt.Errorf("absence readback in %s: %v: %w", c.Pool, rerr, ErrIncomplete)
	}
	next := *d
	next.Revision++
	next.ConfirmedAbsent = append(append([]string(nil), d.ConfirmedAbsent...), c.Pool)
	sort.Strings(next.ConfirmedAbsent)
	newETag, err := casExact(a.ctx, a.pools[0], d.Key(), next.Encode(), etag)
	if err != nil {
		return etag, a.lost(d.Key(), fmt.Errorf("record %s confirmed absent: %w", c.Pool, err))
	}
	*d = next
	a.dispETag = newETag
	a.res.step("delete", c.Pool, c.ETag, result)
	return newETag, nil
}

// finalProof: every entry confirmed, a fresh all-pool read finds no copy
// anywhere, no decommission coverage, and the control unchanged.
func (a *abandonRun) finalProof(d *Disposition) error {
	if len(d.ConfirmedAbsent) != len(d.Manifest) {
		return conflict("only %d of %d copies are confirmed absent", len(d.ConfirmedAbsent), len(d.Manifest))
	}
	obs, err := a.observe()
	if err != nil {
		return err
	}
	if len(obs.Copies) > 0 {
		return conflict("pool %s holds %s again (etag %s); it is kept", obs.Copies[0].Pool, a.ctl.SourcePath, obs.Copies[0].ETag)
	}
	if err := a.checkDecom(d.Key()); err != nil {
		return err
	}
	return a.stableControl()
}

// abandonControl records the completed disposition on the control. A
// lost response is resolved by readback (casExact).
func (a *abandonRun) abandonControl(d *Disposition) error {
	if a.ctl.Classification == Abandoned {
		return nil
	}
	next := *a.ctl
	next.Revision++
	next.Classification = Abandoned
	next.NextAttemptAtUnixNanos = 0
	next.clearLease()
	etags := make([]string, len(d.Manifest))
	for i, c := range d.Manifest {
		etags[i] = c.ETag
	}
	// The actor is the claim that completed the application (after a
	// takeover, not the one who prepared it); both are deterministic
	// from the Completed receipt, so a re-run writes the same bytes.
	next.Disposition = &OperatorDisposition{
		DispositionID: d.DispositionID, Actor: d.OwnerID, ReasonCode: string(d.ReasonCode), ConfirmedAtUnixNano: d.LeaseAcquiredAtUnixNanos,
		ExportSHA256: d.ExportSHA256, SourceETags: etags, ControlETag: d.ControlETag,
	}
	if _, err := casExact(a.ctx, a.pools[0], a.ctl.Key(), next.Encode(), a.ctlETag); err != nil {
		return fmt.Errorf("mark control abandoned: %w", err)
	}
	a.ctl = &next
	a.res.Control = &next
	a.res.step("control", "", "", "control "+next.ID+" abandoned")
	return nil
}

func sha(b []byte) string { return envelopeSHA(b) }
