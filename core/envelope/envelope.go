package envelope

// Sealed is a checksum envelope after its outer members were checked: the
// schema matched and content_sha256 is 64 lowercase hex digits. Inner is
// the inner object, not yet verified: the codec decodes it, re-encodes it
// and calls Verify, exactly as RustFS does (the checksum covers the
// re-encoding, not the stored inner bytes).
type Sealed struct {
	Schema        string
	ContentSHA256 string
	Inner         *Object
}

// Open parses an envelope {"schema":…,"content_sha256":…,"<innerKey>":{…}}
// of at most maxSize bytes whose schema must equal schema. Errors:
// ErrTooLarge, ErrMalformed, ErrUnknownField, ErrMissingField, ErrSchema,
// ErrChecksum (content_sha256 not a SHA-256 hex digest).
func Open(proto string, data []byte, schema, innerKey string, maxSize int) (*Sealed, error) {
	if len(data) > maxSize {
		return nil, Errf(proto, "", ErrTooLarge, "%d bytes > %d", len(data), maxSize)
	}
	o, err := ParseObject(proto, data)
	if err != nil {
		return nil, err
	}
	if err := o.Allow("schema", "content_sha256", innerKey); err != nil {
		return nil, err
	}
	got, err := o.String("schema")
	if err != nil {
		return nil, err
	}
	if got != schema {
		return nil, Errf(proto, "schema", ErrSchema, "got %q, want %q", got, schema)
	}
	sum, err := o.String("content_sha256")
	if err != nil {
		return nil, err
	}
	if !IsSHA256Hex(sum) {
		return nil, Errf(proto, "content_sha256", ErrChecksum, "not a lowercase SHA-256 hex digest")
	}
	inner, err := o.Object(innerKey)
	if err != nil {
		return nil, err
	}
	return &Sealed{Schema: got, ContentSHA256: sum, Inner: inner}, nil
}

// Verify checks that content_sha256 is the SHA-256 of the canonical
// re-encoding of the decoded inner object.
func (s *Sealed) Verify(proto string, reencoded []byte) error {
	if SHA256Hex(reencoded) != s.ContentSHA256 {
		return Errf(proto, "content_sha256", ErrChecksum, "stored %s…, computed %s…", s.ContentSHA256[:12], SHA256Hex(reencoded)[:12])
	}
	return nil
}

// Seal builds an envelope around the canonical inner bytes: schema, the
// SHA-256 of inner, then inner under innerKey.
func Seal(schema, innerKey string, inner []byte) []byte {
	return NewObj().
		Str("schema", schema).
		Str("content_sha256", SHA256Hex(inner)).
		Raw(innerKey, inner).
		Bytes()
}
