package ilmpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
)

func TestParse(t *testing.T) {
	d := strings.Repeat("ab", 32)
	id := "0123456789abcdef0123456789abcdef"
	cases := []struct {
		key  string
		kind Kind
		want error
	}{
		{"ilm/tier-delete-journal/" + d + ".json", KindTierDeleteJournal, nil},
		{"ilm/tier-delete-journal/" + strings.ToUpper(d) + ".json", "", envelope.ErrPath},
		{"ilm/tier-delete-journal/x/" + d + ".json", "", envelope.ErrPath},
		{"ilm/tier-delete-journal-v6/" + id + "/" + d + ".json", KindTierDeleteJournalV6, nil},
		{"ilm/tier-delete-dispatch-manifests/" + d + ".json", KindDispatchRoot, nil},
		{"ilm/tier-delete-dispatch-manifests/chunks/" + d + "/" + id + ".json", KindDispatchChunk, nil},
		{"ilm/transition-transactions/records/01/23/" + id + ".json", KindTransition, nil},
		{"ilm/transition-transactions/records/23/01/" + id + ".json", "", envelope.ErrPath},
		{"ilm/transition-transactions/records/01/23/x/" + id + ".json", "", envelope.ErrPath},
		{"ilm/manual-transition/jobs/01/23/" + strings.ToUpper(id) + ".json", "", envelope.ErrPath},
		{"ilm/manual-transition/tasks/01/23/" + id + "/" + d + ".json", KindManualTask, nil},
		{"ilm/unknown/x.json", "", ErrUnregistered},
		{"config/x.json", "", ErrNotILM},
	}
	for _, c := range cases {
		loc, err := Parse(c.key)
		if c.want != nil {
			if !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want %v", c.key, err, c.want)
			}
			continue
		}
		if err != nil || loc.Kind != c.kind {
			t.Errorf("%s: got %v %v, want %s", c.key, loc.Kind, err, c.kind)
		}
	}
}

func TestDigests(t *testing.T) {
	// Known answers computed independently (sha256 of the documented byte layouts).
	if got := JournalSetSHA256(nil); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("empty set digest %s", got)
	}
	if got := ManualScopeDigest("b", false); got != envelope.SHA256Hex([]byte("b\x00run")) {
		t.Fatal(got)
	}
	if got := ManualTaskDigest("b", "o", ""); got != envelope.SHA256Hex([]byte("1:b1:o0:")) {
		t.Fatal(got)
	}
	if k := TransitionKey("01234567-89ab-cdef-0123-456789abcdef"); k != "ilm/transition-transactions/records/01/23/0123456789abcdef0123456789abcdef.json" {
		t.Fatal(k)
	}
}
