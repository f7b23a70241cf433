package reconcile

import "testing"

// The digest is part of the plan scripts keep; it must not drift.
func TestDigestIsStable(t *testing.T) {
	src := &Source{Bucket: "b", Object: "o", VersionID: "v", ModTimeNs: 1, Size: 2, ETag: "e", TransitionStatus: "complete", Tier: "WARM",
		RemoteObject: "r", RemoteKey: "r", Destination: Destination{Type: TierS3, Endpoint: "http://h", Bucket: "t"}, DestinationID: "d"}
	sets := []SetCopy{{Set: "s0", Generation: 1, State: StateMissing, Keys: rawMutable(map[string]string{})}}
	target := &Target{State: StateExact, RemoteVersionID: "x", DestinationID: "d"}
	const want = "0af40ba31baea4c9d6f8f3bdc75e9a52383acedb439f1d816de53e32ce9348af"
	got := Digest(src, sets, target)
	if got == Digest(src, sets, nil) {
		t.Fatal("digest ignores the target")
	}
	if got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
}
