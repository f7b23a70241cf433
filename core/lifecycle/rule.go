// Package lifecycle holds S3 lifecycle rules: parsing and strict validation
// of LifecycleConfiguration XML, filters, action kinds and due times, per the
// AWS lifecycle docs and docs/design/daily-run.md#action-kinds.
package lifecycle

import (
	"fmt"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// ActionKind is one lifecycle action (filer.ActionKind, where the filer
// port's DeleteRequest carries it typed).
type ActionKind = filer.ActionKind

// The six action kinds.
const (
	ExpirationDays      = filer.ExpirationDays
	ExpirationDate      = filer.ExpirationDate
	NoncurrentDays      = filer.NoncurrentDays
	NewerNoncurrent     = filer.NewerNoncurrent
	AbortMPU            = filer.AbortMPU
	ExpiredDeleteMarker = filer.ExpiredDeleteMarker
)

// Configuration is a parsed and validated LifecycleConfiguration.
type Configuration struct {
	Rules []Rule
}

// Rule is one validated lifecycle rule. Zero numeric fields mean "not set".
type Rule struct {
	ID      string
	Enabled bool // Status == "Enabled"
	Filter  Filter

	ExpirationDays            int       // Expiration/Days
	ExpirationDate            time.Time // Expiration/Date, midnight UTC; zero when unset
	ExpiredObjectDeleteMarker bool      // Expiration/ExpiredObjectDeleteMarker
	NoncurrentDays            int       // NoncurrentVersionExpiration/NoncurrentDays
	NewerNoncurrentVersions   int       // NoncurrentVersionExpiration/NewerNoncurrentVersions
	AbortMPUDays              int       // AbortIncompleteMultipartUpload/DaysAfterInitiation

	// Transitions and NoncurrentTransitions are validated as S3 validates
	// them but never executed: ilmctl runs deletion actions only, and a pass
	// reports each transition of an enabled rule as a notice. nil when none.
	Transitions           []Transition
	NoncurrentTransitions []NoncurrentTransition
}

// Transition is one Transition action: current versions move to
// StorageClass Days after creation, or on Date when Date is set (exactly
// one of the two is given; Days may be 0).
type Transition struct {
	Days         int
	Date         time.Time // midnight UTC; zero when Days is used
	StorageClass string
}

// NoncurrentTransition is one NoncurrentVersionTransition action:
// noncurrent versions move to StorageClass NoncurrentDays after they became
// noncurrent, keeping the NewerNoncurrentVersions newest (0: unset).
type NoncurrentTransition struct {
	NoncurrentDays          int
	NewerNoncurrentVersions int
	StorageClass            string
}

// The two transition elements, spelled as in the S3 schema.
const (
	TransitionElement           = "Transition"
	NoncurrentTransitionElement = "NoncurrentVersionTransition"
)

func (t Transition) String() string {
	if !t.Date.IsZero() {
		return fmt.Sprintf("%s to %s on %s", TransitionElement, t.StorageClass, t.Date.Format(time.DateOnly))
	}
	return fmt.Sprintf("%s to %s %s after creation", TransitionElement, t.StorageClass, plural(t.Days, "day"))
}

func (t NoncurrentTransition) String() string {
	s := fmt.Sprintf("%s to %s %s after becoming noncurrent", NoncurrentTransitionElement, t.StorageClass, plural(t.NoncurrentDays, "day"))
	if t.NewerNoncurrentVersions > 0 {
		s += fmt.Sprintf(", keeping %s", plural(t.NewerNoncurrentVersions, "newer noncurrent version"))
	}
	return s
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Tag is one object tag predicate; key and value must match exactly.
type Tag struct {
	Key   string
	Value string
}

// Filter selects the objects a rule applies to. Every set predicate must
// hold. Size bounds are strict (> and <) and never match delete markers.
type Filter struct {
	Prefix          string
	Tags            []Tag
	SizeGreaterThan *int64 // ObjectSizeGreaterThan, bytes
	SizeLessThan    *int64 // ObjectSizeLessThan, bytes
	// And records that the predicates came inside <And>, so an
	// explanation can name the And member that failed; it selects nothing.
	And bool
}

// Actions lists the action kinds a rule compiles to. A rule with both
// NoncurrentDays and NewerNoncurrentVersions compiles to NewerNoncurrent
// alone, which requires both conditions (AWS: both must be exceeded).
func (r *Rule) Actions() []ActionKind {
	var kinds []ActionKind
	if r.ExpirationDays > 0 {
		kinds = append(kinds, ExpirationDays)
	}
	if !r.ExpirationDate.IsZero() {
		kinds = append(kinds, ExpirationDate)
	}
	if r.ExpiredObjectDeleteMarker {
		kinds = append(kinds, ExpiredDeleteMarker)
	}
	switch {
	case r.NewerNoncurrentVersions > 0:
		kinds = append(kinds, NewerNoncurrent)
	case r.NoncurrentDays > 0:
		kinds = append(kinds, NoncurrentDays)
	}
	if r.AbortMPUDays > 0 {
		kinds = append(kinds, AbortMPU)
	}
	return kinds
}

// Days returns the day count that drives kind's due time, 0 for kinds with
// no day count (ExpirationDate, ExpiredDeleteMarker, NewerNoncurrent without
// NoncurrentDays).
func (r *Rule) Days(kind ActionKind) int {
	switch kind {
	case ExpirationDays:
		return r.ExpirationDays
	case NoncurrentDays, NewerNoncurrent:
		return r.NoncurrentDays
	case AbortMPU:
		return r.AbortMPUDays
	}
	return 0
}
