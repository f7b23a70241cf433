package dailyrun

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	c := Cursor{TsNs: 1764460800000000000, LastWalkedNs: 1764460900000000000}
	c.RuleSetHash[0], c.PromotedHash[31] = 1, 2
	data := EncodeCursor(c, 7)
	got, err := DecodeCursor(data, 7)
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip = %+v, %v; want %+v", got, err, c)
	}
	own := c
	own.Own = OwnHashes{Present: true, RuleSet: [32]byte{3}, Promoted: [32]byte{4}, ByKey: true}
	if got, err := DecodeCursor(EncodeCursor(own, 7), 7); err != nil || !reflect.DeepEqual(got, own) {
		t.Fatalf("round trip with ilmctl's hashes, by key = %+v, %v; want %+v", got, err, own)
	}
	restarts := c
	restarts.Writers, restarts.WritersListedNs = []string{"0000000a", "0000000b"}, 7
	restarts.Restarts, restarts.WalkedAllNs = []int64{5, 9}, 6
	if got, err := DecodeCursor(EncodeCursor(restarts, 7), 7); err != nil || !reflect.DeepEqual(got, restarts) {
		t.Fatalf("round trip with the restart fields = %+v, %v; want %+v", got, err, restarts)
	}
	if !strings.Contains(string(data), `"shard_id":7`) || !strings.Contains(string(data), `"rule_set_hash":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`) {
		t.Errorf("encoded %s", data)
	}
	// last_walked_ns is omitempty: a cursor that never walked omits it.
	if data := EncodeCursor(Cursor{}, 0); strings.Contains(string(data), "last_walked_ns") {
		t.Errorf("zero LastWalkedNs written: %s", data)
	}
}

func TestDecodeCursorStrict(t *testing.T) {
	zero := `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`
	short := `"AAAA"`
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "empty"},
		{"not json", "{", "unexpected EOF"},
		{"wrong version", `{"version":2,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `}`, "version 2"},
		{"wrong shard", `{"version":1,"shard_id":4,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `}`, "shard 4"},
		{"short rule hash", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + short + `,"promoted_hash":` + zero + `}`, "rule_set_hash is 3 bytes"},
		{"missing promoted hash", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `}`, "promoted_hash is 0 bytes"},
		{"unknown field", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"x":1}`, "unknown field"},
		{"trailing data", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `} {}`, "trailing"},
		{"negative ts", `{"version":1,"shard_id":3,"ts_ns":-1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `}`, "negative"},
		{"unknown sharding", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero +
			`,"ilmctl_rule_set_hash":` + zero + `,"ilmctl_promoted_hash":` + zero + `,"ilmctl_shards":"by_path"}`, `ilmctl_shards "by_path"`},
		{"empty writer", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"ilmctl_meta_log_writers":["a",""]}`, "empty name"},
		{"restarts out of order", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"ilmctl_restarts":[9,5]}`, "strictly increasing"},
		{"restart at zero", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"ilmctl_restarts":[0]}`, "positive"},
		{"negative listing time", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"ilmctl_writers_listed_ns":-1}`, "negative ilmctl_writers_listed_ns"},
		{"sharding without ilmctl's hashes", `{"version":1,"shard_id":3,"ts_ns":1,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `,"ilmctl_shards":"by_key"}`, "without ilmctl_rule_set_hash"},
	} {
		_, err := DecodeCursor([]byte(tc.data), 3)
		if !errors.Is(err, ErrCorruptCursor) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrCorruptCursor mentioning %q", tc.name, err, tc.want)
		}
	}
	ok := `{"version":1,"shard_id":3,"ts_ns":5,"rule_set_hash":` + zero + `,"promoted_hash":` + zero + `}`
	if c, err := DecodeCursor([]byte(ok), 3); err != nil || c.TsNs != 5 || c.LastWalkedNs != 0 {
		t.Errorf("cursor without last_walked_ns: %+v %v", c, err)
	}
}
