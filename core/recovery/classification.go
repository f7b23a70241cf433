package recovery

import "fmt"

// Classification is a control record's persisted class
// (docs/design/recovery.md#control-record). Its String is the JSON and
// table spelling.
type Classification string

// Control classifications.
const (
	// Retrying: a retryable failure is scheduled for another attempt.
	Retrying Classification = "retrying"
	// RetainedAmbiguous: the evidence cannot name a safe action (journal
	// v1/v2 without remote-version authority, unknown semantics).
	RetainedAmbiguous Classification = "retained_ambiguous"
	// Corrupt: the source bytes failed strict decoding.
	Corrupt Classification = "corrupt"
	// OperatorRequired: destructive evidence is incomplete, or automatic
	// retries ran out (32 consecutive failures or 7 days).
	OperatorRequired Classification = "operator_required"
	// Abandoned: an operator completed abandon-after-export; terminal.
	Abandoned Classification = "abandoned"
	// Terminal: the source operation resolved; terminal.
	Terminal Classification = "terminal"
)

// Classifications lists every classification, in display order.
var Classifications = []Classification{Retrying, RetainedAmbiguous, Corrupt, OperatorRequired, Abandoned, Terminal}

func (c Classification) String() string { return string(c) }

// Valid reports whether c is one of Classifications.
func (c Classification) Valid() bool {
	for _, k := range Classifications {
		if k == c {
			return true
		}
	}
	return false
}

// Final reports whether no automatic or operator action can leave c.
func (c Classification) Final() bool { return c == Abandoned || c == Terminal }

// Automatic reports whether the recovery scan may schedule attempts for c;
// every other class waits for an operator (it is never hot-looped).
func (c Classification) Automatic() bool { return c == Retrying }

// CanTransitionTo is the one table of legal classification edges. Final
// classes have none; only retained_ambiguous and operator_required records
// can be abandoned (corrupt bytes have no provable v1/v2 identity).
func (c Classification) CanTransitionTo(next Classification) bool {
	if c.Final() || !next.Valid() {
		return false
	}
	if next == Abandoned {
		return c == RetainedAmbiguous || c == OperatorRequired
	}
	return true
}

// ParseClassification is the strict inverse of String.
func ParseClassification(s string) (Classification, error) {
	c := Classification(s)
	if !c.Valid() {
		return "", fmt.Errorf("unknown classification %q", s)
	}
	return c, nil
}

// ErrorCode is the one bounded error enum a control persists; no provider
// text, endpoint or payload is ever stored.
type ErrorCode string

// Error codes.
const (
	ErrCodeNone                = ErrorCode("none")
	ErrCodeSourceProof         = ErrorCode("source_proof_unavailable")
	ErrCodeMetadataUnavailable = ErrorCode("metadata_unavailable")
	ErrCodeGenerationConflict  = ErrorCode("source_generation_conflict")
	ErrCodeRetriesExhausted    = ErrorCode("retries_exhausted")
)

// ErrorCodes lists every error code.
var ErrorCodes = []ErrorCode{ErrCodeNone, ErrCodeSourceProof, ErrCodeMetadataUnavailable, ErrCodeGenerationConflict, ErrCodeRetriesExhausted}

func (e ErrorCode) String() string { return string(e) }

// Valid reports whether e is one of ErrorCodes.
func (e ErrorCode) Valid() bool {
	for _, k := range ErrorCodes {
		if k == e {
			return true
		}
	}
	return false
}
