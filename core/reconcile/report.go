package reconcile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Source is the canonical immutable source tuple: the exact local version,
// its transition tuple, and the tier destination it is bound to. Any
// change to it between get and post makes the plan stale.
type Source struct {
	Bucket           string      `json:"bucket"`
	Object           string      `json:"object"`
	VersionID        string      `json:"version_id"`
	ModTimeNs        int64       `json:"mod_time_ns"`
	Size             int64       `json:"size"`
	ETag             string      `json:"etag"`
	TransitionStatus string      `json:"transition_status"`
	Tier             string      `json:"tier"`
	RemoteObject     string      `json:"remote_object"`
	RemoteKey        string      `json:"remote_key"`
	Destination      Destination `json:"destination"`
	DestinationID    string      `json:"destination_id"`
}

// SetCopy is one set's representation of the mutable keys as read: the
// original missing-state representation in a plan, the state after the
// write in a post report.
type SetCopy struct {
	Set        string `json:"set"`
	Generation uint64 `json:"generation"`
	// State is the set's decoded state, "missing" when the key is absent.
	State string   `json:"state"`
	Keys  []RawKey `json:"keys"`
}

// StateMissing is SetCopy.State for a legacy copy without the state key.
const StateMissing = "missing"

// ProbeReport is what the live probe saw, for the operator.
type ProbeReport struct {
	Tier      string `json:"tier"`
	RemoteKey string `json:"remote_key"`
	Observation
}

// Report is the result of get (then it is the plan post takes) and of
// post. Field names are a stable interface (docs/design/reconcile.md#plan).
type Report struct {
	Selector Selector `json:"selector"`
	Outcome  Outcome  `json:"outcome"`
	// Reason says, in one sentence, why the outcome is not migrated or
	// ready-to-migrate.
	Reason string `json:"reason,omitempty"`
	// Ready is true only for get's ready-to-migrate: post may attempt
	// the migration.
	Ready bool `json:"ready"`
	// BytesChanged is true when post wrote to at least one set.
	BytesChanged bool         `json:"bytes_changed"`
	Source       *Source      `json:"source"`
	Sets         []SetCopy    `json:"sets"`
	Target       *Target      `json:"target"`
	Probe        *ProbeReport `json:"probe,omitempty"`
	// Digest is the reconciliation digest of Source, Sets and Target (get
	// only).
	Digest string `json:"digest,omitempty"`
}

// Digest is the reconciliation digest: SHA-256, lowercase hex, of the JSON
// encoding of {source, sets, target} with the field names and order of
// this package (docs/design/reconcile.md#digest).
func Digest(src *Source, sets []SetCopy, target *Target) string {
	b, err := json.Marshal(struct {
		Source *Source   `json:"source"`
		Sets   []SetCopy `json:"sets"`
		Target *Target   `json:"target"`
	}{src, sets, target})
	if err != nil {
		// Only plain strings and integers are encoded.
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
