// Package envelope holds what every durable ILM codec shares: the typed
// decode errors, a strict field-by-field JSON reader (exact key spelling,
// no duplicates, no unknown fields, no null where a value is required), a
// writer that emits bytes exactly as serde_json::to_vec would, and the
// checksum envelope {"schema":…,"content_sha256":…,"<inner>":{…}} used by
// transition transactions, manual-transition records and decommission
// receipts (docs/design/ilm-records.md#strict-decoding).
package envelope

import (
	"errors"
	"fmt"
)

// Sentinel invariants. Every decode failure wraps exactly one of these in a
// *DecodeError, so callers match with errors.Is and read the failed
// invariant from the message. A decoder never substitutes a default.
var (
	ErrMalformed          = errors.New("malformed JSON")
	ErrUnknownField       = errors.New("unknown field")
	ErrDuplicateField     = errors.New("duplicate field")
	ErrMissingField       = errors.New("required field missing")
	ErrFieldNotAllowed    = errors.New("field not allowed for this version")
	ErrWrongType          = errors.New("field has the wrong JSON type")
	ErrSchema             = errors.New("unsupported schema")
	ErrUnsupportedVersion = errors.New("unsupported version")
	ErrChecksum           = errors.New("content checksum mismatch")
	ErrTooLarge           = errors.New("record exceeds its size bound")
	ErrNilUUID            = errors.New("nil UUID where an identity is required")
	ErrIllegalState       = errors.New("illegal state")
	ErrIllegalRevision    = errors.New("illegal state/revision pair")
	ErrVersionState       = errors.New("version state conflicts with its version id")
	ErrIdentity           = errors.New("identity invariant failed")
	ErrPath               = errors.New("path is not the canonical path for this record")
)

// DecodeError names the protocol, the field (when one is at fault) and the
// invariant that failed. Unwrap returns the sentinel.
type DecodeError struct {
	Protocol string // e.g. "tier_delete_journal"
	Field    string // JSON field name, "" for whole-record failures
	Detail   string // one-line human detail
	Err      error  // one of the sentinels above
}

func (e *DecodeError) Error() string {
	s := e.Protocol + ": " + e.Err.Error()
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel invariant.
func (e *DecodeError) Unwrap() error { return e.Err }

// Errf builds a *DecodeError.
func Errf(protocol, field string, sentinel error, format string, args ...any) error {
	return &DecodeError{Protocol: protocol, Field: field, Err: sentinel, Detail: fmt.Sprintf(format, args...)}
}
