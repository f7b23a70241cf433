package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadCalls(t *testing.T) {
	const del = `{"type":"action","shard":3,"source":"walker","bucket":"b","key":"k","version_id":"v1","kind":"NoncurrentDays","rule_id":"r","due":null,"outcome":"%s","size":4,"bytes_freed":4}`
	line := func(outcome string) string { return strings.Replace(del, "%s", outcome, 1) }
	for _, tc := range []struct {
		name    string
		in      string
		want    map[int][]call
		skipped int
		err     string
	}{
		{
			name: "server answers are calls, the summary is not",
			in: line("DONE") + "\n" + line("NOOP_RESOLVED") + "\n" + line("SKIPPED_OBJECT_LOCK") + "\n" + line("RETRY_LATER") + "\n" +
				`{"type":"summary","status":"ok"}` + "\n",
			want: map[int][]call{3: {
				{Shard: 3, Bucket: "b", Key: "k", VersionID: "v1", Kind: "NoncurrentDays", RuleID: "r", Outcome: "DONE"},
				{Shard: 3, Bucket: "b", Key: "k", VersionID: "v1", Kind: "NoncurrentDays", RuleID: "r", Outcome: "NOOP_RESOLVED"},
				{Shard: 3, Bucket: "b", Key: "k", VersionID: "v1", Kind: "NoncurrentDays", RuleID: "r", Outcome: "SKIPPED_OBJECT_LOCK"},
				{Shard: 3, Bucket: "b", Key: "k", VersionID: "v1", Kind: "NoncurrentDays", RuleID: "r", Outcome: "RETRY_LATER"},
			}},
		},
		{
			name:    "blocked, dry-run and error outcomes were not sent",
			in:      line("BLOCKED") + "\n" + line("DRY_RUN") + "\n" + line("ERROR") + "\n" + line("STUCK") + "\n",
			want:    map[int][]call{},
			skipped: 4,
		},
		{
			name: "an upload keeps its upload ID, shards keep their order",
			in: `{"type":"action","shard":0,"bucket":"m","key":"up/1","upload_id":"u1","kind":"AbortMPU","rule_id":"r","outcome":"DONE"}` + "\n\n" +
				`{"type":"action","shard":1,"bucket":"m","key":"a","version_id":"null","kind":"ExpirationDays","rule_id":"r","outcome":"DONE"}` + "\n" +
				`{"type":"action","shard":0,"bucket":"m","key":"b","version_id":"v","kind":"ExpirationDays","rule_id":"r","outcome":"DONE"}` + "\n",
			want: map[int][]call{
				0: {{Shard: 0, Bucket: "m", Key: "up/1", UploadID: "u1", Kind: "AbortMPU", RuleID: "r", Outcome: "DONE"},
					{Shard: 0, Bucket: "m", Key: "b", VersionID: "v", Kind: "ExpirationDays", RuleID: "r", Outcome: "DONE"}},
				1: {{Shard: 1, Bucket: "m", Key: "a", VersionID: "null", Kind: "ExpirationDays", RuleID: "r", Outcome: "DONE"}},
			},
		},
		{name: "not JSON", in: line("DONE") + "\nrun: done\n", err: "line 2: not a run -o jsonl line"},
		{name: "action without a key", in: `{"type":"action","bucket":"b","kind":"ExpirationDays","outcome":"DONE"}`, err: "line 1: action without bucket, key or kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped, err := readCalls(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) || skipped != tc.skipped {
				t.Errorf("got %+v skipped %d, want %+v skipped %d", got, skipped, tc.want, tc.skipped)
			}
		})
	}
}
