package seaweedfs

import "errors"

// Typed errors. Every read that cannot be interpreted exactly is refused
// with one of these (wrapped with the path and the reason) rather than
// guessed around: the pass halts the shard and an operator sees why.
var (
	// ErrUnknownVersioning is a bucket whose Seaweed-X-Amz-Versioning value
	// is neither empty, "Enabled" nor "Suspended".
	ErrUnknownVersioning = errors.New("unknown bucket versioning state")
	// ErrBadEntry is a filer entry whose S3 metadata cannot be parsed: an
	// unparseable retention date or noncurrent-since stamp, a legal hold or
	// delete-marker flag with an unknown value, a version file whose name
	// is not v_<id> or disagrees with its version-id stamp, an upload
	// directory without its object key.
	ErrBadEntry = errors.New("unparseable SeaweedFS entry")
	// ErrDanglingLatest is a .versions directory whose latest-version
	// pointer names a version file that does not exist.
	ErrDanglingLatest = errors.New("latest-version pointer names a missing version")
	// ErrListingEnded is a filer listing that ended (EOF or a short page)
	// before the entries it had promised, or a stream that broke mid-page.
	ErrListingEnded = errors.New("filer listing ended early")
	// ErrChunkedFile is a state file stored in chunks rather than inline
	// content; ReadFile reads inline content only, as SeaweedFS's own
	// worker does (filer.ReadInsideFiler).
	ErrChunkedFile = errors.New("state file is stored in chunks, not inline")
	// ErrBadAddress is a seaweedfs:// address that is not host:port.
	ErrBadAddress = errors.New("bad seaweedfs address")
	// ErrBadSecurityConfig is a security.toml that cannot be read or parsed.
	ErrBadSecurityConfig = errors.New("bad SeaweedFS security configuration")
	// ErrBadStoreToken is a delete whose expected identity carries no store
	// token this package issued (empty or malformed): the version was not
	// listed or looked up through a seaweedfs Store.
	ErrBadStoreToken = errors.New("identity carries no SeaweedFS store token")
)
