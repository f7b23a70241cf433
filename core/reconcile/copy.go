package reconcile

import (
	"context"
	"errors"
	"fmt"
)

// Selector names exactly one object version. VersionID "null" selects the
// null version; an empty VersionID is invalid (there is no "latest").
type Selector struct {
	Bucket    string `json:"bucket"`
	Object    string `json:"object"`
	VersionID string `json:"version_id"`
}

// Check rejects an incomplete selector.
func (s Selector) Check() error {
	switch {
	case s.Bucket == "":
		return errors.New("bucket is empty")
	case s.Object == "":
		return errors.New("object is empty")
	case s.VersionID == "":
		return errors.New(`version id is empty: name the exact version, or "null" for an unversioned object`)
	}
	return nil
}

// Copy is one set's copy of the selected version: its identity, its
// internal metadata (both prefixes, as stored) and the generation a
// conditional write must name.
type Copy struct {
	VersionID  string
	ModTimeNs  int64 // Unix nanoseconds
	Size       int64 // bytes
	ETag       string
	Internal   map[string]string
	Generation uint64
}

// Set is one pool/set holding a copy of the version's metadata.
type Set interface {
	// Name identifies the set in plans and reports (the --filer spec).
	Name() string
	// Read strongly reads the version's copy; an error matching
	// ErrVersionNotFound when the set does not hold the version.
	Read(ctx context.Context, s Selector) (Copy, error)
	// Write sets keys in the version's internal metadata if, and only if,
	// its generation is still generation; otherwise it changes nothing and
	// returns an error matching ErrGenerationConflict.
	Write(ctx context.Context, s Selector, generation uint64, keys map[string]string) error
}

// ErrGenerationConflict: a conditional write named a generation that is
// no longer current; nothing was written.
var ErrGenerationConflict = errors.New("metadata generation changed since it was read")

// tuple is a copy's transition tuple, decoded and validated.
type tuple struct {
	status, tier, remoteObject string
	remoteVersion              string
	remoteVersionPresent       bool
	state                      State // "" when the key is absent (legacy)
	destinationID              string
}

// corruptError is evidence that makes the record corrupt; reconcile
// neither probes nor writes.
type corruptError struct{ reason string }

func (e *corruptError) Error() string { return e.reason }

func corruptf(format string, args ...any) error {
	return &corruptError{reason: fmt.Sprintf(format, args...)}
}

// decode validates a copy's transition keys under both prefixes, per
// docs/design/reconcile.md#source-metadata. Errors are *corruptError or
// ErrNotTransitioned.
func decode(c Copy) (tuple, error) {
	var t tuple
	get := func(suffix string) (string, bool, error) {
		v, ok, err := lookup(c.Internal, suffix)
		if err != nil {
			return "", false, corruptf("%v", err)
		}
		return v, ok, nil
	}
	status, ok, err := get(SuffixStatus)
	if err != nil {
		return t, err
	}
	if !ok {
		return t, ErrNotTransitioned
	}
	if status != transitionComplete {
		return t, corruptf("transition-status is %q, not %q: partial transition metadata", status, transitionComplete)
	}
	t.status = status
	if t.tier, ok, err = get(SuffixTier); err != nil {
		return t, err
	} else if !ok || t.tier == "" {
		return t, corruptf("transition-tier is missing or empty: partial transition metadata")
	}
	if t.remoteObject, ok, err = get(SuffixRemoteObject); err != nil {
		return t, err
	} else if !ok || t.remoteObject == "" {
		return t, corruptf("transitioned-object is missing or empty: partial transition metadata")
	}
	if t.remoteVersion, t.remoteVersionPresent, err = get(SuffixRemoteVersion); err != nil {
		return t, err
	}
	if t.remoteVersion != "" {
		if err := checkRemoteVersion(t.remoteVersion); err != nil {
			return t, corruptf("transitioned-versionID: %v", err)
		}
	}
	state, statePresent, err := get(SuffixState)
	if err != nil {
		return t, err
	}
	if statePresent {
		switch State(state) {
		case StateKnownDisabled, StateSuspendedNull, StateExact:
			t.state = State(state)
		case stateUnknown:
			return t, corruptf("transitioned-version-state is an explicit %q: only an absent state is legacy", state)
		default:
			return t, corruptf("transitioned-version-state %q is not known-disabled, suspended-null or exact", state)
		}
		if !stateMatchesVersion(t.state, t.remoteVersion) {
			return t, corruptf("transitioned-version-state %q conflicts with transitioned-versionID %q", t.state, t.remoteVersion)
		}
	}
	dest, destPresent, err := get(SuffixDestinationID)
	if err != nil {
		return t, err
	}
	if destPresent {
		if err := validDestinationID(dest); err != nil {
			return t, corruptf("transition-tier-destination-id: %v", err)
		}
		t.destinationID = dest
	}
	return t, nil
}

// stateMatchesVersion is RustFS's validate_transition_version_state:
// known-disabled has no remote version, suspended-null has "null", exact
// has any other non-empty id.
func stateMatchesVersion(s State, version string) bool {
	switch s {
	case StateKnownDisabled:
		return version == ""
	case StateSuspendedNull:
		return version == NullVersion
	case StateExact:
		return version != "" && version != NullVersion
	}
	return false
}

// explicit returns the copy's state as a target, and whether it has one.
func (t tuple) explicit() (Target, bool) {
	if t.state == "" {
		return Target{}, false
	}
	return Target{State: t.state, RemoteVersionID: t.remoteVersion, DestinationID: t.destinationID}, true
}

// Target is the proven {state, remote version, destination identity} a
// missing state is advanced to.
type Target struct {
	State           State  `json:"state"`
	RemoteVersionID string `json:"remote_version_id,omitempty"`
	DestinationID   string `json:"destination_id"`
}

// writes is every key a write of t sets: the state, the remote version id
// when the state has one, and the destination identity, each under both
// prefixes. Known-disabled leaves the version id keys as they are (absent
// or empty: anything else was refused before).
func (t Target) writes() map[string]string {
	m := map[string]string{}
	for _, p := range Prefixes {
		m[p+SuffixState] = string(t.State)
		m[p+SuffixDestinationID] = t.DestinationID
		if t.State != StateKnownDisabled {
			m[p+SuffixRemoteVersion] = t.RemoteVersionID
		}
	}
	return m
}
