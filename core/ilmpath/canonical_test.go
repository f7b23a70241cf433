package ilmpath

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
)

const (
	tDigest = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	tID     = "0a1b2c3d4e5f4a6b8c7d9e0f1a2b3c4d"
	tUUID   = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
)

// Every registered kind's canonical key parses, with its components.
func TestParseCanonicalKeys(t *testing.T) {
	for _, tc := range []struct {
		key                   string
		kind                  Kind
		digest, operation, id string
	}{
		{"ilm/tier-delete-journal/" + tDigest + ".json", KindTierDeleteJournal, tDigest, "", ""},
		{"ilm/tier-delete-journal-v6/" + tID + "/" + tDigest + ".json", KindTierDeleteJournalV6, tDigest, tID, ""},
		{"ilm/tier-delete-dispatch-manifests/" + tDigest + ".json", KindDispatchRoot, tDigest, "", ""},
		{"ilm/tier-delete-dispatch-manifests/chunks/" + tDigest + "/" + tID + ".json", KindDispatchChunk, tDigest, tID, ""},
		{"ilm/transition-transactions/records/0a/1b/" + tID + ".json", KindTransition, "", "", tID},
		{"ilm/tier-probe-intents/records/0a/1b/" + tID + ".json", KindProbeIntent, "", "", tID},
		{"ilm/manual-transition/jobs/0a/1b/" + tID + ".json", KindManualJob, "", "", tID},
		{"ilm/manual-transition/scopes/00/11/" + tDigest + ".json", KindManualScope, tDigest, "", ""},
		{"ilm/manual-transition/tasks/0a/1b/" + tID + "/" + tDigest + ".json", KindManualTask, tDigest, "", tID},
		{"ilm/manual-transition/results/0a/1b/" + tID + "/" + tDigest + ".json", KindManualResult, tDigest, "", tID},
		{"ilm/recovery-controls/anything", KindRecoveryControl, "", "", ""},
		{"ilm/recovery-exports/anything", KindRecoveryExport, "", "", ""},
		{"ilm/recovery-dispositions/anything", KindRecoveryDisposition, "", "", ""},
	} {
		loc, err := Parse(tc.key)
		if err != nil {
			t.Errorf("%s: %v", tc.key, err)
			continue
		}
		if loc.Kind != tc.kind || loc.Digest != tc.digest || loc.Operation != tc.operation || loc.ID != tc.id || loc.Key != tc.key {
			t.Errorf("%s: got %+v, want kind %s digest %q operation %q id %q", tc.key, loc, tc.kind, tc.digest, tc.operation, tc.id)
		}
		if !strings.HasPrefix(tc.key, loc.Namespace.Prefix) || loc.Namespace.MaxSize <= 0 {
			t.Errorf("%s: namespace %+v", tc.key, loc.Namespace)
		}
	}
}

// Every way a key can miss its canonical form is refused, never
// normalised: uppercase aliases, wrong shards, extra or missing
// components, wrong suffix or length, unregistered namespaces.
func TestParseRefusals(t *testing.T) {
	up := strings.ToUpper
	for _, tc := range []struct {
		name, key string
		want      error
		says      string // part of the message, when it matters
	}{
		{"not under ilm/", "config/" + tDigest + ".json", ErrNotILM, ""},
		{"ilm without slash", "ilm", ErrNotILM, ""},
		{"ILM in capitals", "ILM/tier-delete-journal/" + tDigest + ".json", ErrNotILM, ""},
		{"unregistered namespace", "ilm/tier-delete-journals/" + tDigest + ".json", ErrUnregistered, ""},
		{"namespace without its slash", "ilm/tier-delete-journal", ErrUnregistered, ""},
		{"root alone", "ilm/", ErrUnregistered, ""},
		// legacy journals
		{"journal uppercase", "ilm/tier-delete-journal/" + up(tDigest) + ".json", envelope.ErrPath, "uppercase alias"},
		{"journal extra component", "ilm/tier-delete-journal/x/" + tDigest + ".json", envelope.ErrPath, "extra path components"},
		{"journal short digest", "ilm/tier-delete-journal/" + tDigest[:63] + ".json", envelope.ErrPath, "64 lowercase hex"},
		{"journal long digest", "ilm/tier-delete-journal/" + tDigest + "0.json", envelope.ErrPath, ""},
		{"journal not hex", "ilm/tier-delete-journal/" + strings.Repeat("g", 64) + ".json", envelope.ErrPath, ""},
		{"journal suffix", "ilm/tier-delete-journal/" + tDigest + ".JSON", envelope.ErrPath, "must end in"},
		{"journal no suffix", "ilm/tier-delete-journal/" + tDigest, envelope.ErrPath, ""},
		{"journal trailing slash", "ilm/tier-delete-journal/" + tDigest + ".json/", envelope.ErrPath, ""},
		// v6 journals
		{"v6 without operation", "ilm/tier-delete-journal-v6/" + tDigest + ".json", envelope.ErrPath, "<operation>/<digest>.json"},
		{"v6 uppercase operation", "ilm/tier-delete-journal-v6/" + up(tID) + "/" + tDigest + ".json", envelope.ErrPath, "uppercase alias"},
		{"v6 hyphenated operation", "ilm/tier-delete-journal-v6/" + tUUID + "/" + tDigest + ".json", envelope.ErrPath, ""},
		{"v6 operation with suffix", "ilm/tier-delete-journal-v6/" + tID + ".json/" + tDigest + ".json", envelope.ErrPath, ""},
		{"v6 extra component", "ilm/tier-delete-journal-v6/" + tID + "/x/" + tDigest + ".json", envelope.ErrPath, ""},
		// manifests
		{"chunk without operation", "ilm/tier-delete-dispatch-manifests/chunks/" + tDigest + ".json", envelope.ErrPath, ""},
		{"chunk under another folder", "ilm/tier-delete-dispatch-manifests/chunk/" + tDigest + "/" + tID + ".json", envelope.ErrPath, ""},
		{"chunk uppercase scope", "ilm/tier-delete-dispatch-manifests/chunks/" + up(tDigest) + "/" + tID + ".json", envelope.ErrPath, "uppercase alias"},
		{"chunk scope with suffix", "ilm/tier-delete-dispatch-manifests/chunks/" + tDigest + ".json/" + tID + ".json", envelope.ErrPath, ""},
		{"root manifest 32 hex", "ilm/tier-delete-dispatch-manifests/" + tID + ".json", envelope.ErrPath, ""},
		// sharded records
		{"transaction uppercase", "ilm/transition-transactions/records/0A/1B/" + up(tID) + ".json", envelope.ErrPath, "uppercase alias"},
		{"transaction uppercase id, lowercase shards", "ilm/transition-transactions/records/0a/1b/" + up(tID) + ".json", envelope.ErrPath, "uppercase alias"},
		{"transaction swapped shards", "ilm/transition-transactions/records/1b/0a/" + tID + ".json", envelope.ErrPath, "shard directories"},
		{"transaction wrong shard", "ilm/transition-transactions/records/0a/1c/" + tID + ".json", envelope.ErrPath, "shard directories"},
		{"transaction one shard", "ilm/transition-transactions/records/0a/" + tID + ".json", envelope.ErrPath, "got 2 components"},
		{"transaction no shards", "ilm/transition-transactions/records/" + tID + ".json", envelope.ErrPath, ""},
		{"transaction extra component", "ilm/transition-transactions/records/0a/1b/x/" + tID + ".json", envelope.ErrPath, ""},
		{"transaction hyphenated id", "ilm/transition-transactions/records/0a/1b/" + tUUID + ".json", envelope.ErrPath, ""},
		{"job 64 hex", "ilm/manual-transition/jobs/00/11/" + tDigest + ".json", envelope.ErrPath, ""},
		{"job uppercase alias", "ilm/manual-transition/jobs/0A/1B/" + up(tID) + ".json", envelope.ErrPath, "uppercase alias"},
		{"scope 32 hex", "ilm/manual-transition/scopes/0a/1b/" + tID + ".json", envelope.ErrPath, ""},
		{"task without job", "ilm/manual-transition/tasks/0a/1b/" + tDigest + ".json", envelope.ErrPath, "<job>/<task-key>.json"},
		{"task wrong shards", "ilm/manual-transition/tasks/1b/0a/" + tID + "/" + tDigest + ".json", envelope.ErrPath, "shard directories"},
		{"task uppercase key", "ilm/manual-transition/tasks/0a/1b/" + tID + "/" + up(tDigest) + ".json", envelope.ErrPath, "uppercase alias"},
		{"result job with suffix", "ilm/manual-transition/results/0a/1b/" + tID + ".json/" + tDigest + ".json", envelope.ErrPath, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.key)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Parse(%s) = %v, want %v", tc.key, err, tc.want)
			}
			if tc.says != "" && !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
			if tc.want == envelope.ErrPath && !strings.Contains(err.Error(), tc.key) {
				t.Errorf("error %q does not name the key", err)
			}
		})
	}
}

// The key builders and digests, each against its documented byte layout
// computed here independently.
func TestKeyBuildersAndDigests(t *testing.T) {
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	for got, want := range map[string]string{
		JournalKey(tDigest, ""):                            "ilm/tier-delete-journal/" + tDigest + ".json",
		JournalKey(tDigest, tUUID):                         "ilm/tier-delete-journal-v6/" + tID + "/" + tDigest + ".json",
		TransitionKey(tUUID):                               "ilm/transition-transactions/records/0a/1b/" + tID + ".json",
		ManualJobKey(tUUID):                                "ilm/manual-transition/jobs/0a/1b/" + tID + ".json",
		ManualScopeKey(tDigest):                            "ilm/manual-transition/scopes/00/11/" + tDigest + ".json",
		ManualTaskKey(tUUID, tDigest):                      "ilm/manual-transition/tasks/0a/1b/" + tID + "/" + tDigest + ".json",
		ManualResultKey(tUUID, tDigest):                    "ilm/manual-transition/results/0a/1b/" + tID + "/" + tDigest + ".json",
		ReceiptKey("run", "ilm/x.json", "job_id", "j"):     "decommission/ilm-receipts/run/ilm/x.json/job_id/j.json",
		Simple(tUUID):                                      tID,
		Hyphenate(tID):                                     tUUID,
		Hyphenate("short"):                                 "short",
		ManualScopeDigest("b", true):                       sum([]byte("b\x00dry_run")),
		ManualTaskDigest("bucket", "a/é", "v1"):            sum([]byte("6:bucket4:a/é2:v1")),
		ManualTaskDigest("", "", ""):                       sum([]byte("0:0:0:")),
		TransitionRemoteObject("dep", "bkt", tUUID, tUUID): "ilm/transition-transactions/" + sum([]byte("dep:bkt"))[:16] + "/0a/1b/" + tID + "/" + tID,
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}

	// Manifest scope: bucket, NUL, the 16 raw UUID bytes, NUL, prefix.
	raw, _ := hex.DecodeString(tID)
	scope := sum(append(append(append([]byte("bkt\x00"), raw...), 0), "logs/"...))
	if got := ManifestScopeDigest("bkt", tUUID, "logs/"); got != scope {
		t.Errorf("ManifestScopeDigest = %s, want %s", got, scope)
	}
	if got := ManifestRootKey("bkt", tUUID, "logs/"); got != "ilm/tier-delete-dispatch-manifests/"+scope+".json" {
		t.Errorf("ManifestRootKey = %s", got)
	}
	if got := ManifestChunkKey("bkt", tUUID, "logs/", tUUID); got != "ilm/tier-delete-dispatch-manifests/chunks/"+scope+"/"+tID+".json" {
		t.Errorf("ManifestChunkKey = %s", got)
	}

	// Journal set: each name as a big-endian u64 length, then its bytes.
	var set []byte
	for _, n := range []string{"a", "bc"} {
		set = binary.BigEndian.AppendUint64(set, uint64(len(n)))
		set = append(set, n...)
	}
	if got := JournalSetSHA256([]string{"a", "bc"}); got != sum(set) {
		t.Errorf("JournalSetSHA256 = %s, want %s", got, sum(set))
	}

	// Journal identity, every optional part.
	var backend [32]byte
	backend[0] = 7
	dataDir, etag := "dd", "e"
	for _, tc := range []struct {
		id   JournalIdentity
		want []byte
	}{
		{JournalIdentity{TierName: "t", ObjName: "o", VersionID: "v"}, []byte("t\x00o\x00v")},
		{JournalIdentity{TierName: "t", ObjName: "o", VersionID: "v", BackendIdentity: &backend},
			append([]byte("t\x00o\x00v\x00"), backend[:]...)},
		{JournalIdentity{TierName: "t", ObjName: "o", VersionID: "v", VersionIDExact: true}, []byte("t\x00o\x00v\x00exact-version-id")},
		{JournalIdentity{TierName: "t", ObjName: "o", VersionID: "", VersionIDExact: true,
			Source: &SourceDigestInput{Bucket: "b", Object: "k", DataDir: &dataDir, ETag: &etag}},
			[]byte("t\x00o\x00\x00exact-version-id\x00b\x00k\x00\x00dd\x00e\x00")},
	} {
		if got := JournalIdentityDigest(tc.id); got != sum(tc.want) {
			t.Errorf("JournalIdentityDigest(%+v) = %s, want sha256(%q)", tc.id, got, tc.want)
		}
	}
}

// FuzzParse: Parse never panics; a key it accepts is already canonical
// (rebuilding it from its components gives the same key); and a key built
// by the builders from any identity is accepted with those components.
func FuzzParse(f *testing.F) {
	f.Add("ilm/transition-transactions/records/0a/1b/"+tID+".json", []byte(tDigest[:32]))
	f.Add("ilm/tier-delete-journal/"+tDigest+".json", []byte("x"))
	f.Add("ilm/manual-transition/tasks/0a/1b/"+tID+"/"+tDigest+".json", []byte{})
	f.Fuzz(func(t *testing.T, key string, seed []byte) {
		if loc, err := Parse(key); err == nil {
			var rebuilt string
			switch loc.Kind {
			case KindTierDeleteJournal:
				rebuilt = JournalKey(loc.Digest, "")
			case KindTierDeleteJournalV6:
				rebuilt = JournalKey(loc.Digest, Hyphenate(loc.Operation))
			case KindDispatchRoot:
				rebuilt = "ilm/tier-delete-dispatch-manifests/" + loc.Digest + ".json"
			case KindDispatchChunk:
				rebuilt = "ilm/tier-delete-dispatch-manifests/chunks/" + loc.Digest + "/" + loc.Operation + ".json"
			case KindTransition:
				rebuilt = TransitionKey(loc.ID)
			case KindManualJob:
				rebuilt = ManualJobKey(loc.ID)
			case KindManualScope:
				rebuilt = ManualScopeKey(loc.Digest)
			case KindManualTask:
				rebuilt = ManualTaskKey(loc.ID, loc.Digest)
			case KindManualResult:
				rebuilt = ManualResultKey(loc.ID, loc.Digest)
			default:
				rebuilt = key // registered but not parsed further
			}
			if rebuilt != key {
				t.Fatalf("Parse accepted %q, which is not canonical (%q)", key, rebuilt)
			}
		}
		h := sha256.Sum256(seed)
		digest, id := hex.EncodeToString(h[:]), hex.EncodeToString(h[:16])
		for key, want := range map[string]Location{
			TransitionKey(Hyphenate(id)):           {Kind: KindTransition, ID: id},
			ManualJobKey(id):                       {Kind: KindManualJob, ID: id},
			ManualTaskKey(id, digest):              {Kind: KindManualTask, ID: id, Digest: digest},
			JournalKey(digest, Hyphenate(id)):      {Kind: KindTierDeleteJournalV6, Operation: id, Digest: digest},
			ManualScopeKey(digest):                 {Kind: KindManualScope, Digest: digest},
			JournalKey(digest, ""):                 {Kind: KindTierDeleteJournal, Digest: digest},
			ManualResultKey(Hyphenate(id), digest): {Kind: KindManualResult, ID: id, Digest: digest},
		} {
			loc, err := Parse(key)
			if err != nil || loc.Kind != want.Kind || loc.ID != want.ID || loc.Digest != want.Digest || loc.Operation != want.Operation {
				t.Fatalf("Parse(%s) = %+v, %v, want %+v", key, loc, err, want)
			}
		}
	})
}
