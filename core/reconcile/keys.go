package reconcile

import (
	"fmt"
	"strings"
	"unicode"
)

// The two compatibility prefixes RustFS reads and writes internal
// metadata under (crates/utils/src/http/metadata_compat.rs in
// rustfs/rustfs). Every key reconcile writes is written under both.
const (
	PrefixRustFS = "x-rustfs-internal-"
	PrefixMinIO  = "x-minio-internal-"
)

// Prefixes in the order keys are listed.
var Prefixes = []string{PrefixRustFS, PrefixMinIO}

// Key suffixes of the transition tuple.
const (
	SuffixStatus        = "transition-status"
	SuffixTier          = "transition-tier"
	SuffixRemoteObject  = "transitioned-object"
	SuffixRemoteVersion = "transitioned-versionID"
	SuffixState         = "transitioned-version-state"
	SuffixDestinationID = "transition-tier-destination-id"
)

// MutableSuffixes are the keys reconcile may write; the rest of the tuple
// is immutable evidence.
var MutableSuffixes = []string{SuffixState, SuffixRemoteVersion, SuffixDestinationID}

// transitionComplete is RustFS's TRANSITION_COMPLETE status.
const transitionComplete = "complete"

// maxRemoteVersionLen is RustFS's MAX_TRANSITION_VERSION_LEN.
const maxRemoteVersionLen = 1024

// NullVersion is the literal remote version id of S3's null version.
const NullVersion = "null"

// RawKey is one mutable key of one set exactly as stored: its presence and
// value. It is how a set's original missing-state representation is bound
// into a plan.
type RawKey struct {
	Key     string `json:"key"`
	Present bool   `json:"present"`
	Value   string `json:"value,omitempty"`
}

// rawMutable lists the mutable keys of md in a fixed order: each suffix
// under each prefix. A key is looked up exactly; differently-cased
// duplicates make decode fail first.
func rawMutable(md map[string]string) []RawKey {
	var out []RawKey
	for _, s := range MutableSuffixes {
		for _, p := range Prefixes {
			v, ok := md[p+s]
			out = append(out, RawKey{Key: p + s, Present: ok, Value: v})
		}
	}
	return out
}

// lookup returns the value of suffix under both prefixes, matching keys
// case-insensitively as RustFS does. present is false when no key exists;
// an error names keys that disagree or a key spelled in another case
// (which ilmctl could not rewrite exactly).
func lookup(md map[string]string, suffix string) (value string, present bool, err error) {
	for k, v := range md {
		var canonical string
		for _, p := range Prefixes {
			if strings.EqualFold(k, p+suffix) {
				canonical = p + suffix
			}
		}
		if canonical == "" {
			continue
		}
		if k != canonical {
			return "", false, fmt.Errorf("key %q is not spelled %q", k, canonical)
		}
		if present && v != value {
			return "", false, fmt.Errorf("%s differs between %s and %s (%q, %q)", suffix, PrefixRustFS, PrefixMinIO, value, v)
		}
		value, present = v, true
	}
	return value, present, nil
}

// checkRemoteVersion applies RustFS's rules for a usable remote version
// id: at most 1024 bytes, no control characters, not the nil UUID.
func checkRemoteVersion(v string) error {
	switch {
	case len(v) > maxRemoteVersionLen:
		return fmt.Errorf("remote version id is %d bytes, more than %d", len(v), maxRemoteVersionLen)
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return fmt.Errorf("remote version id %q holds a control character", v)
	case isNilUUID(v):
		return fmt.Errorf("remote version id %q is the nil UUID", v)
	}
	return nil
}

func isNilUUID(v string) bool {
	s := strings.ReplaceAll(v, "-", "")
	return len(v) == 36 && len(s) == 32 && strings.Trim(s, "0") == ""
}
