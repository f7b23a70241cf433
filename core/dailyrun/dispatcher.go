package dailyrun

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// RetryPolicy retries transport errors only; server-side outcomes are never
// retried in-run (docs/design/daily-run.md#retries).
type RetryPolicy struct {
	Attempts int           // total attempts; 0 means 3
	Base     time.Duration // first backoff; 0 means 200ms, doubling per attempt
	Max      time.Duration // backoff cap; 0 means 5s
	// Sleep waits d or until ctx ends; nil uses a timer. Tests inject one
	// that records the backoff instead of sleeping.
	Sleep func(ctx context.Context, d time.Duration) error
}

// backOff is the policy as cenkalti/backoff's exponential back-off without
// jitter, for Attempts-1 retries while ctx lasts.
func (r RetryPolicy) backOff(ctx context.Context) backoff.BackOff {
	return backoff.WithContext(backoff.WithMaxRetries(r.exponential(), uint64(r.attempts()-1)), ctx)
}

// exponential is Base, doubling, capped at Max, without end.
func (r RetryPolicy) exponential() *backoff.ExponentialBackOff {
	base, max := r.Base, r.Max
	if base <= 0 {
		base = 200 * time.Millisecond
	}
	if max <= 0 {
		max = 5 * time.Second
	}
	return backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(base), backoff.WithMultiplier(2), backoff.WithMaxInterval(max),
		backoff.WithRandomizationFactor(0), backoff.WithMaxElapsedTime(0))
}

// Backoff returns the wait before attempt n+1 after n failed attempts
// (n >= 1): Base × 2^(n-1), capped at Max.
func (r RetryPolicy) Backoff(n int) time.Duration {
	b := r.exponential()
	d := b.NextBackOff()
	for i := 1; i < n; i++ {
		d = b.NextBackOff()
	}
	return d
}

func (r RetryPolicy) attempts() int {
	if r.Attempts <= 0 {
		return 3
	}
	return r.Attempts
}

// sleepTimer is the backoff.Timer that waits with RetryPolicy.Sleep, the
// injected clock tests use to record back-offs instead of sleeping.
type sleepTimer struct {
	ctx   context.Context
	sleep func(ctx context.Context, d time.Duration) error
	c     chan time.Time
}

func (t *sleepTimer) Start(d time.Duration) {
	if t.sleep(t.ctx, d) == nil {
		t.c <- time.Time{}
	} // else ctx ended: the retry loop returns ctx.Err()
}
func (t *sleepTimer) Stop()               {}
func (t *sleepTimer) C() <-chan time.Time { return t.c }

// withRetry calls fn until it succeeds, the attempts run out, or ctx ends
// (cenkalti/backoff's retry loop). A *filer.KeyError is a key the store
// cannot read exactly and a cancellation ends the pass: neither is retried.
func (p *pass) withRetry(ctx context.Context, fn func() error) error {
	rp := p.cfg.Retry
	var timer backoff.Timer // nil: the library's time.Timer
	if rp.Sleep != nil {
		timer = &sleepTimer{ctx: ctx, sleep: rp.Sleep, c: make(chan time.Time, 1)}
	}
	err := backoff.RetryNotifyWithTimer(func() error {
		err := fn()
		if err != nil && (ctx.Err() != nil || isCancel(err) || filer.AsKeyError(err) != nil) {
			return backoff.Permanent(err)
		}
		return err
	}, rp.backOff(ctx), nil, timer)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// isCancel reports whether err means the pass ran out of time or was
// interrupted, rather than a store failure.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// versionTarget is obj.Versions[idx].
type versionTarget struct {
	obj *filer.Object
	idx int
}

// errDispatch is a dispatch that did not complete: it halts the shard.
type errDispatch struct {
	outcome filer.Outcome
	target  string
	err     error
}

func (e *errDispatch) Error() string {
	if e.err != nil {
		return fmt.Sprintf("%s: %s: %v", e.target, e.outcome, e.err)
	}
	return fmt.Sprintf("%s: %s", e.target, e.outcome)
}
func (e *errDispatch) Unwrap() error { return e.err }

// dispatchJob is one due action ready to dispatch.
type dispatchJob struct {
	a       Action
	req     filer.DeleteRequest
	vt      *versionTarget
	seenKey string
	// onOutcome, when set, sees the store's outcome of the dispatch.
	onOutcome func(filer.Outcome)
}

// prepare counts a match and, when it is due and its target was not
// dispatched yet this pass, returns the job that dispatches it; pending is
// true for a match not yet due. It runs on the deciding goroutine, in the
// shard's order.
func (p *pass) prepare(s *shardRun, source Source, bucket string, up *filer.Upload, vt *versionTarget, m lifecycle.Match, act *engine.CompiledAction) (job *dispatchJob, pending bool) {
	var size int64
	if vt != nil {
		size = vt.obj.Versions[vt.idx].Size
	}
	s.res.Matches++
	s.res.MatchBytes += size
	if !m.IsDue(p.cfg.RunNow) {
		s.res.Pending++
		s.res.PendingBytes += size
		return nil, true
	}
	a := Action{Shard: s.id, Source: source, Bucket: bucket, Kind: m.Kind, RuleID: m.RuleID, Due: m.Due, Size: size}
	if vt != nil {
		a.BytesFreed = lifecycle.BytesFreed(m.Kind, p.snap.Versioning(bucket), vt.obj, vt.idx)
		a.Held = lifecycle.Held(m.Kind, p.snap.Versioning(bucket), vt.obj, vt.idx, p.cfg.RunNow)
	}
	req := filer.DeleteRequest{Bucket: bucket, Kind: m.Kind, RuleID: m.RuleID}
	if up != nil {
		a.Key, a.UploadID = up.Key, up.UploadID
		req.Key, req.Expected = up.Key, filer.Identity{UploadID: up.UploadID}
	} else {
		v := vt.obj.Versions[vt.idx]
		a.Key, a.VersionID = vt.obj.Key, v.VersionID
		req.Key, req.Expected = vt.obj.Key, v.Identity()
		req.Applies = p.applies(bucket, act, m.Kind)
	}
	// A target already dispatched in this pass (by the walker, then the
	// replay of its event; or on two events of one version, such as its
	// demotion and its noncurrent stamp) is not dispatched again.
	seenKey := bucket + "\x00" + a.Key + "\x00" + a.VersionID + "\x00" + a.UploadID
	if done, noop := p.dispatchedNoop(seenKey); done {
		// A dispatch that ended NOOP_RESOLVED found the target changed
		// (often by another delete of this pass on the same key): this
		// match is left for the next pass, which decides it on the key
		// as it is then, so it counts as pending (due already).
		return nil, noop
	}
	if vt != nil {
		if lone := vt.obj.Versions[vt.idx].DeleteMarker && len(vt.obj.Versions) == 1; lone {
			if p.keyTouched(bucket, a.Key) {
				// A lone delete marker on a key this pass already sent
				// a delete of another version of: that delete may be
				// what left it alone, and whether this pass read the
				// key before or after it is timing. A walk, which reads
				// before it deletes, leaves the marker to the next
				// pass; so does this, whichever way the read fell:
				// pending, due already, decided next pass on the key as
				// it is then (the removal's own event decides it too).
				return nil, true
			}
		} else {
			p.touchKey(bucket, a.Key)
		}
	}
	return &dispatchJob{a: a, req: req, vt: vt, seenKey: seenKey}, false
}

// touchKey records that this pass prepared a delete of a version of
// bucket/key (see prepare); keyTouched asks. The record lives in the
// dispatched-targets set, under a name no target has (an empty version
// and a \x01 upload ID), so it spills as the targets do.
func (p *pass) touchKey(bucket, key string) { p.markDispatched(touchedName(bucket, key)) }

func (p *pass) keyTouched(bucket, key string) bool {
	done, _ := p.dispatchedNoop(touchedName(bucket, key))
	return done
}

func touchedName(bucket, key string) string { return bucket + "\x00" + key + "\x00\x00\x01" }

// dispatch sends job's delete (in a dry run, records it) and records the
// outcome. It may run beside other dispatches of the shard (see flight),
// never beside another of the same key.
func (p *pass) dispatch(ctx context.Context, s *shardRun, job *dispatchJob) error {
	a, req, vt := job.a, job.req, job.vt
	// One delete per target at a time, and one that completes per pass:
	// only the key's shard decides it (EventShard), but it can decide it
	// more than once (its walk, its events). Two deletes of one target
	// side by side can both pass the store's identity check: two
	// Expiration deletes then write two delete markers, and two DONEs
	// count one delete twice.
	release, done, err := p.claim(ctx, job.seenKey)
	if err != nil || done {
		// done: another dispatch of this target completed since job was
		// prepared (a NOOP_RESOLVED one too: the change it found is an
		// event of its own, decided on its own).
		return err
	}
	defer release()
	if p.cfg.DryRun {
		if !p.markDispatched(job.seenKey) {
			return nil
		}
		a.Outcome = OutcomeDryRun
		p.record(s, a)
		return nil
	}
	var out filer.Outcome
	err = p.withRetry(ctx, func() error {
		if p.cfg.Limiter != nil {
			waitStart := p.cfg.Clock()
			if werr := p.cfg.Limiter.Wait(ctx); werr != nil {
				// Wait fails at once when the next token would come after
				// ctx's deadline: the pass is out of time, not the store.
				return fmt.Errorf("%w: %v", context.DeadlineExceeded, werr)
			}
			waited := p.cfg.Clock().Sub(waitStart)
			s.mu.Lock()
			s.res.LimiterWait += waited
			s.mu.Unlock()
			p.cfg.Progress.addLimiterWait(waited)
			if p.cfg.OnLimiterWait != nil {
				p.cfg.OnLimiterWait(waited)
			}
		}
		// A shard whose lease was lost (or a pass that ended) sends no
		// further delete, whether or not the store checks ctx.
		if err := ctx.Err(); err != nil {
			return err
		}
		var derr error
		out, derr = p.cfg.Store.LifecycleDelete(ctx, req)
		return derr
	})
	target := fmt.Sprintf("%s/%s", a.Bucket, a.Key)
	if err != nil {
		if isCancel(err) {
			return err
		}
		a.Outcome, a.Err = OutcomeError, err
		p.record(s, a)
		return &errDispatch{outcome: OutcomeError, target: target, err: err}
	}
	if out == filer.OutcomeNoopResolved && vt != nil {
		if out, err = p.confirmNoop(ctx, req); err != nil {
			if isCancel(err) {
				return err
			}
			a.Outcome, a.Err = OutcomeError, err
			p.record(s, a)
			return &errDispatch{outcome: OutcomeError, target: target, err: err}
		}
	}
	a.Outcome = out
	if job.onOutcome != nil {
		job.onOutcome(out)
	}
	p.record(s, a)
	if !out.Completes() {
		return &errDispatch{outcome: out, target: target}
	}
	p.markDispatched(job.seenKey)
	if out == filer.OutcomeNoopResolved {
		p.mu.Lock()
		p.noops.add(job.seenKey)
		p.mu.Unlock()
	}
	return nil
}

// claim makes this dispatch the only one of target (a seen key) in
// flight in the pass. While another dispatch of it is in flight it waits
// for that one to end; done is then true when that dispatch
// completed (the target is resolved for this pass), else this dispatch
// claims it in its turn. release ends the claim.
func (p *pass) claim(ctx context.Context, target string) (release func(), done bool, err error) {
	for {
		p.mu.Lock()
		if d, err := p.seen.has(target); err == nil && d {
			p.mu.Unlock()
			return nil, true, nil
		}
		busy, ok := p.inflight[target]
		if !ok {
			mine := make(chan struct{})
			p.inflight[target] = mine
			p.mu.Unlock()
			return func() {
				p.mu.Lock()
				delete(p.inflight, target)
				p.mu.Unlock()
				close(mine)
			}, false, nil
		}
		p.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// dispatchedNoop reports whether a shard completed key's dispatch this
// pass and whether that dispatch ended NOOP_RESOLVED.
func (p *pass) dispatchedNoop(key string) (done, noop bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// A spill file that cannot be read counts the target as not
	// dispatched: dispatching it again is safe (the store checks its
	// identity), skipping it would not be.
	if done, err := p.seen.has(key); err != nil || !done {
		return false, false
	}
	noop, err := p.noops.has(key)
	return true, noop && err == nil
}

// markDispatched records key's dispatch; false when it was recorded
// already.
func (p *pass) markDispatched(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen.add(key)
}

// applies is DeleteRequest.Applies for a match act made: on the key as
// the store reads it before deleting, the same compiled action (rule and
// kind, evaluated as it was chosen) must still select the version, in the
// position it acts on, with a match of the same kind that is due at the
// pass clock; failing that, another rule of the bucket must select it for
// a delete of the same effect (a permanent delete of a noncurrent version,
// a delete marker over the latest, the removal of a lone marker), due at
// the pass clock. The second test keeps a version one rule no longer
// selects (its NewerNoncurrentVersions rank fell when a newer version was
// deleted) but another still does (NoncurrentDays): the walk chose only
// one match per version, and a replay-kind rule's match decided by a
// recovery walk is not decided again by any later pass
// (docs/design/daily-run.md#dispatch).
func (p *pass) applies(bucket string, act *engine.CompiledAction, kind lifecycle.ActionKind) func(*filer.Object, int) bool {
	return func(obj *filer.Object, idx int) bool {
		if act == nil || obj == nil {
			return false
		}
		key := p.snap.ForKey(obj)
		if m, ok := key.EvaluateVersion(act, idx); ok && m.Kind == kind && m.IsDue(p.cfg.RunNow) {
			return true
		}
		for _, a := range p.snap.BucketActions(bucket) {
			if a == act || !a.IsActive() || deleteEffect(a.Key.Kind) != deleteEffect(kind) {
				continue
			}
			if m, ok := key.EvaluateVersion(a, idx); ok && deleteEffect(m.Kind) == deleteEffect(kind) && m.IsDue(p.cfg.RunNow) {
				return true
			}
		}
		return false
	}
}

// deleteEffect groups the version kinds by what LifecycleDelete does with
// them; an upload or unknown kind is its own group.
func deleteEffect(k lifecycle.ActionKind) string {
	switch k {
	case lifecycle.NoncurrentDays, lifecycle.NewerNoncurrent:
		return "remove noncurrent"
	case lifecycle.ExpirationDays, lifecycle.ExpirationDate:
		return "expire latest"
	}
	return string(k)
}

// confirmNoop checks a NOOP_RESOLVED answer against a fresh read of the
// key. NOOP_RESOLVED means someone else changed or removed the target;
// when the version is still there with the identity the delete carried and
// the action still applies, nobody resolved anything: the server refuses a
// request the pass would repeat forever, and the outcome is STUCK. A read
// that fails is returned as an error (the dispatch is not counted as
// resolved on doubt); an ambiguous key stays NOOP_RESOLVED (nothing may act
// on it either way).
func (p *pass) confirmNoop(ctx context.Context, req filer.DeleteRequest) (filer.Outcome, error) {
	var obj filer.Object
	var found bool
	err := p.withRetry(ctx, func() error {
		var e error
		obj, found, e = p.cfg.Store.LookupObject(ctx, req.Bucket, req.Key)
		return e
	})
	switch {
	case err != nil && errors.Is(err, filer.ErrAmbiguousLayout):
		return filer.OutcomeNoopResolved, nil
	case err != nil:
		return "", fmt.Errorf("re-read after NOOP_RESOLVED: %w", err)
	case !found:
		return filer.OutcomeNoopResolved, nil
	}
	for idx := range obj.Versions {
		if obj.Versions[idx].Identity() == req.Expected && req.Applies(&obj, idx) {
			return filer.OutcomeStuck, nil
		}
	}
	return filer.OutcomeNoopResolved, nil
}

// record counts a's outcome, logs it and hands it to Config.OnAction, one
// call at a time and in log order (under p.mu).
func (p *pass) record(s *shardRun, a Action) {
	s.mu.Lock()
	s.res.Outcomes[a.Outcome]++
	s.res.OutcomeBytes[a.Outcome] += a.Size
	// One set of numbers: an action frees bytes only when it deleted (a
	// dry run: would delete); what Object Lock keeps is held, apart.
	var held int64
	switch {
	case a.Outcome == filer.OutcomeSkippedObjectLock, a.Outcome == OutcomeDryRun && a.Held:
		held, a.BytesFreed = a.BytesFreed, 0
	case a.Outcome != filer.OutcomeDone && a.Outcome != OutcomeDryRun:
		a.BytesFreed = 0
	}
	s.res.BytesFreed += a.BytesFreed
	s.res.HeldBytes += held
	s.mu.Unlock()
	p.cfg.Progress.addAction(&a)
	p.mu.Lock()
	defer p.mu.Unlock()
	bk := bucketKind{a.Bucket, a.RuleID, a.Kind}
	c := p.counts[bk]
	if c == nil {
		c = &BucketKindCounts{Bucket: a.Bucket, RuleID: a.RuleID, Kind: a.Kind, Outcomes: map[filer.Outcome]int64{}, Bytes: map[filer.Outcome]int64{}}
		p.counts[bk] = c
	}
	c.Outcomes[a.Outcome]++
	c.Bytes[a.Outcome] += a.Size
	c.BytesFreed += a.BytesFreed
	c.HeldBytes += held
	if !p.cfg.DiscardActions {
		p.actions = append(p.actions, a)
	}
	if p.cfg.OnAction != nil {
		p.cfg.OnAction(a)
	}
}

func unixNs(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// bucketKind keys pass.counts: a bucket, rule and kind.
type bucketKind struct {
	bucket string
	rule   string
	kind   lifecycle.ActionKind
}

// bucketCounts is Result.Buckets: the pass's counts sorted by bucket, rule
// and kind.
func (p *pass) bucketCounts() []BucketKindCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]BucketKindCounts, 0, len(p.counts))
	for _, c := range p.counts {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Bucket != out[j].Bucket {
			return out[i].Bucket < out[j].Bucket
		}
		if out[i].RuleID != out[j].RuleID {
			return out[i].RuleID < out[j].RuleID
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}
