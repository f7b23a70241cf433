package reconcile

import "testing"

func TestDerive(t *testing.T) {
	v := func(id string) RemoteVersion { return RemoteVersion{VersionID: id} }
	obs := func(st string, vs ...RemoteVersion) Observation {
		return Observation{Versioning: st, VersioningAfter: st, Versions: vs}
	}
	tests := []struct {
		name    string
		o       Observation
		stored  string
		state   State
		version string
	}{
		{name: "disabled, candidate present", o: obs("", v("null")), state: StateKnownDisabled},
		{name: "disabled, listing without version id", o: obs("", v("")), state: StateKnownDisabled},
		{name: "suspended, exact null present", o: obs("Suspended", v("null")), state: StateSuspendedNull, version: "null"},
		{name: "enabled, one exact version", o: obs("Enabled", v("3HL4kqtJlcpXroDTDmJ")), state: StateExact, version: "3HL4kqtJlcpXroDTDmJ"},
		{name: "suspended, one version from the enabled era", o: obs("Suspended", v("abc")), state: StateExact, version: "abc"},
		{name: "stored id agrees", o: obs("Enabled", v("abc")), stored: "abc", state: StateExact, version: "abc"},
		{name: "stored null agrees", o: obs("Suspended", v("null")), stored: "null", state: StateSuspendedNull, version: "null"},
		{name: "missing", o: obs("Enabled")},
		{name: "missing on unversioned", o: obs("")},
		{name: "multiple", o: obs("Enabled", v("a"), v("b"))},
		{name: "null and exact", o: obs("Suspended", v("null"), v("b"))},
		{name: "only a delete marker", o: obs("Enabled", RemoteVersion{VersionID: "dm", DeleteMarker: true})},
		{name: "changing", o: Observation{Versioning: "Enabled", VersioningAfter: "Suspended", Versions: []RemoteVersion{v("a")}}},
		{name: "unsupported status", o: obs("MFADelete", v("a"))},
		{name: "null in enabled bucket", o: obs("Enabled", v("null"))},
		{name: "versioned id in never-versioned bucket", o: obs("", v("abc"))},
		{name: "nil uuid", o: obs("Enabled", v("00000000-0000-0000-0000-000000000000"))},
		{name: "stored id disagrees", o: obs("Enabled", v("abc")), stored: "xyz"},
		{name: "stored id on unversioned tier", o: obs("", v("null")), stored: "xyz"},
		{name: "empty stored is no evidence: still needs the proof", o: obs("Enabled"), stored: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ver, reason, ok := derive(tt.o, tt.stored)
			if ok != (tt.state != "") {
				t.Fatalf("derive ok=%v (reason %q), want state %q", ok, reason, tt.state)
			}
			if st != tt.state || ver != tt.version {
				t.Fatalf("derive = %q %q, want %q %q", st, ver, tt.state, tt.version)
			}
			if !ok && reason == "" {
				t.Fatal("no reason for a non-derivation")
			}
		})
	}
}
