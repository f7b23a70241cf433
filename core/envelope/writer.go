package envelope

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// Obj builds one JSON object byte-for-byte as serde_json::to_vec writes a
// derived struct: fields in declaration order, no whitespace, strings
// escaped the serde way (", \, \b, \f, \n, \r, \t, other C0 controls as
// \u00XX lowercase; nothing else escaped, no HTML escaping). Checksums are
// computed over these bytes, so field order here is part of the format.
type Obj struct {
	b []byte
	n int
}

// NewObj starts an object.
func NewObj() *Obj { return &Obj{b: []byte{'{'}} }

func (o *Obj) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = AppendString(o.b, k)
	o.b = append(o.b, ':')
}

// Str writes a string member.
func (o *Obj) Str(k, v string) *Obj { o.key(k); o.b = AppendString(o.b, v); return o }

// OptStr writes v, or null when v is nil (serde's Option without skip).
func (o *Obj) OptStr(k string, v *string) *Obj {
	if v == nil {
		return o.Null(k)
	}
	return o.Str(k, *v)
}

// Uint writes an unsigned integer member.
func (o *Obj) Uint(k string, v uint64) *Obj {
	o.key(k)
	o.b = strconv.AppendUint(o.b, v, 10)
	return o
}

// Int writes a signed integer member.
func (o *Obj) Int(k string, v int64) *Obj {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
	return o
}

// Bool writes a boolean member.
func (o *Obj) Bool(k string, v bool) *Obj {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
	return o
}

// Null writes a null member.
func (o *Obj) Null(k string) *Obj { o.key(k); o.b = append(o.b, "null"...); return o }

// Raw writes pre-encoded JSON. raw is compacted first so that bytes read
// from a serde writer round-trip unchanged.
func (o *Obj) Raw(k string, raw []byte) *Obj {
	o.key(k)
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		o.b = append(o.b, raw...)
		return o
	}
	o.b = append(o.b, buf.Bytes()...)
	return o
}

// Bytes32 writes a [u8; 32] as serde does: an array of 32 integers.
func (o *Obj) Bytes32(k string, v [32]byte) *Obj {
	o.key(k)
	o.b = append(o.b, '[')
	for i, c := range v {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = strconv.AppendUint(o.b, uint64(c), 10)
	}
	o.b = append(o.b, ']')
	return o
}

// Strings writes an array of strings.
func (o *Obj) Strings(k string, v []string) *Obj {
	o.key(k)
	o.b = append(o.b, '[')
	for i, s := range v {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = AppendString(o.b, s)
	}
	o.b = append(o.b, ']')
	return o
}

// Bytes closes the object and returns its encoding.
func (o *Obj) Bytes() []byte { return append(o.b, '}') }

// AppendString appends s as a serde_json string literal.
func AppendString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

// SHA256Hex is lowercase hex SHA-256, RustFS's hex_sha256.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// IsSHA256Hex reports whether s is 64 lowercase hex digits.
func IsSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
