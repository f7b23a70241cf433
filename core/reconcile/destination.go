package reconcile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// destinationIDVersion is the leading element of the encoded destination
// tuple; RustFS calls it TIER_BACKEND_IDENTITY_VERSION
// (crates/ecstore/src/services/tier/tier.rs in rustfs/rustfs).
const destinationIDVersion = 2

// TierType is a tier's backend type as RustFS's tier configuration spells
// it. Only the S3-compatible types are probed by ilmctl; the type takes
// part in the destination identity, so it must be the one the cluster's
// tier configuration names.
type TierType string

// Tier types ilmctl can probe.
const (
	TierS3     TierType = "s3"
	TierMinIO  TierType = "minio"
	TierRustFS TierType = "rustfs"
)

// TierTypes lists the accepted types, for help and errors.
var TierTypes = []TierType{TierS3, TierMinIO, TierRustFS}

func (t TierType) valid() bool {
	for _, v := range TierTypes {
		if t == v {
			return true
		}
	}
	return false
}

// Destination is the credential-independent identity of a tier's backend:
// where a transitioned object lives, whoever's keys are used to reach it
// (docs/design/reconcile.md#destination-identity).
type Destination struct {
	Type     TierType `json:"type"`
	Endpoint string   `json:"endpoint"`
	Bucket   string   `json:"bucket"`
	Prefix   string   `json:"prefix"`
	Region   string   `json:"region"`
}

// NormalizedPrefix is the prefix as the identity encodes it: RustFS trims
// every leading and trailing '/' for S3 tiers and strips one trailing '/'
// for the other types.
func (d Destination) NormalizedPrefix() string {
	if d.Type == TierS3 {
		return strings.Trim(d.Prefix, "/")
	}
	return strings.TrimSuffix(d.Prefix, "/")
}

// ID is the destination's transition-tier-destination-id: SHA-256 of the
// MessagePack array (version 2, type, endpoint, bucket, normalized prefix,
// region, routing account), lowercase hex, exactly as RustFS computes it
// (encode_tier_backend_identity in crates/ecstore/src/services/tier/tier.rs).
// The routing account is empty for every S3-compatible type.
func (d Destination) ID() string {
	var b []byte
	b = append(b, 0x90|7) // fixarray of 7
	b = append(b, destinationIDVersion)
	for _, s := range []string{string(d.Type), d.Endpoint, d.Bucket, d.NormalizedPrefix(), d.Region, ""} {
		b = appendMsgpackStr(b, s)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// appendMsgpackStr appends s in the smallest MessagePack str form, as
// rmp's write_str does.
func appendMsgpackStr(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n < 1<<8:
		b = append(b, 0xd9, byte(n))
	case n < 1<<16:
		b = append(b, 0xda)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0xdb)
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	return append(b, s...)
}

// validDestinationID reports whether s is a well-formed identity: 64 hex
// digits. RustFS parses either case; ilmctl writes lowercase.
func validDestinationID(s string) error {
	if len(s) != 64 {
		return fmt.Errorf("destination id %q is not 64 hex digits", s)
	}
	if _, err := hex.DecodeString(s); err != nil {
		return fmt.Errorf("destination id %q is not hexadecimal", s)
	}
	return nil
}
