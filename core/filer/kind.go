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

// ReplayEligible reports whether meta-log replay can decide the kind: every
// change that can give a target a match of it is an event of the target's
// key (docs/design/daily-run.md#action-kinds). ExpirationDate is
// walker-bound: its due time is the rule's, not an event's.
func (k ActionKind) ReplayEligible() bool {
	return k != ExpirationDate
}
