// Package codectest is the table harness the ILM record codecs' tests
// share (core/manualjob, core/tierdelete, core/transition): each case is a
// stored key and its bytes, and either decodes and re-encodes to exactly
// those bytes or is refused with a typed *envelope.DecodeError matching a
// sentinel.
package codectest

import (
	"errors"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
)

// Case is one decoder input. Want nil means the bytes must decode and
// re-encode unchanged; otherwise the error must be a *envelope.DecodeError
// for which errors.Is(err, Want) holds.
//
// Case aliases an unnamed struct type so tables in other packages can use
// positional literals ({name, key, data, want}) without vet's composites
// check objecting.
type Case = struct {
	Name string
	Key  string
	Data []byte
	Want error
}

// Run checks every case against decode, which returns the decoded
// record's canonical encoding.
func Run(t *testing.T, cases []Case, decode func(key string, data []byte) ([]byte, error)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			enc, err := decode(c.Key, c.Data)
			if c.Want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if string(enc) != string(c.Data) {
					t.Fatalf("re-encoding differs\n got %s\nwant %s", enc, c.Data)
				}
				return
			}
			var de *envelope.DecodeError
			if !errors.Is(err, c.Want) || !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DecodeError matching %v", err, c.Want)
			}
		})
	}
}

// SealEdited seals inner bytes edited by replacing the first old with new:
// a valid checksum over an invalid record, to reach the checks that run
// after the checksum.
func SealEdited(schema, innerKey string, inner []byte, old, new string) []byte {
	return envelope.Seal(schema, innerKey, []byte(strings.Replace(string(inner), old, new, 1)))
}
