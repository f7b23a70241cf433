// Package tier is the live tier probe reconcile uses: minio-go/v7 against
// the S3-compatible bucket a RustFS tier names. It reads, never writes:
// the bucket's versioning status (before and after the listing) and every
// version and delete marker of one exact remote key
// (docs/design/reconcile.md#probe).
package tier

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/ilmctl/ilmctl/core/reconcile"
)

// maxVersions bounds the versions of one remote key the probe collects;
// more than one is already ambiguous, so the bound only limits work.
const maxVersions = 1000

// Prober probes tiers with minio-go. Its zero value is ready to use; the
// caller bounds each probe with the context's deadline.
type Prober struct {
	// MaxRetries is minio-go's retry count per request; 0 means 1, so a
	// down tier fails as soon as the context allows rather than after
	// minio-go's default ten attempts.
	MaxRetries int
}

var _ reconcile.Prober = Prober{}

// Probe implements reconcile.Prober. Any request error (unreachable,
// denied, no such bucket, deadline) is returned as an error: the tier
// could not be asked.
func (p Prober) Probe(ctx context.Context, t reconcile.Tier, key string) (reconcile.Observation, error) {
	var obs reconcile.Observation
	u, err := url.Parse(t.Destination.Endpoint)
	if err != nil || u.Host == "" {
		return obs, fmt.Errorf("endpoint %q is not a URL", t.Destination.Endpoint)
	}
	retries := p.MaxRetries
	if retries <= 0 {
		retries = 1
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds:      credentials.NewStaticV4(t.AccessKey, t.SecretKey, ""),
		Secure:     u.Scheme == "https",
		Region:     t.Destination.Region,
		MaxRetries: retries,
	})
	if err != nil {
		return obs, err
	}
	bucket := t.Destination.Bucket
	if obs.Versioning, err = versioning(ctx, c, bucket); err != nil {
		return obs, err
	}
	opts := minio.ListObjectsOptions{Prefix: key, Recursive: true, WithVersions: true}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range c.ListObjects(lctx, bucket, opts) {
		if o.Err != nil {
			return obs, fmt.Errorf("list versions of %s/%s: %w", bucket, key, o.Err)
		}
		if o.Key != key {
			continue
		}
		obs.Versions = append(obs.Versions, reconcile.RemoteVersion{VersionID: o.VersionID, DeleteMarker: o.IsDeleteMarker})
		if len(obs.Versions) >= maxVersions {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return obs, err
	}
	if obs.VersioningAfter, err = versioning(ctx, c, bucket); err != nil {
		return obs, err
	}
	return obs, nil
}

// versioning returns the bucket's versioning Status: "" (never enabled),
// "Enabled" or "Suspended". MinIO's excluded prefixes and folders make
// versioning depend on the key, which the derivations do not cover; they
// are reported as an unsupported status.
func versioning(ctx context.Context, c *minio.Client, bucket string) (string, error) {
	cfg, err := c.GetBucketVersioning(ctx, bucket)
	if err != nil {
		var resp minio.ErrorResponse
		if errors.As(err, &resp) && resp.Code != "" {
			return "", fmt.Errorf("get versioning of bucket %s: %s: %s", bucket, resp.Code, resp.Message)
		}
		return "", fmt.Errorf("get versioning of bucket %s: %w", bucket, err)
	}
	if len(cfg.ExcludedPrefixes) > 0 || cfg.ExcludeFolders {
		return cfg.Status + " with excluded prefixes", nil
	}
	return cfg.Status, nil
}
