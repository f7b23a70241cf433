package embedded

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
)

// FixtureError is a fault in a fixture, with where it is: the bucket, the
// object or upload and the version it was in, and the byte offset in the
// document. Each place is a phrase ready to print: "bucket logs" (or
// "buckets[2]" before the name is known), "key app/x" (or "objects[3]"),
// "upload u1 of key big.bin" (or "uploads[0]"), "version v1" (or
// "versions[0]" for a version without a version_id).
type FixtureError struct {
	Bucket, Object, Upload, Version string
	// Offset is the byte offset in the document of the fault: the bad
	// character or value when the decoder names one, else the start of the
	// innermost value (version, object, upload, bucket) it is in; the end
	// of the document for one cut short. -1 when unknown.
	Offset int64
	Err    error
}

func (e *FixtureError) Error() string {
	var b strings.Builder
	sep := func(s string) {
		if b.Len() > 0 {
			b.WriteString(s)
		}
	}
	for _, p := range []string{e.Bucket, e.Object, e.Upload} {
		if p != "" {
			sep(", ")
			b.WriteString(p)
		}
	}
	if e.Version != "" {
		sep(": ")
		b.WriteString(e.Version)
	}
	sep(": ")
	b.WriteString(e.Err.Error())
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (byte %d)", e.Offset)
	}
	return b.String()
}

func (e *FixtureError) Unwrap() error { return e.Err }

// where is a place in the fixture, as FixtureError prints it.
type where struct {
	bucket, object, upload, version string
}

// fail locates err at w: its offset is the one an offsetErr in it
// carries, else off. An error already located is returned as it is.
func (w where) fail(off int64, err error) error {
	var fe *FixtureError
	if errors.As(err, &fe) {
		return err
	}
	var oe *offsetErr
	if errors.As(err, &oe) {
		off, err = oe.off, oe.err
	}
	return &FixtureError{Bucket: w.bucket, Object: w.object, Upload: w.upload, Version: w.version, Offset: off, Err: err}
}

// offsetErr is an error at a known byte offset of the document.
type offsetErr struct {
	off int64
	err error
}

func (e *offsetErr) Error() string { return e.err.Error() }
func (e *offsetErr) Unwrap() error { return e.err }

func at(off int64, err error) error { return &offsetErr{off: off, err: err} }

// recorder counts the bytes the decoder reads and keeps those from the
// start of the value being decoded, so a syntax error in it can be placed
// exactly (the decoder's own SyntaxError.Offset inside Decode is not an
// offset in the document). It holds one value plus the decoder's
// read-ahead.
type recorder struct {
	r     io.Reader
	buf   []byte
	base  int64 // document offset of buf[0]
	total int64 // bytes read
	eof   bool  // the reader returned io.EOF: total is the document's length
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.buf = append(r.buf, p[:n]...)
	r.total += int64(n)
	if errors.Is(err, io.EOF) {
		r.eof = true
	}
	return n, err
}

// keepFrom drops the bytes before document offset off.
func (r *recorder) keepFrom(off int64) {
	if d := off - r.base; d > 0 {
		d = min(d, int64(len(r.buf)))
		r.buf = r.buf[d:]
		r.base += d
	}
}

// from is what was read from document offset off on, nil if dropped.
func (r *recorder) from(off int64) []byte {
	if off < r.base || off-r.base > int64(len(r.buf)) {
		return nil
	}
	return r.buf[off-r.base:]
}

// syntaxOffset places a syntax error in the value the decoder began at
// document offset start (before the separator and spaces ahead of it).
func (r *recorder) syntaxOffset(start int64) int64 {
	b := r.from(start)
	i := 0
	for i < len(b) && (b[i] == ',' || b[i] == ':' || isSpace(b[i])) {
		i++
	}
	var raw json.RawMessage
	var se *json.SyntaxError
	if err := json.Unmarshal(b[i:], &raw); errors.As(err, &se) {
		return start + int64(i) + se.Offset - 1
	}
	return start + int64(i)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// decodeStrict decodes raw, the value at document offset off, into v,
// refusing unknown fields, and turns the decoder's errors into ones that
// name the field and what it wants, at the field's offset. field names
// raw itself, for a value that is not an object.
func decodeStrict(raw []byte, off int64, field string, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	var pe *time.ParseError
	switch {
	case errors.As(err, &te):
		name := te.Field
		if name == "" {
			name = field
		}
		// te.Offset is just past the value: point at its start when it
		// is a top-level field.
		o := te.Offset
		eachField(raw, func(k string, _, valOff int64, _ json.RawMessage) bool {
			if k == te.Field {
				o = valOff
				return false
			}
			return true
		})
		if te.Field == "" {
			o = 0
		}
		return at(off+o, fmt.Errorf("%s: want %s, got a JSON %s", name, jsonKind(te.Type), te.Value))
	case errors.As(err, &pe):
		name, o := badTime(raw)
		if name == "" {
			name = field
		}
		if pe.Message != "" {
			return at(off+o, fmt.Errorf("%s %q%s", name, pe.Value, pe.Message))
		}
		return at(off+o, fmt.Errorf("%s %q: want an RFC3339 time, e.g. 2026-01-01T00:00:00Z", name, pe.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		o := int64(0)
		eachField(raw, func(k string, keyOff, _ int64, _ json.RawMessage) bool {
			if k == name {
				o = keyOff
				return false
			}
			return true
		})
		return at(off+o, fmt.Errorf("unknown field %q: want %s", name, fieldNames(v)))
	}
	return at(off, err)
}

// jsonKind is what a JSON value for Go type t looks like.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	if t == reflect.TypeFor[time.Time]() {
		return "an RFC3339 time string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return t.String()
}

// fieldNames lists the JSON fields of the struct v points to.
func fieldNames(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "no fields"
	}
	var names []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	return "one of " + strings.Join(names, ", ")
}

// eachField calls fn with each top-level field of the object in raw: its
// key, the offsets in raw of its key and its value, and its value, until fn returns false. It
// stops quietly at anything that is not JSON, so it also reads the part
// of an object a document cut short holds.
func eachField(raw []byte, fn func(key string, keyOff, valOff int64, val json.RawMessage) bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return
	}
	for d.More() {
		keyOff := d.InputOffset()
		for keyOff < int64(len(raw)) && (raw[keyOff] == ',' || isSpace(raw[keyOff])) {
			keyOff++
		}
		tok, err := d.Token()
		k, ok := tok.(string)
		if err != nil || !ok {
			return
		}
		var val json.RawMessage
		if err := d.Decode(&val); err != nil || !fn(k, keyOff, d.InputOffset()-int64(len(val)), val) {
			return
		}
	}
}

// timeFields are the fixture's time fields.
var timeFields = map[string]bool{"mtime": true, "retain_until": true, "initiated": true}

// badTime is the first top-level field of raw whose string value does not
// parse as a time, with the offset of its value.
func badTime(raw []byte) (name string, off int64) {
	eachField(raw, func(k string, _, valOff int64, val json.RawMessage) bool {
		if len(val) == 0 || val[0] != '"' {
			return true
		}
		var t time.Time
		if timeFields[k] && t.UnmarshalJSON(val) != nil {
			name, off = k, valOff
			return false
		}
		return true
	})
	return name, off
}

// stringField is the string value of raw's top-level field k, "" when it
// has none; raw may be a document cut short.
func stringField(raw []byte, k string) string {
	var s string
	eachField(raw, func(key string, _, _ int64, val json.RawMessage) bool {
		if key == k {
			_ = json.Unmarshal(val, &s)
			return false
		}
		return true
	})
	return s
}
