package lifecycle

import "testing"

func TestShardID(t *testing.T) {
	cases := []struct {
		bucket, key string
		want        int
	}{
		{"b", "k", 7},
		{"vbkt", "logs/a.txt", 11},
	}
	for _, c := range cases {
		if got := ShardID(c.bucket, c.key); got != c.want {
			t.Errorf("ShardID(%q, %q) = %d, want %d", c.bucket, c.key, got, c.want)
		}
	}
}

func TestShardIDRange(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 2000; i++ {
		s := ShardID("bucket", string(rune('a'+i%26))+string(rune(i)))
		if s < 0 || s >= ShardCount {
			t.Fatalf("shard %d out of range", s)
		}
		seen[s] = true
	}
	if len(seen) != ShardCount {
		t.Errorf("2000 keys hit %d shards, want all %d", len(seen), ShardCount)
	}
}
