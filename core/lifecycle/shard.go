package lifecycle

import "crypto/sha256"

// ShardCount is the number of lifecycle shards (docs/design/daily-run.md#shards).
const ShardCount = 16

// ShardID returns the shard, 0–15, that owns bucket/key: the top 4 bits of
// the first byte of sha256(bucket + "/" + key). This is the value SeaweedFS
// uses, so shard numbers agree with a SeaweedFS cluster.
func ShardID(bucket, key string) int {
	h := sha256.New()
	h.Write([]byte(bucket))
	h.Write([]byte{'/'})
	h.Write([]byte(key))
	var sum [sha256.Size]byte
	return int(h.Sum(sum[:0])[0] >> 4)
}
