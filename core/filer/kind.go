package filer

// ActionKind is one lifecycle action, spelled as SeaweedFS's engine
// constants are (weed/s3api/s3lifecycle/action_kind.go) without the
// ActionKind prefix. core/lifecycle names it too (lifecycle.ActionKind).
type ActionKind string

// The six action kinds.
const (
	ExpirationDays      ActionKind = "ExpirationDays"
	ExpirationDate      ActionKind = "ExpirationDate"
	NoncurrentDays      ActionKind = "NoncurrentDays"
	NewerNoncurrent     ActionKind = "NewerNoncurrent"
	AbortMPU            ActionKind = "AbortMPU"
	ExpiredDeleteMarker ActionKind = "ExpiredDeleteMarker"
)

// ReplayEligible reports whether the kind's due time is event-time monotonic
// (ExpirationDays, NoncurrentDays, AbortMPU), so meta-log replay can decide
// it; the others are walker-bound (docs/design/daily-run.md#action-kinds).
func (k ActionKind) ReplayEligible() bool {
	return k == ExpirationDays || k == NoncurrentDays || k == AbortMPU
}
