// Package metastore defines the metadata-store port ("pool") the durable
// ILM protocols need: strong read with ETag, create-only put, ETag CAS,
// ETag-conditional delete and paged listing
// (docs/design/recovery.md#metadata-store-write-contract). Implementations
// live in client/metastore.
package metastore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors every Store returns (wrapped) so callers can errors.Is them. The
// three write outcomes are distinct, and every Store returns the same one
// for the same situation (docs/design/recovery.md#metadata-store-write-contract):
//
//   - ErrNotFound: the key does not exist (Get, PutIfMatch, DeleteIfMatch);
//   - ErrExists: PutIfAbsent found the key already present;
//   - ErrPreconditionFailed: the key exists but its ETag is not the one
//     PutIfMatch or DeleteIfMatch named.
var (
	ErrNotFound                = errors.New("key not found")
	ErrExists                  = errors.New("key already exists")
	ErrPreconditionFailed      = errors.New("precondition failed: ETag changed")
	ErrTruncatedWithoutToken   = errors.New("list page is truncated but has no continuation token")
	ErrPaginationDidNotAdvance = errors.New("list continuation token did not advance")
	// ErrConditionalDeleteUnsupported: the pool's server was asked to
	// delete an object with a wrong If-Match and deleted it (or otherwise
	// did not answer a conditional delete as S3 does), so its
	// DeleteIfMatch would not be conditional. Nothing is deleted on such a
	// pool (docs/design/recovery.md#conditional-delete-probe).
	ErrConditionalDeleteUnsupported = errors.New("server does not honour If-Match on DeleteObject")
)

// Object is one listed key.
type Object struct {
	Key          string
	ETag         string
	Size         int64
	LastModified time.Time
}

// Page is one list response.
type Page struct {
	Objects   []Object
	Truncated bool
	NextToken string
}

// Reader is the read half of a pool: what read-only tools (ilmctl decom
// verify) are given, so they cannot write.
type Reader interface {
	// Name identifies the pool in output (its URL).
	Name() string
	// Get is a strong read returning the bytes and their ETag.
	Get(ctx context.Context, key string) ([]byte, string, error)
	// List returns up to limit keys under prefix after token, in key order.
	List(ctx context.Context, prefix, token string, limit int) (Page, error)
}

// Store is one metadata pool.
type Store interface {
	Reader
	// PutIfAbsent creates key only if absent (If-None-Match: *); an
	// existing key is ErrExists.
	PutIfAbsent(ctx context.Context, key string, data []byte) (string, error)
	// PutIfMatch replaces key only if its ETag is etag (If-Match); a
	// missing key is ErrNotFound (and is not created), another ETag
	// ErrPreconditionFailed.
	PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error)
	// DeleteIfMatch removes key only if its ETag is etag; a missing key is
	// ErrNotFound, another ETag ErrPreconditionFailed.
	DeleteIfMatch(ctx context.Context, key, etag string) error
	// CheckConditionalDelete tells, before a destructive step, whether
	// DeleteIfMatch is really conditional
	// (docs/design/recovery.md#conditional-delete-probe): nil when it is
	// (a dir: store compares and deletes under its lock; an s3:// store
	// asks its server), an error wrapping ErrConditionalDeleteUnsupported
	// when the server showed it is not, and another error when that could
	// not be established, which is no permission to delete either. Every
	// Store answers, so a wrapper that embeds one passes the question on.
	CheckConditionalDelete(ctx context.Context) error
}

// ListAll pages through prefix, validating each page before fn sees any
// of its objects: a truncated page without a continuation token, or a
// token that does not advance, is an error and fn is not called for that
// page: a listing either covers the prefix or is an error, never quietly
// short.
func ListAll(ctx context.Context, s Reader, prefix string, pageSize int, fn func([]Object) error) error {
	token := ""
	for {
		page, err := s.List(ctx, prefix, token, pageSize)
		if err != nil {
			return err
		}
		if page.Truncated && page.NextToken == "" {
			return fmt.Errorf("%s: list %q after %q: %w", s.Name(), prefix, token, ErrTruncatedWithoutToken)
		}
		if page.Truncated && page.NextToken == token {
			return fmt.Errorf("%s: list %q: %w", s.Name(), prefix, ErrPaginationDidNotAdvance)
		}
		if err := fn(page.Objects); err != nil {
			return err
		}
		if !page.Truncated {
			return nil
		}
		token = page.NextToken
	}
}
