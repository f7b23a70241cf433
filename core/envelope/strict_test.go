package envelope

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// read runs one accessor of the strict reader on doc's member "v".
type read func(o *Object) error

var (
	readString = func(o *Object) error { _, err := o.String("v"); return err }
	readOptStr = func(o *Object) error { _, err := o.OptString("v"); return err }
	readUint8  = func(o *Object) error { _, err := o.Uint("v", math.MaxUint8); return err }
	readOptU   = func(o *Object) error { _, err := o.OptUint("v"); return err }
	readInt    = func(o *Object) error { _, err := o.Int("v"); return err }
	readBool   = func(o *Object) error { _, err := o.Bool("v"); return err }
	readUUID   = func(o *Object) error { _, err := o.UUID("v"); return err }
	readOptID  = func(o *Object) error { _, err := o.OptUUID("v"); return err }
	readB32    = func(o *Object) error { _, err := o.Bytes32("v"); return err }
	readStrs   = func(o *Object) error { _, err := o.StringArray("v"); return err }
	readObj    = func(o *Object) error { _, err := o.Object("v"); return err }
	allowV     = func(o *Object) error { return o.Allow("v") }
)

const uuid = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

func ints32(n, v string) string {
	return "[" + strings.Repeat(v+",", 31) + n + "]"
}

// Every refusal of the strict reader, each with the sentinel a caller
// matches: these are the ways a durable record is corrupt.
func TestStrictReaderRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		read read
		want error
	}{
		// ParseObject
		{"not UTF-8", "{\"v\":\"\xff\"}", nil, ErrMalformed},
		{"not JSON", `{"v":`, nil, ErrMalformed},
		{"array, not an object", `["v"]`, nil, ErrWrongType},
		{"string, not an object", `"v"`, nil, ErrWrongType},
		{"trailing data", `{"v":1} {}`, nil, ErrMalformed},
		{"trailing garbage", `{"v":1}x`, nil, ErrMalformed},
		{"duplicate key", `{"v":1,"v":1}`, nil, ErrDuplicateField},
		{"duplicate key through an escape", `{"v":1,"\u0076":2}`, nil, ErrDuplicateField},
		{"empty input", ``, nil, ErrMalformed},
		// Allow
		{"unknown key", `{"v":1,"w":2}`, allowV, ErrUnknownField},
		{"key in another case", `{"V":1}`, allowV, ErrUnknownField},
		// required members
		{"missing", `{}`, readString, ErrMissingField},
		{"null where required", `{"v":null}`, readString, ErrWrongType},
		{"null uint", `{"v":null}`, readUint8, ErrWrongType},
		{"null bool", `{"v":null}`, readBool, ErrWrongType},
		{"null object", `{"v":null}`, readObj, ErrWrongType},
		// types
		{"number for a string", `{"v":1}`, readString, ErrWrongType},
		{"string for a uint", `{"v":"1"}`, readUint8, ErrWrongType},
		{"uint above its bound", `{"v":256}`, readUint8, ErrWrongType},
		{"negative uint", `{"v":-1}`, readUint8, ErrWrongType},
		{"fraction", `{"v":1.0}`, readUint8, ErrWrongType},
		{"exponent", `{"v":1e2}`, readUint8, ErrWrongType},
		{"uint above u64", `{"v":18446744073709551616}`, readOptU, ErrWrongType},
		{"int above i64", `{"v":9223372036854775808}`, readInt, ErrWrongType},
		{"string for a bool", `{"v":"true"}`, readBool, ErrWrongType},
		{"number for a bool", `{"v":1}`, readBool, ErrWrongType},
		{"string for an object", `{"v":"{}"}`, readObj, ErrWrongType},
		{"nested object malformed", `{"v":{"a":1,"a":2}}`, readObj, ErrDuplicateField},
		{"lone high surrogate", `{"v":"a\ud800b"}`, readString, ErrMalformed},
		{"lone low surrogate", `{"v":"\udc00"}`, readString, ErrMalformed},
		{"high surrogate at the end", `{"v":"\ud83d"}`, readString, ErrMalformed},
		{"two high surrogates", `{"v":"\ud83d\ud83d"}`, readString, ErrMalformed},
		{"lone surrogate in an optional string", `{"v":"\ud800"}`, readOptStr, ErrMalformed},
		{"lone surrogate in an array", `{"v":["ok","\ud800"]}`, readStrs, ErrMalformed},
		// UUIDs
		{"uppercase UUID", `{"v":"` + strings.ToUpper(uuid) + `"}`, readUUID, ErrWrongType},
		{"simple UUID", `{"v":"` + strings.ReplaceAll(uuid, "-", "") + `"}`, readUUID, ErrWrongType},
		{"nil UUID", `{"v":"` + NilUUID + `"}`, readUUID, ErrNilUUID},
		{"nil optional UUID", `{"v":"` + NilUUID + `"}`, readOptID, ErrNilUUID},
		// [u8; 32]
		{"31 bytes", `{"v":[` + strings.TrimSuffix(strings.Repeat("1,", 31), ",") + `]}`, readB32, ErrWrongType},
		{"33 bytes", `{"v":[` + strings.Repeat("1,", 32) + `1]}`, readB32, ErrWrongType},
		{"byte 256", `{"v":` + ints32("256", "0") + `}`, readB32, ErrWrongType},
		{"hex string for bytes", `{"v":"` + strings.Repeat("00", 32) + `"}`, readB32, ErrWrongType},
		// string arrays
		{"object for an array", `{"v":{}}`, readStrs, ErrWrongType},
		{"number in a string array", `{"v":["a",1]}`, readStrs, ErrWrongType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseObject("test", []byte(tc.doc))
			if err == nil && tc.read != nil {
				err = tc.read(o)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Protocol == "" || !strings.HasPrefix(err.Error(), de.Protocol+": ") {
				t.Errorf("error %q is not a *DecodeError naming its protocol", err)
			}
		})
	}
}

// What the reader accepts, and reads exactly.
func TestStrictReaderAccepts(t *testing.T) {
	doc := `{"s":"a\"\\\u00e9\ud83d\ude00","n":null,"u":255,"i":-9223372036854775808,"b":false,` +
		`"id":"` + uuid + `","arr":["x","y"],"obj":{"k":1},"b32":` + ints32("255", "0") + `}`
	o, err := ParseObject("test", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Allow("s", "n", "u", "i", "b", "id", "arr", "obj", "b32", "never-present"); err != nil {
		t.Errorf("Allow with a superset: %v", err)
	}
	if got := o.Keys(); strings.Join(got, ",") != "s,n,u,i,b,id,arr,obj,b32" {
		t.Errorf("Keys = %v, want document order", got)
	}
	if s, err := o.String("s"); err != nil || s != "a\"\\é😀" {
		t.Errorf("String = %q, %v", s, err)
	}
	for _, k := range []string{"n", "absent"} {
		if s, err := o.OptString(k); err != nil || s != nil {
			t.Errorf("OptString(%s) = %v, %v, want nil", k, s, err)
		}
		if u, err := o.OptUint(k); err != nil || u != nil {
			t.Errorf("OptUint(%s) = %v, %v, want nil", k, u, err)
		}
		if v, err := o.OptUUID(k); err != nil || v != nil {
			t.Errorf("OptUUID(%s) = %v, %v, want nil", k, v, err)
		}
		if v, err := o.OptObject(k); err != nil || v != nil {
			t.Errorf("OptObject(%s) = %v, %v, want nil", k, v, err)
		}
	}
	if !o.Has("n") || o.Has("absent") || !o.IsNull("n") || !o.IsNull("absent") || o.IsNull("u") {
		t.Error("Has/IsNull disagree with the document")
	}
	if u, err := o.Uint("u", 255); err != nil || u != 255 {
		t.Errorf("Uint = %d, %v", u, err)
	}
	if i, err := o.Int("i"); err != nil || i != math.MinInt64 {
		t.Errorf("Int = %d, %v", i, err)
	}
	if b, err := o.Bool("b"); err != nil || b {
		t.Errorf("Bool = %v, %v", b, err)
	}
	if id, err := o.UUID("id"); err != nil || id != uuid {
		t.Errorf("UUID = %q, %v", id, err)
	}
	if a, err := o.StringArray("arr"); err != nil || strings.Join(a, ",") != "x,y" {
		t.Errorf("StringArray = %v, %v", a, err)
	}
	if n, err := o.Object("obj"); err != nil || string(n.Raw("k")) != "1" {
		t.Errorf("Object = %v, %v", n, err)
	}
	if b, err := o.Bytes32("b32"); err != nil || b[31] != 255 || b[0] != 0 {
		t.Errorf("Bytes32 = %v, %v", b, err)
	}
	if string(o.Raw("obj")) != `{"k":1}` {
		t.Errorf("Raw = %s, want the member's bytes", o.Raw("obj"))
	}
}

func TestLoneSurrogate(t *testing.T) {
	for raw, want := range map[string]bool{
		`"plain"`:               false,
		`"\ud83d\ude00"`:        false, // a pair
		`"\\ud800"`:             false, // an escaped backslash, then text
		`"\\\ud800"`:            true,
		`"\u00e9\n\t\"\\"`:      false,
		`"\ud800"`:              true,
		`"\udfff"`:              true,
		`"\ud83d\u0041"`:        true,
		`"\ud83dx"`:             true,
		`"x\ud83d\ude00\ud800"`: true,
		`"\uD83D\uDE00"`:        false, // uppercase hex is a pair too
		`"\uzzzz"`:              false, // not a \u escape the reader decodes; json.Unmarshal refuses it
	} {
		if got := loneSurrogate([]byte(raw)); got != want {
			t.Errorf("loneSurrogate(%s) = %v, want %v", raw, got, want)
		}
	}
}

// FuzzStrictStringRoundTrip: whatever valid string the writer encodes, the
// reader reads back unchanged; and the reader never panics on any input.
func FuzzStrictStringRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\\b\f\n\r\t\x00\x1f\x7f", "é😀", "\u2028<>&", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		doc := NewObj().Str("v", s).Bytes()
		o, err := ParseObject("fuzz", doc)
		if err != nil {
			t.Fatalf("%q: the reader refuses the writer's %s: %v", s, doc, err)
		}
		got, err := o.String("v")
		if err != nil || got != s {
			t.Fatalf("%q: read back %q, %v", s, got, err)
		}
		_, _ = ParseObject("fuzz", []byte(s)) // must not panic
	})
}
