package lifecycle

import (
	"fmt"
	"strings"
	"time"
)

// The rule elements a description names, spelled as in the S3 schema.
const (
	ExpirationElement                  = "Expiration"
	NoncurrentVersionExpirationElement = "NoncurrentVersionExpiration"
	AbortIncompleteMultipartElement    = "AbortIncompleteMultipartUpload"
)

// String says which objects f selects, in the words of the S3 schema:
// "every object", or its predicates joined by "and" (prefix P, tag K=V,
// ObjectSizeGreaterThan N, ObjectSizeLessThan N; sizes in bytes).
func (f Filter) String() string {
	var parts []string
	if f.Prefix != "" {
		parts = append(parts, "prefix "+f.Prefix)
	}
	for _, t := range f.Tags {
		parts = append(parts, "tag "+t.Key+"="+t.Value)
	}
	if f.SizeGreaterThan != nil {
		parts = append(parts, fmt.Sprintf("ObjectSizeGreaterThan %d", *f.SizeGreaterThan))
	}
	if f.SizeLessThan != nil {
		parts = append(parts, fmt.Sprintf("ObjectSizeLessThan %d", *f.SizeLessThan))
	}
	if len(parts) == 0 {
		return "every object"
	}
	return strings.Join(parts, " and ")
}

// Describe lists what r does, one line per action in document order of
// kind (Expiration, NoncurrentVersionExpiration,
// AbortIncompleteMultipartUpload, then the transitions, which ilmctl
// validates but never executes), worded as Transition.String is. A
// Disabled rule is described all the same: its status says it does
// nothing.
func (r *Rule) Describe() []string {
	var out []string
	if r.ExpirationDays > 0 {
		out = append(out, fmt.Sprintf("%s %s after creation", ExpirationElement, plural(r.ExpirationDays, "day")))
	}
	if !r.ExpirationDate.IsZero() {
		out = append(out, fmt.Sprintf("%s on %s", ExpirationElement, r.ExpirationDate.Format(time.DateOnly)))
	}
	if r.ExpiredObjectDeleteMarker {
		out = append(out, ExpirationElement+" of expired object delete markers")
	}
	switch {
	case r.NoncurrentDays > 0 && r.NewerNoncurrentVersions > 0:
		out = append(out, fmt.Sprintf("%s %s after becoming noncurrent, keeping %s", NoncurrentVersionExpirationElement,
			plural(r.NoncurrentDays, "day"), plural(r.NewerNoncurrentVersions, "newer noncurrent version")))
	case r.NoncurrentDays > 0:
		out = append(out, fmt.Sprintf("%s %s after becoming noncurrent", NoncurrentVersionExpirationElement, plural(r.NoncurrentDays, "day")))
	case r.NewerNoncurrentVersions > 0:
		out = append(out, fmt.Sprintf("%s keeping %s", NoncurrentVersionExpirationElement, plural(r.NewerNoncurrentVersions, "newer noncurrent version")))
	}
	if r.AbortMPUDays > 0 {
		out = append(out, fmt.Sprintf("%s %s after initiation", AbortIncompleteMultipartElement, plural(r.AbortMPUDays, "day")))
	}
	for _, t := range r.Transitions {
		out = append(out, t.String())
	}
	for _, t := range r.NoncurrentTransitions {
		out = append(out, t.String())
	}
	return out
}

// Status is r's <Status>: Enabled or Disabled.
func (r *Rule) Status() string {
	if r.Enabled {
		return "Enabled"
	}
	return "Disabled"
}
