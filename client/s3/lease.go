package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/core/filer"
)

// Shard leases on s3:// live beside the cursors, under --state
// (docs/design/daily-run.md#shard-leases): in a bucket, one lease object
// per shard written only with conditional PUTs; in a local directory, a
// lock file per shard under flock.

var _ filer.ShardLeaser = (*Store)(nil)

// LeasePath is the state path of shard's lease, beside the cursors.
func LeasePath(shard int) string {
	return fmt.Sprintf("/etc/s3/lifecycle/ilmctl-leases/shard-%02d.json", shard)
}

// AcquireShardLease takes shard's lease in Options.State.
func (s *Store) AcquireShardLease(ctx context.Context, shard int, owner string, ttl time.Duration) (filer.Lease, error) {
	return s.state.lease(ctx, shard, owner, ttl)
}

// leaseRecord is a lease object's body. A released lease keeps its object
// with no owner, so that taking it again is a conditional replace
// (If-Match) like any other: DeleteObject's If-Match is not honoured by
// every server (docs/s3.md#conditional-requests-per-server), PUT's is.
type leaseRecord struct {
	Version   int    `json:"version"`
	Shard     int    `json:"shard"`
	Owner     string `json:"owner"`      // "" once released
	ExpiresNs int64  `json:"expires_ns"` // Unix ns by the writer's clock
}

func decodeLease(data []byte, shard int) (leaseRecord, error) {
	var r leaseRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("lease %s: %w", LeasePath(shard), err)
	}
	if r.Version != 1 || r.Shard != shard {
		return r, fmt.Errorf("lease %s: version %d shard %d, want version 1 shard %d", LeasePath(shard), r.Version, r.Shard, shard)
	}
	return r, nil
}

// lease takes shard's lease object: created with If-None-Match: *, or,
// when the one there is released or expired by this host's wall clock,
// replaced with If-Match on the ETag just read. Hosts sharing a bucket
// must keep their clocks well within the ttl of each other (NTP).
func (b *bucketState) lease(ctx context.Context, shard int, owner string, ttl time.Duration) (filer.Lease, error) {
	key, err := b.key(LeasePath(shard))
	if err != nil {
		return nil, err
	}
	l := &bucketLease{b: b, key: key, shard: shard, owner: owner, ttl: ttl}
	cur, etag, found, err := l.read(ctx)
	if err != nil {
		return nil, err
	}
	now := b.s.wall()
	if found && cur.Owner != "" && now.UnixNano() < cur.ExpiresNs {
		return nil, &filer.LeaseHeldError{Shard: shard, Holder: cur.Owner, Expires: time.Unix(0, cur.ExpiresNs).UTC()}
	}
	if !found {
		etag = ""
	}
	if err := l.put(ctx, etag, owner, now.Add(ttl)); err != nil {
		return nil, err
	}
	return l, nil
}

// bucketLease is a held lease object; etag is what this host last wrote.
type bucketLease struct {
	b     *bucketState
	key   string
	shard int
	owner string
	ttl   time.Duration

	mu   sync.Mutex
	etag string
}

func (l *bucketLease) read(ctx context.Context) (rec leaseRecord, etag string, found bool, err error) {
	out, err := l.b.s.c.GetObject(ctx, &s3api.GetObjectInput{Bucket: aws.String(l.b.bucket), Key: aws.String(l.key)})
	if isCode(err, "NoSuchKey", "NotFound") {
		return rec, "", false, nil
	}
	if err != nil {
		return rec, "", false, apiErr("GetObject", l.b.bucket+"/"+l.key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, maxRawBody))
	if err != nil {
		return rec, "", false, fmt.Errorf("read %s/%s: %w", l.b.bucket, l.key, err)
	}
	rec, err = decodeLease(data, l.shard)
	return rec, aws.ToString(out.ETag), true, err
}

// put writes the lease object under a condition: If-Match etag, or
// If-None-Match: * when etag is "". A refused condition means another
// writer got there first: the holder it wrote is reported.
func (l *bucketLease) put(ctx context.Context, etag, owner string, expires time.Time) error {
	rec := leaseRecord{Version: 1, Shard: l.shard, Owner: owner}
	if owner != "" {
		rec.ExpiresNs = expires.UnixNano()
	}
	data, _ := json.Marshal(rec)
	in := &s3api.PutObjectInput{Bucket: aws.String(l.b.bucket), Key: aws.String(l.key), Body: bytes.NewReader(data), ContentType: aws.String("application/json")}
	header := "If-None-Match: *"
	if etag != "" {
		in.IfMatch, header = aws.String(etag), "If-Match"
	} else {
		in.IfNoneMatch = aws.String("*")
	}
	out, err := l.b.s.c.PutObject(ctx, in)
	switch {
	case err == nil:
		l.etag = aws.ToString(out.ETag)
		return nil
	case httpStatus(err) == 412 || isCode(err, "PreconditionFailed", "ConditionalRequestConflict"):
		if cur, _, found, rerr := l.read(ctx); rerr == nil && found && cur.Owner != "" {
			return &filer.LeaseHeldError{Shard: l.shard, Holder: cur.Owner, Expires: time.Unix(0, cur.ExpiresNs).UTC()}
		}
		return fmt.Errorf("%s/%s: %w: the lease object changed underneath this pass", l.b.bucket, l.key, ErrStateConflict)
	case httpStatus(err) == 501 || isCode(err, "NotImplemented"):
		return fmt.Errorf("%s/%s: PutObject with %s: %w (%v): shard leases need it; keep state in a local directory (--state DIR) on the one host that runs the passes", l.b.bucket, l.key, header, ErrNoConditionalWrite, err)
	default:
		return apiErr("PutObject", l.b.bucket+"/"+l.key, err)
	}
}

// Renew rewrites the lease with a later expiry, If-Match on the ETag this
// host wrote last: any other write since (a takeover after expiry) fails it.
func (l *bucketLease) Renew(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.put(ctx, l.etag, l.owner, l.b.s.wall().Add(l.ttl))
}

// Release marks the lease released, If-Match on the ETag this host wrote
// last, so a lease another host holds now is left to it.
func (l *bucketLease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.put(ctx, l.etag, "", time.Time{})
	if errors.Is(err, filer.ErrLeaseHeld) {
		return nil
	}
	return err
}
