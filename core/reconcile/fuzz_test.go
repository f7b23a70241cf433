package reconcile

import (
	"strings"
	"testing"
)

// FuzzDecode: any internal metadata either decodes to a tuple whose
// explicit state agrees with its version id, or is refused; it never
// panics.
func FuzzDecode(f *testing.F) {
	f.Add("complete", "WARM", "obj", "", "", "")
	f.Add("complete", "WARM", "obj", "null", "suspended-null", strings.Repeat("a", 64))
	f.Add("complete", "WARM", "obj", "v", "unknown", "")
	f.Add("pending", "", "", "00000000-0000-0000-0000-000000000000", "exact", "zz")
	f.Fuzz(func(t *testing.T, status, tier, object, version, state, dest string) {
		md := map[string]string{}
		for suffix, v := range map[string]string{SuffixStatus: status, SuffixTier: tier, SuffixRemoteObject: object,
			SuffixRemoteVersion: version, SuffixState: state, SuffixDestinationID: dest} {
			if v != "" {
				md[PrefixRustFS+suffix] = v
				md[PrefixMinIO+suffix] = v
			}
		}
		tu, err := decode(Copy{Internal: md})
		if err != nil {
			return
		}
		if tu.state != "" && !stateMatchesVersion(tu.state, tu.remoteVersion) {
			t.Fatalf("accepted %q with version %q", tu.state, tu.remoteVersion)
		}
		if tu.status != transitionComplete || tu.tier == "" || tu.remoteObject == "" {
			t.Fatalf("accepted a partial tuple %+v", tu)
		}
	})
}

// FuzzParseTiers: ParseTiers never panics, and every tier it accepts has
// a 64-hex destination id.
func FuzzParseTiers(f *testing.F) {
	f.Add(`{"tiers":[{"name":"WARM","type":"s3","endpoint":"http://h:1","bucket":"b","prefix":"/p/","region":"r","access_key_env":"A","secret_key_env":"B"}]}`)
	f.Add(`{"tiers":[]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		tiers, err := ParseTiers(strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, e := range tiers {
			if err := validDestinationID(e.Destination().ID()); err != nil {
				t.Fatal(err)
			}
		}
	})
}
