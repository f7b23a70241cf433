package envelope

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// The writer's exact bytes, as serde_json::to_vec writes them: a checksum
// is computed over these, so one byte off rejects every valid record.
func TestAppendStringBytes(t *testing.T) {
	for in, want := range map[string]string{
		``:                   `""`,
		`plain`:              `"plain"`,
		`"`:                  `"\""`,
		`\`:                  `"\\"`,
		"\b\f\n\r\t":         `"\b\f\n\r\t"`,
		"\x00\x01\x1f":       `"\u0000\u0001\u001f"`,
		"\x0b\x1e":           `"\u000b\u001e"`, // lowercase hex, as serde
		"\x7f":               "\"\x7f\"",       // DEL is not escaped
		"é😀":                 `"é😀"`,           // UTF-8 as is, never \u escapes
		"<>&'":               `"<>&'"`,         // no HTML escaping (encoding/json would)
		"\u2028\u2029":       "\"\u2028\u2029\"",
		"/":                  `"/"`,
		"a\"b\\c\nd\x00e\tf": `"a\"b\\c\nd\u0000e\tf"`,
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestObjBytes(t *testing.T) {
	s := "x"
	var b32 [32]byte
	b32[0], b32[31] = 1, 255
	got := string(NewObj().
		Str("s", "a\nb").
		OptStr("some", &s).
		OptStr("none", nil).
		Uint("u", 18446744073709551615).
		Int("i", -9223372036854775808).
		Bool("t", true).
		Bool("f", false).
		Null("n").
		Raw("raw", []byte("{ \"k\" : [1, 2] }")).
		Raw("bad", []byte("{not json")).
		Bytes32("b", b32).
		Strings("arr", []string{"p", "q\"r"}).
		Strings("empty", nil).
		Bytes())
	want := `{"s":"a\nb","some":"x","none":null,"u":18446744073709551615,"i":-9223372036854775808,` +
		`"t":true,"f":false,"n":null,"raw":{"k":[1,2]},"bad":{not json,` +
		`"b":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,255],` +
		`"arr":["p","q\"r"],"empty":[]}`
	if got != want {
		t.Errorf("object bytes\n got %s\nwant %s", got, want)
	}
	if got := string(NewObj().Bytes()); got != "{}" {
		t.Errorf("empty object = %s", got)
	}
}

func TestSealOpenVerify(t *testing.T) {
	inner := NewObj().Str("id", "a").Uint("revision", 2).Bytes()
	sealed := Seal("schema-v1", "body", inner)
	want := `{"schema":"schema-v1","content_sha256":"` + SHA256Hex(inner) + `","body":{"id":"a","revision":2}}`
	if string(sealed) != want {
		t.Fatalf("Seal = %s, want %s", sealed, want)
	}
	env, err := Open("p", sealed, "schema-v1", "body", len(sealed))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Verify("p", inner); err != nil {
		t.Errorf("Verify of the sealed bytes: %v", err)
	}
	if err := env.Verify("p", NewObj().Str("id", "a").Uint("revision", 3).Bytes()); !errors.Is(err, ErrChecksum) {
		t.Errorf("Verify of other bytes = %v, want ErrChecksum", err)
	}

	for _, tc := range []struct {
		name string
		doc  string
		max  int
		want error
	}{
		{"too large", string(sealed), len(sealed) - 1, ErrTooLarge},
		{"other schema", strings.Replace(string(sealed), "schema-v1", "schema-v2", 1), 1 << 10, ErrSchema},
		{"unknown outer member", strings.Replace(string(sealed), `{"schema"`, `{"x":1,"schema"`, 1), 1 << 10, ErrUnknownField},
		{"missing body", `{"schema":"schema-v1","content_sha256":"` + SHA256Hex(inner) + `"}`, 1 << 10, ErrMissingField},
		{"uppercase checksum", strings.Replace(string(sealed), SHA256Hex(inner), strings.ToUpper(SHA256Hex(inner)), 1), 1 << 10, ErrChecksum},
		{"short checksum", strings.Replace(string(sealed), SHA256Hex(inner), SHA256Hex(inner)[:63], 1), 1 << 10, ErrChecksum},
		{"body not an object", `{"schema":"schema-v1","content_sha256":"` + SHA256Hex(inner) + `","body":[]}`, 1 << 10, ErrWrongType},
		{"duplicate schema", `{"schema":"schema-v1","schema":"schema-v1"}`, 1 << 10, ErrDuplicateField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Open("p", []byte(tc.doc), "schema-v1", "body", tc.max); !errors.Is(err, tc.want) {
				t.Errorf("Open = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSHA256Hex(t *testing.T) {
	if got := SHA256Hex([]byte("abc")); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("SHA256Hex(abc) = %s", got)
	}
	for s, want := range map[string]bool{
		strings.Repeat("a", 64): true, strings.Repeat("A", 64): false,
		strings.Repeat("a", 63): false, strings.Repeat("g", 64): false,
	} {
		if IsSHA256Hex(s) != want {
			t.Errorf("IsSHA256Hex(%q) = %v", s, !want)
		}
	}
}

// FuzzSealOpenRoundTrip: any inner object the writer builds seals, opens
// and verifies; and Open never panics and never accepts a checksum that
// does not match.
func FuzzSealOpenRoundTrip(f *testing.F) {
	f.Add("schema-v1", "id", "value", uint64(7))
	f.Add("", "", "\x00\"\\é", uint64(0))
	f.Fuzz(func(t *testing.T, schema, key, value string, n uint64) {
		if !utf8.ValidString(schema) || !utf8.ValidString(key) || !utf8.ValidString(value) {
			return // the reader refuses invalid UTF-8, as serde does
		}
		inner := NewObj().Str("k", key).Str("v", value).Uint("n", n).Bytes()
		sealed := Seal(schema, "body", inner)
		env, err := Open("fuzz", sealed, schema, "body", len(sealed))
		if err != nil {
			t.Fatalf("Open(Seal(...)) = %v\n%s", err, sealed)
		}
		body, err := env.Inner.String("v")
		if err != nil || body != value {
			t.Fatalf("inner v = %q, %v, want %q", body, err, value)
		}
		if err := env.Verify("fuzz", inner); err != nil {
			t.Fatalf("Verify = %v", err)
		}
		if value != "" {
			if err := env.Verify("fuzz", NewObj().Str("k", key).Str("v", value+"x").Uint("n", n).Bytes()); !errors.Is(err, ErrChecksum) {
				t.Fatalf("Verify of changed bytes = %v, want ErrChecksum", err)
			}
		}
	})
}
