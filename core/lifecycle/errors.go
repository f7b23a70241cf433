package lifecycle

import "fmt"

// Error codes, spelled as S3 returns them from PutBucketLifecycleConfiguration.
// Parse uses MalformedXML for documents that break the published schema
// (syntax, unknown or repeated elements, a missing required element, a choice
// with more than one branch), InvalidArgument for a well-formed value out of
// range, and InvalidRequest for a combination of valid parts that S3 refuses.
const (
	CodeMalformedXML    = "MalformedXML"
	CodeInvalidArgument = "InvalidArgument"
	CodeInvalidRequest  = "InvalidRequest"
)

// Error is a rejected lifecycle configuration. Match it with errors.As to
// read the fields, or with errors.Is against ErrMalformedXML,
// ErrInvalidArgument or ErrInvalidRequest to test the code alone.
type Error struct {
	Code string // one of the Code* constants
	// RuleID is the failing rule's <ID>; empty when the rule has none or the
	// error is about the whole document.
	RuleID string
	// RuleIndex is the failing rule's 1-based position in the document; 0
	// when the error is about the whole document.
	RuleIndex int
	Message   string
}

// Sentinels for errors.Is: they match any *Error with the same Code.
var (
	ErrMalformedXML    = &Error{Code: CodeMalformedXML}
	ErrInvalidArgument = &Error{Code: CodeInvalidArgument}
	ErrInvalidRequest  = &Error{Code: CodeInvalidRequest}
)

// Error renders one line: `Code: rule "id": message`, `Code: rule #N:
// message` for a rule without an ID, or `Code: message`.
func (e *Error) Error() string {
	switch {
	case e.RuleID != "":
		return fmt.Sprintf("%s: rule %q: %s", e.Code, e.RuleID, e.Message)
	case e.RuleIndex > 0:
		return fmt.Sprintf("%s: rule #%d: %s", e.Code, e.RuleIndex, e.Message)
	}
	return e.Code + ": " + e.Message
}

// Is reports whether target is an *Error with the same Code, so the
// sentinels match every error of their code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code != "" && t.Code == e.Code
}
