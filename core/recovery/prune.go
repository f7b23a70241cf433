package recovery

import (
	"context"
	"errors"
	"fmt"
	"github.com/ilmctl/ilmctl/core/lifecycle"
	"sort"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/metastore"
)

// PruneRequest is one `recovery prune` invocation.
type PruneRequest struct {
	// ControlIDs names the controls to retire (full IDs or unambiguous
	// prefixes); empty means every terminal or abandoned control. A named
	// control that may not be retired refuses the whole run.
	ControlIDs []string
	// Execute is false for a dry run: every check runs, nothing is written.
	Execute bool
	// Now is the command's clock reading, against which MinAge is
	// measured.
	Now time.Time
	// MinAge is the retention floor (docs/design/recovery.md#prune): a
	// control that became final less than MinAge before Now, or whose
	// finishing time cannot be told, is kept. 0 is no floor.
	MinAge time.Duration
}

// PruneAction is what prune does (or would do) with one control.
type PruneAction string

// Prune actions.
const (
	PruneRemove  PruneAction = "remove"  // dry run: would be removed
	PruneRemoved PruneAction = "removed" // removed by this run
	PruneKeep    PruneAction = "keep"    // kept; Reason says why
)

// PruneItem reports one control.
type PruneItem struct {
	ControlID      string         `json:"control_id"`
	Protocol       Protocol       `json:"protocol"`
	SourcePath     string         `json:"source_path"`
	Classification Classification `json:"classification"`
	Action         PruneAction    `json:"action"`
	Reason         string         `json:"reason"`
	// Exports are the keys of the control's exports removed with it.
	Exports []string `json:"exports"`
	// KeptDispositions are its disposition receipts, which stay.
	KeptDispositions []string `json:"kept_dispositions"`
	// FinishedAt is when the control became final, RFC 3339 UTC (see
	// finishedAt); "" when that cannot be told.
	FinishedAt string `json:"finished_at,omitempty"`
}

// PruneResult reports a run. Items are sorted by control ID.
type PruneResult struct {
	DryRun bool `json:"dry_run"`
	// MinAge is the request's retention floor.
	MinAge time.Duration `json:"-"`
	Items  []PruneItem   `json:"items"`
}

type pruneArtifact struct{ key, etag string }

// Prune retires finished recovery controls from the control pool
// (pools[0]) with their exports (docs/design/recovery.md#prune). A
// control is retired only when it is terminal or abandoned, no
// disposition of it is in flight, its source record is absent from every
// pool (so a later record at that path cannot lose its history), and no
// decommission receipt covers it or its exports. Disposition receipts
// are kept: they are the compact audit record of what was abandoned.
// Exports go first, each at its exact ETag, then the control at the ETag
// it was checked at; a crash in between leaves a terminal control that
// the next run finishes, so running it again is always safe. Any export
// or disposition that fails strict decoding stops the run (ErrConflict):
// it cannot be tied to a control, so nothing is removed.
func Prune(ctx context.Context, pools []metastore.Store, req PruneRequest) (*PruneResult, error) {
	res := &PruneResult{DryRun: !req.Execute, MinAge: req.MinAge, Items: []PruneItem{}}
	if len(pools) == 0 {
		return res, errors.New("recovery.Prune: no metadata pool")
	}
	ctl := pools[0]
	// A control that fails strict decoding is never removed ('recovery
	// ls' and 'scan' report it); it does not stop retiring the others.
	controls, etags, _, err := LoadControls(ctx, ctl, 1000)
	if err != nil {
		return res, fmt.Errorf("list recovery controls: %v: %w", err, ErrIncomplete)
	}
	named := map[string]bool{}
	for _, id := range req.ControlIDs {
		c, etag, err := FindControl(ctx, ctl, id)
		if err != nil {
			return res, err
		}
		named[c.ID], controls[c.ID], etags[c.ID] = true, c, etag
	}
	exports, err := pruneExports(ctx, ctl)
	if err != nil {
		return res, err
	}
	dispositions, inflight, err := pruneDispositions(ctx, ctl)
	if err != nil {
		return res, err
	}
	written, err := lastWritten(ctx, ctl, ControlPrefix)
	if err != nil {
		return res, fmt.Errorf("list recovery controls: %v: %w", err, ErrIncomplete)
	}
	ids := make([]string, 0, len(controls))
	for id, c := range controls {
		if len(named) == 0 && c.Classification.Final() || named[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var refusals []string
	for _, id := range ids {
		c := controls[id]
		it := PruneItem{ControlID: id, Protocol: c.Protocol, SourcePath: c.SourcePath, Classification: c.Classification,
			Action: PruneRemove, Exports: []string{}, KeptDispositions: nonNilKeys(dispositions[id])}
		for _, x := range exports[id] {
			it.Exports = append(it.Exports, x.key)
		}
		finished := finishedAt(c, written[c.Key()], etags[id])
		if !finished.IsZero() {
			it.FinishedAt = finished.UTC().Format(time.RFC3339)
		}
		keep := floorCheck(c, finished, req.Now, req.MinAge)
		if keep == "" {
			keep, err = pruneCheck(ctx, pools, c, inflight[id], it.Exports)
			if err != nil {
				return res, err
			}
		}
		if keep != "" {
			it.Action, it.Reason = PruneKeep, keep
			if named[id] {
				refusals = append(refusals, id[:12]+": "+keep)
			}
		} else {
			it.Reason = string(c.Classification) + " and its source record is absent from every pool"
		}
		res.Items = append(res.Items, it)
	}
	if len(refusals) > 0 {
		return res, refused("prune %s", strings.Join(refusals, "; "))
	}
	if !req.Execute {
		return res, nil
	}
	for _, it := range res.Items {
		if it.Action == PruneRemove {
			if err := requireConditionalDelete(ctx, pools[:1]); err != nil {
				return res, err
			}
			break
		}
	}
	for i := range res.Items {
		it := &res.Items[i]
		if it.Action != PruneRemove {
			continue
		}
		c := controls[it.ControlID]
		for _, x := range exports[c.ID] {
			if err := ctl.DeleteIfMatch(ctx, x.key, x.etag); err != nil && !errors.Is(err, metastore.ErrNotFound) {
				return res, pruneDeleteErr(ctl, x.key, err)
			}
		}
		if err := ctl.DeleteIfMatch(ctx, c.Key(), etags[c.ID]); err != nil && !errors.Is(err, metastore.ErrNotFound) {
			return res, pruneDeleteErr(ctl, c.Key(), err)
		}
		if _, _, err := ctl.Get(ctx, c.Key()); !errors.Is(err, metastore.ErrNotFound) {
			return res, fmt.Errorf("%s: %s still readable after its conditional delete: %w", ctl.Name(), c.Key(), ErrConflict)
		}
		it.Action = PruneRemoved
	}
	return res, nil
}

// stamp is one listed object's ETag and modification time.
type stamp struct {
	etag string
	at   time.Time
}

// lastWritten lists prefix in s: key -> its ETag and the store's
// modification time (the server's clock for s3://, the file's mtime for
// dir:).
func lastWritten(ctx context.Context, s metastore.Store, prefix string) (map[string]stamp, error) {
	out := map[string]stamp{}
	err := metastore.ListAll(ctx, s, prefix, 1000, func(objs []metastore.Object) error {
		for _, o := range objs {
			out[o.Key] = stamp{o.ETag, o.LastModified}
		}
		return nil
	})
	return out, err
}

// finishedAt is when c became final: the store's modification time of the
// control as it was checked (a final class has no edge, so nothing writes
// a final control again), or, for an abandoned control, its disposition's
// confirmation time when that is later. Zero when the listing saw another
// generation than the one checked (its ETag differs) or no time.
func finishedAt(c *Control, listed stamp, etag string) time.Time {
	if listed.etag != etag || listed.at.IsZero() {
		return time.Time{}
	}
	at := listed.at
	if c.Disposition != nil {
		if t := time.Unix(0, c.Disposition.ConfirmedAtUnixNano); t.After(at) {
			at = t
		}
	}
	return at
}

// floorCheck returns why c is kept under the retention floor minAge at
// now ("" when it is old enough, or there is no floor). A finishing time
// that is unknown, or later than now (clocks disagree), keeps it.
func floorCheck(c *Control, finished, now time.Time, minAge time.Duration) string {
	if minAge <= 0 || !c.Classification.Final() {
		return ""
	}
	if finished.IsZero() {
		return "when it became final cannot be told (its listing changed); kept by the retention floor (--older-than)"
	}
	if finished.After(now) {
		return fmt.Sprintf("its store's clock puts its finish %s after this machine's; kept by the retention floor (--older-than)", ageString(finished.Sub(now)))
	}
	if age := now.Sub(finished); age < minAge {
		return fmt.Sprintf("final for %s, under the %s retention floor (--older-than): kept until %s",
			ageString(age), ageString(minAge), finished.Add(minAge).UTC().Format(time.RFC3339))
	}
	return ""
}

// pruneCheck returns why c must be kept ("" when it may go); an error only
// when that cannot be decided.
func pruneCheck(ctx context.Context, pools []metastore.Store, c *Control, inflight bool, exports []string) (string, error) {
	if !c.Classification.Final() {
		return fmt.Sprintf("control is %s: prune removes only terminal or abandoned controls", c.Classification), nil
	}
	if inflight {
		return "a disposition of this control is still in flight: re-run the same 'recovery abandon' first", nil
	}
	obs := Observe(ctx, pools, c.SourcePath)
	if !obs.Complete() {
		return "", fmt.Errorf("pools %s could not be read, so the absence of %s is not proven: %w", strings.Join(obs.Unreadable, ", "), c.SourcePath, ErrIncomplete)
	}
	if len(obs.Copies) > 0 {
		return fmt.Sprintf("its source record is still present in %s: removing the control would reset the record's history", obs.Copies[0].Pool), nil
	}
	cov := DecomCoverage(ctx, pools, append([]string{c.Key()}, exports...)...)
	if len(cov.Unknown) > 0 {
		return "", fmt.Errorf("decommission coverage cannot be ruled out: %s: %w", strings.Join(cov.Unknown, "; "), ErrIncomplete)
	}
	if len(cov.Active) > 0 {
		return "an active decommission receipt covers it: " + strings.Join(cov.Active, "; "), nil
	}
	return "", nil
}

func pruneDeleteErr(s metastore.Store, key string, err error) error {
	if errors.Is(err, metastore.ErrPreconditionFailed) {
		return fmt.Errorf("%s: %s changed since it was checked; it is kept: %w", s.Name(), key, ErrConflict)
	}
	if errors.Is(err, metastore.ErrConditionalDeleteUnsupported) {
		return refusal{err} // the store sent no delete
	}
	return fmt.Errorf("%s: delete %s: %w", s.Name(), key, err)
}

// pruneExports lists and strictly decodes every export, by control ID.
func pruneExports(ctx context.Context, s metastore.Store) (map[string][]pruneArtifact, error) {
	out := map[string][]pruneArtifact{}
	err := eachStored(ctx, s, ExportPrefix, 1000, func(key string, b []byte, etag string) error {
		x, err := DecodeExport(key, b)
		if err != nil {
			return fmt.Errorf("export %s fails strict decoding (%v), so its control cannot be told; nothing is pruned: %w", key, err, ErrConflict)
		}
		out[x.ControlID] = append(out[x.ControlID], pruneArtifact{key, etag})
		return nil
	})
	if err != nil && !errors.Is(err, ErrConflict) {
		err = fmt.Errorf("list recovery exports: %v: %w", err, ErrIncomplete)
	}
	return out, err
}

// pruneDispositions lists every disposition by control ID, and the
// controls one not yet Completed names.
func pruneDispositions(ctx context.Context, s metastore.Store) (map[string][]string, map[string]bool, error) {
	byControl, inflight := map[string][]string{}, map[string]bool{}
	err := eachStored(ctx, s, DispositionPrefix, 1000, func(key string, b []byte, _ string) error {
		d, err := DecodeDisposition(key, b)
		if err != nil {
			return fmt.Errorf("disposition %s fails strict decoding (%v), so its control cannot be told; nothing is pruned: %w", key, err, ErrConflict)
		}
		byControl[d.ControlID] = append(byControl[d.ControlID], key)
		if d.State != Completed {
			inflight[d.ControlID] = true
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrConflict) {
		err = fmt.Errorf("list recovery dispositions: %v: %w", err, ErrIncomplete)
	}
	return byControl, inflight, err
}

func nonNilKeys(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ageString is a control's age or floor as every table prints a
// duration (lifecycle.FormatDuration).
func ageString(d time.Duration) string { return lifecycle.FormatDuration(d) }
