package recovery

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ilmctl/ilmctl/core/envelope"
)

// Key prefixes of the three recovery artifacts
// (docs/design/recovery.md#identities-and-keys).
const (
	ControlPrefix     = "ilm/recovery-controls/"
	ExportPrefix      = "ilm/recovery-exports/"
	DispositionPrefix = "ilm/recovery-dispositions/"
)

// lengthDelimited hashes parts so that no two part lists collide
// ("ab","c" vs "a","bc"): each part is its 8-byte big-endian length then
// its bytes.
func lengthDelimited(parts ...string) string {
	var b []byte
	for _, p := range parts {
		b = binary.BigEndian.AppendUint64(b, uint64(len(p)))
		b = append(b, p...)
	}
	return envelope.SHA256Hex(b)
}

// corruptDomain separates the identity of a record whose semantic ID
// cannot be trusted: its canonical path stands for it.
const corruptDomain = "corrupt"

// ControlID is the source-operation digest: SHA-256 over the
// length-delimited protocol, canonical source path and stable semantic
// identity ("corrupt" for bytes whose identity cannot be trusted).
func ControlID(protocol Protocol, path, stableIdentity string) string {
	return lengthDelimited("rustfs-ilm-recovery-control-v1", string(protocol), path, stableIdentity)
}

// ExportID is SHA-256 of the control ID and the exact observed source
// content and copy-set digests.
func ExportID(controlID, contentSHA256, copySetSHA256 string) string {
	return lengthDelimited("rustfs-ilm-recovery-export-v1", controlID, contentSHA256, copySetSHA256)
}

// DispositionID is SHA-256 of the export ID and the bounded action.
func DispositionID(exportID string, action Action) string {
	return lengthDelimited("rustfs-ilm-recovery-disposition-v1", exportID, string(action))
}

func sharded(prefix string, protocol Protocol, id string) string {
	return prefix + string(protocol) + "/" + id[:2] + "/" + id[2:4] + "/" + id + ".json"
}

// ControlKey is ilm/recovery-controls/<protocol>/<aa>/<bb>/<id>.json.
func ControlKey(protocol Protocol, id string) string { return sharded(ControlPrefix, protocol, id) }

// ExportKey is ilm/recovery-exports/<protocol>/<aa>/<bb>/<id>.json.
func ExportKey(protocol Protocol, id string) string { return sharded(ExportPrefix, protocol, id) }

// DispositionKey is ilm/recovery-dispositions/<protocol>/<aa>/<bb>/<id>.json.
func DispositionKey(protocol Protocol, id string) string {
	return sharded(DispositionPrefix, protocol, id)
}

// ParseArtifactKey splits a recovery artifact key under prefix into its
// protocol and ID, requiring the exact canonical form.
func ParseArtifactKey(prefix, key string) (Protocol, string, error) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return "", "", fmt.Errorf("%q is not under %s", key, prefix)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return "", "", fmt.Errorf("%q: want %s<protocol>/<aa>/<bb>/<id>.json", key, prefix)
	}
	p, err := ParseProtocol(parts[0])
	if err != nil {
		return "", "", fmt.Errorf("%q: %w", key, err)
	}
	id, ok := strings.CutSuffix(parts[3], ".json")
	if !ok || !envelope.IsSHA256Hex(id) || parts[1] != id[:2] || parts[2] != id[2:4] {
		return "", "", fmt.Errorf("%q is not a canonical %s key", key, prefix)
	}
	return p, id, nil
}

// Protocol is the source protocol a control belongs to; its values are
// the `ilmctl journal` protocol names.
type Protocol string

// Source protocols that get recovery controls.
const (
	ProtoJournal    Protocol = "tier_delete_journal"
	ProtoManifest   Protocol = "tier_delete_manifest"
	ProtoTransition Protocol = "transition_transaction"
	ProtoManual     Protocol = "manual_transition"
)

// Protocols lists the source protocols.
var Protocols = []Protocol{ProtoJournal, ProtoManifest, ProtoTransition, ProtoManual}

func (p Protocol) String() string { return string(p) }

// ParseProtocol is the strict inverse of String.
func ParseProtocol(s string) (Protocol, error) {
	for _, p := range Protocols {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown protocol %q", s)
}

// Action is the bounded operator action of a disposition.
type Action string

// ActionAbandonRemoteCleanup is the only disposition: abandon after export.
const ActionAbandonRemoteCleanup Action = "abandon_remote_cleanup"

// ReasonCode is the bounded operator reason recorded with a disposition.
type ReasonCode string

// ReasonLegacyRemoteCleanupAbandoned is the one accepted reason.
const ReasonLegacyRemoteCleanupAbandoned ReasonCode = "legacy_remote_cleanup_abandoned"

// ReasonCodes lists accepted reasons.
var ReasonCodes = []ReasonCode{ReasonLegacyRemoteCleanupAbandoned}
