package envelope

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// Object is one decoded JSON object whose members are read by exact key.
// encoding/json matches keys case-insensitively and keeps the last of
// duplicate keys; serde with deny_unknown_fields does neither, so codecs
// read through Object instead of unmarshalling into structs.
type Object struct {
	proto  string
	fields map[string]json.RawMessage
	order  []string
}

// ParseObject reads data as exactly one JSON object: valid UTF-8, no
// duplicate keys, no trailing bytes. proto names the protocol in errors.
func ParseObject(proto string, data []byte) (*Object, error) {
	if !utf8.Valid(data) {
		return nil, Errf(proto, "", ErrMalformed, "not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, Errf(proto, "", ErrMalformed, "%v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, Errf(proto, "", ErrWrongType, "record is not a JSON object")
	}
	o := &Object{proto: proto, fields: map[string]json.RawMessage{}}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, Errf(proto, "", ErrMalformed, "%v", err)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, Errf(proto, key, ErrMalformed, "%v", err)
		}
		if _, dup := o.fields[key]; dup {
			return nil, Errf(proto, key, ErrDuplicateField, "key appears twice")
		}
		o.fields[key] = raw
		o.order = append(o.order, key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, Errf(proto, "", ErrMalformed, "%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Errf(proto, "", ErrMalformed, "trailing data after the record")
	}
	return o, nil
}

// Keys returns member names in document order.
func (o *Object) Keys() []string { return append([]string(nil), o.order...) }

// Allow fails with ErrUnknownField on any member not in keys.
func (o *Object) Allow(keys ...string) error {
	ok := make(map[string]bool, len(keys))
	for _, k := range keys {
		ok[k] = true
	}
	for _, k := range o.order {
		if !ok[k] {
			return Errf(o.proto, k, ErrUnknownField, "field is not part of this format")
		}
	}
	return nil
}

// Has reports whether key is present (even as null).
func (o *Object) Has(key string) bool { _, ok := o.fields[key]; return ok }

// IsNull reports whether key is absent or JSON null.
func (o *Object) IsNull(key string) bool {
	raw, ok := o.fields[key]
	return !ok || string(raw) == "null"
}

// Raw returns the member's raw bytes, or nil when absent.
func (o *Object) Raw(key string) json.RawMessage { return o.fields[key] }

func (o *Object) required(key string) (json.RawMessage, error) {
	raw, ok := o.fields[key]
	if !ok {
		return nil, Errf(o.proto, key, ErrMissingField, "")
	}
	if string(raw) == "null" {
		return nil, Errf(o.proto, key, ErrWrongType, "null where a value is required")
	}
	return raw, nil
}

// String reads a required, non-null string.
func (o *Object) String(key string) (string, error) {
	raw, err := o.required(key)
	if err != nil {
		return "", err
	}
	return o.decodeString(key, raw)
}

func (o *Object) decodeString(key string, raw json.RawMessage) (string, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", Errf(o.proto, key, ErrWrongType, "want a string")
	}
	if loneSurrogate(raw) {
		// encoding/json would read it as U+FFFD; serde_json refuses it.
		return "", Errf(o.proto, key, ErrMalformed, "string holds a lone UTF-16 surrogate escape")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", Errf(o.proto, key, ErrMalformed, "%v", err)
	}
	return s, nil
}

// loneSurrogate reports whether the string literal raw has a \uXXXX escape
// of a UTF-16 surrogate that is not half of a high-low pair.
func loneSurrogate(raw []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		r, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(r), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		switch {
		case !ok:
			i++ // skip the escaped byte (\", \\, \n, …)
		case r >= 0xdc00 && r <= 0xdfff:
			return true
		case r >= 0xd800 && r <= 0xdbff:
			lo, ok := hex4(i + 6)
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}

// OptString reads an Option<String>: absent or null gives nil.
func (o *Object) OptString(key string) (*string, error) {
	if o.IsNull(key) {
		return nil, nil
	}
	s, err := o.decodeString(key, o.fields[key])
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// Uint reads a required unsigned integer no larger than max.
func (o *Object) Uint(key string, max uint64) (uint64, error) {
	raw, err := o.required(key)
	if err != nil {
		return 0, err
	}
	return o.decodeUint(key, raw, max)
}

func (o *Object) decodeUint(key string, raw json.RawMessage, max uint64) (uint64, error) {
	var u uint64
	if err := json.Unmarshal(raw, &u); err != nil {
		return 0, Errf(o.proto, key, ErrWrongType, "want an unsigned integer")
	}
	if u > max {
		return 0, Errf(o.proto, key, ErrWrongType, "value %d exceeds %d", u, max)
	}
	return u, nil
}

// OptUint reads an Option<u64>.
func (o *Object) OptUint(key string) (*uint64, error) {
	if o.IsNull(key) {
		return nil, nil
	}
	u, err := o.decodeUint(key, o.fields[key], math.MaxUint64)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// Int reads a required signed 64-bit integer. RustFS i128 nanosecond
// fields are read here too: any value outside int64 is rejected rather than
// truncated (no real Unix-nanosecond time exceeds it).
func (o *Object) Int(key string) (int64, error) {
	raw, err := o.required(key)
	if err != nil {
		return 0, err
	}
	return o.decodeInt(key, raw)
}

func (o *Object) decodeInt(key string, raw json.RawMessage) (int64, error) {
	var i int64
	if err := json.Unmarshal(raw, &i); err != nil {
		return 0, Errf(o.proto, key, ErrWrongType, "want a signed integer")
	}
	return i, nil
}

// OptInt reads an Option<i64>.
func (o *Object) OptInt(key string) (*int64, error) {
	if o.IsNull(key) {
		return nil, nil
	}
	i, err := o.decodeInt(key, o.fields[key])
	if err != nil {
		return nil, err
	}
	return &i, nil
}

// Bool reads a required boolean.
func (o *Object) Bool(key string) (bool, error) {
	raw, err := o.required(key)
	if err != nil {
		return false, err
	}
	return o.decodeBool(key, raw)
}

func (o *Object) decodeBool(key string, raw json.RawMessage) (bool, error) {
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, Errf(o.proto, key, ErrWrongType, "want true or false")
}

// OptBool reads an Option<bool>.
func (o *Object) OptBool(key string) (*bool, error) {
	if o.IsNull(key) {
		return nil, nil
	}
	b, err := o.decodeBool(key, o.fields[key])
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// Object reads a required nested object.
func (o *Object) Object(key string) (*Object, error) {
	raw, err := o.required(key)
	if err != nil {
		return nil, err
	}
	return ParseObject(o.proto+"."+key, raw)
}

// OptObject reads an optional nested object (nil when absent or null).
func (o *Object) OptObject(key string) (*Object, error) {
	if o.IsNull(key) {
		return nil, nil
	}
	return ParseObject(o.proto+"."+key, o.fields[key])
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// NilUUID is the all-zero UUID.
const NilUUID = "00000000-0000-0000-0000-000000000000"

// IsCanonicalUUID reports whether s is a lowercase hyphenated UUID, the only
// form serde's uuid crate writes.
func IsCanonicalUUID(s string) bool { return uuidRE.MatchString(s) }

// UUID reads a required, non-nil UUID in canonical form. ilmctl accepts only
// the lowercase hyphenated form RustFS writes; serde would also accept
// other spellings, but no RustFS writer produces them.
func (o *Object) UUID(key string) (string, error) {
	s, err := o.String(key)
	if err != nil {
		return "", err
	}
	return o.checkUUID(key, s)
}

func (o *Object) checkUUID(key, s string) (string, error) {
	if !IsCanonicalUUID(s) {
		return "", Errf(o.proto, key, ErrWrongType, "want a lowercase hyphenated UUID")
	}
	if s == NilUUID {
		return "", Errf(o.proto, key, ErrNilUUID, "")
	}
	return s, nil
}

// OptUUID reads an Option<Uuid>; a present value must be non-nil.
func (o *Object) OptUUID(key string) (*string, error) {
	s, err := o.OptString(key)
	if err != nil || s == nil {
		return nil, err
	}
	v, err := o.checkUUID(key, *s)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// Bytes32 reads a [u8; 32] that serde writes as an array of 32 integers.
func (o *Object) Bytes32(key string) ([32]byte, error) {
	raw, err := o.required(key)
	if err != nil {
		return [32]byte{}, err
	}
	return o.decodeBytes32(key, raw)
}

func (o *Object) decodeBytes32(key string, raw json.RawMessage) ([32]byte, error) {
	var out [32]byte
	var ints []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &ints) != nil {
		return out, Errf(o.proto, key, ErrWrongType, "want an array of 32 integers")
	}
	if len(ints) != 32 {
		return out, Errf(o.proto, key, ErrWrongType, "want 32 integers, got %d", len(ints))
	}
	for i, r := range ints {
		u, err := o.decodeUint(key, r, 255)
		if err != nil {
			return out, err
		}
		out[i] = byte(u)
	}
	return out, nil
}

// OptBytes32 reads an Option<[u8; 32]>.
func (o *Object) OptBytes32(key string) (*[32]byte, error) {
	if o.IsNull(key) {
		return nil, nil
	}
	b, err := o.decodeBytes32(key, o.fields[key])
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// StringArray reads a required array of strings.
func (o *Object) StringArray(key string) ([]string, error) {
	raw, err := o.required(key)
	if err != nil {
		return nil, err
	}
	if raw[0] != '[' {
		return nil, Errf(o.proto, key, ErrWrongType, "want an array of strings")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, Errf(o.proto, key, ErrMalformed, "%v", err)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, err := o.decodeString(key, it)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// WithoutMember re-emits the compact JSON object raw without its member
// key, keeping every other member's bytes and order. ok is false when raw
// is not an object or has no such member.
func WithoutMember(raw json.RawMessage, key string) (out json.RawMessage, ok bool) {
	o, err := ParseObject("", raw)
	if err != nil || !o.Has(key) {
		return nil, false
	}
	w := NewObj()
	for _, k := range o.order {
		if k != key {
			w.Raw(k, o.fields[k])
		}
	}
	return w.Bytes(), true
}
