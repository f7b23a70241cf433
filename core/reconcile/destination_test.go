package reconcile

import (
	"encoding/hex"
	"testing"
)

// The vectors are RustFS's backend_identity_v2_has_stable_fixtures
// (crates/ecstore/src/services/tier/tier.rs in rustfs/rustfs): the same
// tier must give the same transition-tier-destination-id in both tools.
func TestDestinationIDMatchesRustFS(t *testing.T) {
	rustfsVector := []byte{
		112, 73, 111, 29, 53, 43, 207, 7, 170, 12, 99, 116, 213, 135, 173, 227, 6, 220, 179, 135, 232, 83, 25, 13, 128,
		98, 254, 103, 132, 128, 229, 97,
	}
	d := Destination{Type: TierRustFS, Endpoint: "https://example-compat.invalid", Bucket: "bucket-r", Prefix: "prefix-r", Region: "us-east-1"}
	if got, want := d.ID(), hex.EncodeToString(rustfsVector); got != want {
		t.Fatalf("ID() = %s, RustFS fixture %s", got, want)
	}
	// One trailing slash is not part of a RustFS-type identity.
	d.Prefix = "prefix-r/"
	if got, want := d.ID(), hex.EncodeToString(rustfsVector); got != want {
		t.Fatalf("ID() with trailing slash = %s, want %s", got, want)
	}
}

func TestDestinationIDNormalizesAndDiscriminates(t *testing.T) {
	base := Destination{Type: TierS3, Endpoint: "https://s3.example", Bucket: "b", Prefix: "p", Region: "us-east-1"}
	tests := []struct {
		name string
		d    Destination
		same bool
	}{
		{"s3 trims every slash", Destination{Type: TierS3, Endpoint: "https://s3.example", Bucket: "b", Prefix: "/p//", Region: "us-east-1"}, true},
		{"type", Destination{Type: TierMinIO, Endpoint: "https://s3.example", Bucket: "b", Prefix: "p", Region: "us-east-1"}, false},
		{"endpoint", Destination{Type: TierS3, Endpoint: "https://s3.other", Bucket: "b", Prefix: "p", Region: "us-east-1"}, false},
		{"bucket", Destination{Type: TierS3, Endpoint: "https://s3.example", Bucket: "c", Prefix: "p", Region: "us-east-1"}, false},
		{"prefix", Destination{Type: TierS3, Endpoint: "https://s3.example", Bucket: "b", Prefix: "q", Region: "us-east-1"}, false},
		{"region", Destination{Type: TierS3, Endpoint: "https://s3.example", Bucket: "b", Prefix: "p", Region: "eu-west-1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.ID() == base.ID(); got != tt.same {
				t.Fatalf("ID equal to base = %v, want %v", got, tt.same)
			}
		})
	}
	if l := len(base.ID()); l != 64 {
		t.Fatalf("ID length %d, want 64", l)
	}
}

func TestMsgpackStrForms(t *testing.T) {
	for _, n := range []int{0, 31, 32, 255, 256, 65535, 65536} {
		s := make([]byte, n)
		b := appendMsgpackStr(nil, string(s))
		var hdr int
		switch {
		case n < 32:
			hdr = 1
		case n < 256:
			hdr = 2
		case n < 65536:
			hdr = 3
		default:
			hdr = 5
		}
		if len(b) != n+hdr {
			t.Fatalf("len %d: encoded %d bytes, want %d", n, len(b), n+hdr)
		}
	}
}
