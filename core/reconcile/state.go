// Package reconcile decides the legacy transitioned-version-state
// reconciliation of one object version: it reads the version's internal
// metadata from every set, proves the remote state through a live probe,
// and says whether, and how, the missing state may be written
// (docs/design/reconcile.md). It does no I/O of its own: sets, the probe
// and the tier's credentials are injected.
package reconcile

import (
	"errors"
	"fmt"
)

// State is RustFS's TransitionVersionState as persisted under
// transitioned-version-state: how the remote version id is to be read.
type State string

// States, in their persisted spelling. An absent key is the legacy
// missing state, which is not a State; an explicit "unknown" is corrupt
// (docs/design/reconcile.md#source-metadata).
const (
	StateKnownDisabled State = "known-disabled"
	StateSuspendedNull State = "suspended-null"
	StateExact         State = "exact"
	stateUnknown       State = "unknown"
)

func (s State) String() string { return string(s) }

// Outcome is the single result of a reconcile, per
// docs/design/reconcile.md#outcomes. Its String is the stable spelling
// scripts read from -o json.
type Outcome string

// Outcomes. ReadyToMigrate is reported only by get.
const (
	Migrated           Outcome = "migrated"
	ReadyToMigrate     Outcome = "ready-to-migrate"
	RetainedAmbiguous  Outcome = "retained-ambiguous"
	Corrupt            Outcome = "corrupt"
	BackendUnavailable Outcome = "backend-unavailable"
)

func (o Outcome) String() string { return string(o) }

// Errors that are not outcomes: the selector names nothing reconcile can
// work on. Commands report them as failures, never as an outcome.
var (
	// ErrVersionNotFound: no set holds the selected version; Get and
	// Post return it as a *VersionNotFoundError, which names it.
	ErrVersionNotFound = errors.New("version not found in any set")
	// ErrNotTransitioned: the version has no transition-status; it is not
	// a transitioned object and has no state to reconcile.
	ErrNotTransitioned = errors.New("version is not transitioned (no transition-status key)")
	// ErrPlan: a plan cannot be posted as given (edited, not ready, for
	// another selector or other sets). Nothing was read or written.
	ErrPlan = errors.New("plan rejected")
)

// VersionNotFoundError is ErrVersionNotFound for one selector.
type VersionNotFoundError struct{ Selector Selector }

func (e *VersionNotFoundError) Error() string {
	return fmt.Sprintf("%s/%s has no version %q in any set", e.Selector.Bucket, e.Selector.Object, e.Selector.VersionID)
}

// Is makes errors.Is(err, ErrVersionNotFound) match.
func (e *VersionNotFoundError) Is(target error) bool { return target == ErrVersionNotFound }
