package reconcile

import (
	"context"
	"fmt"
)

// Tier is one --tiers entry with its credentials resolved. Credentials
// reach only the prober; they are never part of a plan or a report.
type Tier struct {
	Name        string
	Destination Destination
	AccessKey   string
	SecretKey   string
}

// RemoteKey is where the tier keeps a transitioned object: the prefix
// without surrounding slashes, then "/", then the object's remote name, as
// RustFS's S3 warm backend builds it (get_dest in
// crates/ecstore/src/services/tier/warm_backend_s3.rs).
func (t Tier) RemoteKey(remoteObject string) string {
	p := trimSlashes(t.Destination.Prefix)
	if p == "" {
		return remoteObject
	}
	return p + "/" + remoteObject
}

func trimSlashes(s string) string {
	for len(s) > 0 && s[0] == '/' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// Prober runs the bounded live probe of one remote object. An error means
// the tier could not be asked (unreachable, denied, no such bucket) and
// is backend-unavailable; what the tier answered is an Observation.
type Prober interface {
	Probe(ctx context.Context, t Tier, remoteKey string) (Observation, error)
}

// Observation is what the tier answered: its bucket versioning status,
// read before and after listing, and every version and delete marker of
// the exact remote key.
type Observation struct {
	// Versioning and VersioningAfter are GetBucketVersioning's Status:
	// "" (never enabled), "Enabled" or "Suspended".
	Versioning      string          `json:"versioning"`
	VersioningAfter string          `json:"versioning_after"`
	Versions        []RemoteVersion `json:"versions"`
}

// RemoteVersion is one entry of the remote key's version listing.
type RemoteVersion struct {
	VersionID    string `json:"version_id"`
	DeleteMarker bool   `json:"delete_marker,omitempty"`
}

// S3 bucket versioning statuses.
const (
	versioningDisabled  = ""
	versioningEnabled   = "Enabled"
	versioningSuspended = "Suspended"
)

// derive applies the three derivations of
// docs/design/reconcile.md#derivations to an observation and nothing
// else. ok is false, with the reason, for a missing, multiple, changing or
// unsupported result. stored is the remote version id the record already
// holds (non-empty only): the proof must agree with it, never replace it.
func derive(o Observation, stored string) (state State, remoteVersion string, reason string, ok bool) {
	switch {
	case o.Versioning != o.VersioningAfter:
		return "", "", fmt.Sprintf("tier bucket versioning changed during the probe (%q, then %q)", o.Versioning, o.VersioningAfter), false
	case o.Versioning != versioningDisabled && o.Versioning != versioningEnabled && o.Versioning != versioningSuspended:
		return "", "", fmt.Sprintf("tier bucket versioning status %q is not supported", o.Versioning), false
	case len(o.Versions) == 0:
		return "", "", "the remote object is missing on the tier", false
	case len(o.Versions) > 1:
		return "", "", fmt.Sprintf("the remote object has %d versions or delete markers on the tier; which one is ours cannot be proven", len(o.Versions)), false
	}
	v := o.Versions[0]
	if v.DeleteMarker {
		return "", "", "the remote object's only version is a delete marker", false
	}
	isNull := v.VersionID == "" || v.VersionID == NullVersion
	switch {
	case o.Versioning == versioningDisabled && isNull:
		state, remoteVersion = StateKnownDisabled, ""
	case o.Versioning == versioningSuspended && v.VersionID == NullVersion:
		state, remoteVersion = StateSuspendedNull, NullVersion
	case o.Versioning != versioningDisabled && !isNull:
		if err := checkRemoteVersion(v.VersionID); err != nil {
			return "", "", fmt.Sprintf("the tier's version id is not usable: %v", err), false
		}
		state, remoteVersion = StateExact, v.VersionID
	default:
		return "", "", fmt.Sprintf("version %q under versioning status %q matches none of known-disabled, suspended-null or exact", v.VersionID, o.Versioning), false
	}
	if stored != "" && stored != remoteVersion {
		return "", "", fmt.Sprintf("the record's transitioned-versionID %q is not what the tier proves (%s %q)", stored, state, remoteVersion), false
	}
	return state, remoteVersion, "", true
}
