package s3

import (
	"errors"
	"fmt"
)

// Errors the s3:// backend returns (wrapped) so callers can match them with
// errors.Is.
var (
	// ErrBadAddress: the s3:// spec is not host[:port].
	ErrBadAddress = errors.New("bad s3:// address")
	// ErrNoCredentials: neither Options.Credentials nor the SDK's default
	// credential chain supplies credentials.
	ErrNoCredentials = errors.New("no S3 credentials")
	// ErrBadState: --state is neither a directory nor s3://bucket[/prefix],
	// or a state path would escape its root.
	ErrBadState = errors.New("bad --state")
	// ErrStateConflict: a conditional state write (If-Match /
	// If-None-Match) lost to another writer; the cursor is not saved.
	ErrStateConflict = errors.New("state file changed underneath this pass")
	// ErrNoConditionalWrite: the server answered a cursor PUT carrying
	// If-None-Match or If-Match with 501 NotImplemented. Cursors in its
	// buckets cannot be protected against a second pass overwriting them,
	// so none is written there.
	ErrNoConditionalWrite = errors.New("server does not implement conditional PUT (If-None-Match/If-Match), so --state s3:// cannot keep two passes from overwriting each other's cursors")
	// ErrMarkerStuck: a truncated listing's continuation markers did not
	// advance; the page is not acted on.
	ErrMarkerStuck = errors.New("listing continuation marker did not advance")
	// ErrBadListing: a listing document could not be decoded (bad XML,
	// timestamp or size); nothing on it is acted on.
	ErrBadListing = errors.New("undecodable listing")
	// ErrNoServerDate: a response carried no parseable Date header, so
	// the server's clock cannot be read.
	ErrNoServerDate = errors.New("server response has no Date header")
	// ErrIfMatchIgnored: --check-cas found that the server deletes an
	// object whose ETag does not match If-Match.
	ErrIfMatchIgnored = errors.New("server ignores If-Match on DeleteObject: identity-checked deletes are not guaranteed")
	// ErrIfMatchUnreliable: --check-cas found that the server rejects
	// If-Match, refuses a matching one, or answers success without acting.
	ErrIfMatchUnreliable = errors.New("server does not implement If-Match on DeleteObject as S3 does: identity-checked deletes are not guaranteed")
)

// APIError is an S3 error response the backend did not map to an outcome:
// the operation, target, HTTP status and S3 error code, for one log line.
type APIError struct {
	Op     string // S3 operation, e.g. "DeleteObject"
	Target string // bucket/key[@versionId]
	Status int    // HTTP status; 0 when no response arrived
	Code   string // S3 error code, e.g. "InternalError"; "" when none
	Err    error
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d %s: %v", e.Op, e.Target, e.Status, e.Code, e.Err)
}

func (e *APIError) Unwrap() error { return e.Err }
