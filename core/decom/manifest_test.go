package decom

import (
	"errors"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
)

// TestRunToken checks the derivation against vectors computed outside Go
// from its definition (sha256sum of the command line, a NUL byte and the
// decimal start nanoseconds):
//
//	printf 'http://node{1...4}:9000/data{1...4}\0001750000000123456789' | sha256sum
//	printf 'rustfs server /data\000-5' | sha256sum
func TestRunToken(t *testing.T) {
	for _, c := range []struct {
		cmd   string
		nanos int64
		want  string
	}{
		{"http://node{1...4}:9000/data{1...4}", 1750000000123456789, "ceaf1cee0be5ec598f6e5aba844bac7549abd1f4659c4458cd16d621408f8661"},
		{"rustfs server /data", -5, "155c825e21b223d22bd9b515c774e650291ef963db8a79f767ec077f3a978425"},
	} {
		if got := RunToken(c.cmd, c.nanos); got != c.want {
			t.Errorf("RunToken(%q, %d) = %s, want %s", c.cmd, c.nanos, got, c.want)
		}
	}
}

// TestReceiptPathsSHA256: the digest is over the JSON array of the sorted
// paths (printf '["a","b\"c"]' | sha256sum; printf '[]' | sha256sum).
func TestReceiptPathsSHA256(t *testing.T) {
	if got := ReceiptPathsSHA256([]string{`b"c`, "a"}); got != "65a23d8e8e629294cbf2ca540ae00e6287c168a433739198805f7f6a627bf6f2" {
		t.Errorf("got %s", got)
	}
	if got := ReceiptPathsSHA256(nil); got != "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945" {
		t.Errorf("empty: got %s", got)
	}
}

func TestManifestCodec(t *testing.T) {
	tok := RunToken("cmd", 1)
	paths := []string{ReceiptPrefix(tok) + "b", ReceiptPrefix(tok) + "a"}
	good := string(NewManifest(tok, paths).Encode())
	want := `{"schema":"v1","run_token":"` + tok + `","receipt_count":2,"receipt_paths_sha256":"` + ReceiptPathsSHA256(paths) + `"}`
	if good != want {
		t.Fatalf("encoding\n got %s\nwant %s", good, want)
	}
	for _, c := range []struct {
		name string
		data string
		want error
	}{
		{"valid", good, nil},
		{"unknown schema", strings.Replace(good, `"v1"`, `"v2"`, 1), envelope.ErrSchema},
		{"unknown field", strings.Replace(good, `{"schema"`, `{"x":1,"schema"`, 1), envelope.ErrUnknownField},
		{"missing count", strings.Replace(good, `"receipt_count":2,`, ``, 1), envelope.ErrMissingField},
		{"negative count", strings.Replace(good, `"receipt_count":2`, `"receipt_count":-2`, 1), envelope.ErrWrongType},
		{"run token not hex", strings.Replace(good, tok, strings.ToUpper(tok), 1), envelope.ErrIdentity},
		{"digest not hex", strings.Replace(good, ReceiptPathsSHA256(paths), "x", 1), envelope.ErrChecksum},
		{"malformed", good[:20], envelope.ErrMalformed},
		{"too large", good + strings.Repeat(" ", MaxManifestSize), envelope.ErrTooLarge},
	} {
		m, err := DecodeManifest([]byte(c.data))
		if !errors.Is(err, c.want) || c.want == nil && err != nil {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			continue
		}
		if err == nil && string(m.Encode()) != c.data {
			t.Errorf("%s: re-encoding differs", c.name)
		}
	}
	m, _ := DecodeManifest([]byte(good))
	for _, c := range []struct {
		name  string
		token string
		paths []string
		want  error
	}{
		{"same set, any order", tok, []string{paths[1], paths[0]}, nil},
		{"missing path", tok, paths[:1], ErrManifestCount},
		{"other path, same count", tok, []string{paths[0], paths[0] + "x"}, ErrManifestDigest},
		{"other run", RunToken("cmd", 2), paths, ErrManifestRunToken},
	} {
		if err := m.Check(c.token, c.paths); !errors.Is(err, c.want) || c.want == nil && err != nil {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

func TestParseReceiptKey(t *testing.T) {
	tok := RunToken("cmd", 1)
	v6 := "ilm/tier-delete-journal-v6/" + strings.Repeat("a", 32) + "/" + strings.Repeat("b", 64) + ".json"
	tx := ilmpath.TransitionKey("01234567-89ab-cdef-0123-456789abcdef")
	for _, c := range []struct {
		name, key string
		want      error
		loc       Locator
	}{
		{"v6 journal with slashes", ReceiptPrefix(tok) + v6 + "/operation_id/" + strings.Repeat("c", 64) + ".json", nil,
			Locator{tok, v6, "operation_id", strings.Repeat("c", 64)}},
		{"transaction", ReceiptPrefix(tok) + tx + "/transaction_id/01234567-89ab-cdef-0123-456789abcdef.json", nil,
			Locator{tok, tx, "transaction_id", "01234567-89ab-cdef-0123-456789abcdef"}},
		{"wrong root", "decommission/other/" + tok + "/" + tx + "/job_id/x.json", envelope.ErrPath, Locator{}},
		{"bad token", ReceiptRoot + "abc/" + tx + "/transaction_id/01234567-89ab-cdef-0123-456789abcdef.json", envelope.ErrPath, Locator{}},
		{"unknown id kind", ReceiptPrefix(tok) + tx + "/probe_id/01234567-89ab-cdef-0123-456789abcdef.json", envelope.ErrPath, Locator{}},
		{"operation id not a digest", ReceiptPrefix(tok) + v6 + "/operation_id/abc.json", envelope.ErrPath, Locator{}},
		{"job id not a uuid", ReceiptPrefix(tok) + tx + "/job_id/abc.json", envelope.ErrPath, Locator{}},
		{"no .json", ReceiptPrefix(tok) + tx + "/job_id/01234567-89ab-cdef-0123-456789abcdef", envelope.ErrPath, Locator{}},
		{"unregistered source", ReceiptPrefix(tok) + "ilm/future/x.json/job_id/01234567-89ab-cdef-0123-456789abcdef.json", ilmpath.ErrUnregistered, Locator{}},
	} {
		loc, err := ParseReceiptKey(c.key)
		if !errors.Is(err, c.want) || c.want == nil && err != nil {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if err == nil && loc != c.loc {
			t.Errorf("%s: got %+v", c.name, loc)
		}
	}
}
