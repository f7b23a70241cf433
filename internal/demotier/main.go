// Command demotier prepares the tier `make demo`'s reconcile step probes:
// a versioned bucket on the S3 endpoint scripts/seaweedfs.sh starts,
// holding exactly one version of the demo's transitioned object, and a
// --tiers file naming it. With -check it only says whether the endpoint
// answers (exit 0) or not (exit 3), so the demo can skip the step.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/ilmctl/ilmctl/core/reconcile"
)

func main() {
	endpoint := flag.String("endpoint", "127.0.0.1:8333", "S3 host:port")
	bucket := flag.String("bucket", "ilmctl-demo-tier", "tier bucket")
	prefix := flag.String("prefix", "rustfs-tier/", "tier prefix")
	object := flag.String("object", "2b/7e/3c9a4f10-demo-legacy-transitioned", "transitioned-object of the demo version")
	tierName := flag.String("tier", "DEMO-WARM", "tier name")
	tiersOut := flag.String("tiers-out", "", "write the --tiers file here")
	check := flag.Bool("check", false, "only check that the endpoint answers")
	flag.Parse()
	ak, sk := env("WEED_ACCESS_KEY", "ilmctl"), env("WEED_SECRET_KEY", "ilmctl-secret")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := minio.New(*endpoint, &minio.Options{Creds: credentials.NewStaticV4(ak, sk, ""), Region: "us-east-1", MaxRetries: 1})
	if err != nil {
		fail(1, err)
	}
	if *check {
		cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
		defer ccancel()
		if _, err := c.ListBuckets(cctx); err != nil {
			fail(3, err)
		}
		return
	}
	if err := seed(ctx, c, *bucket, *prefix+*object); err != nil {
		fail(1, err)
	}
	if *tiersOut != "" {
		doc := reconcile.TierFile{Tiers: []reconcile.TierEntry{{
			Name: *tierName, Type: reconcile.TierS3, Endpoint: "http://" + *endpoint, Bucket: *bucket, Prefix: *prefix,
			Region: "us-east-1", AccessKeyEnv: "WEED_ACCESS_KEY", SecretKeyEnv: "WEED_SECRET_KEY",
		}}}
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(*tiersOut, append(b, '\n'), 0o644); err != nil {
			fail(1, err)
		}
	}
}

// seed leaves exactly one version of key in a versioned bucket, so a rerun
// of the demo proves the same state again.
func seed(ctx context.Context, c *minio.Client, bucket, key string) error {
	ok, err := c.BucketExists(ctx, bucket)
	if err != nil {
		return err
	}
	if !ok {
		if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
			return err
		}
	}
	if err := c.EnableVersioning(ctx, bucket); err != nil {
		return err
	}
	for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: key, WithVersions: true, Recursive: true}) {
		if o.Err != nil {
			return o.Err
		}
		if o.Key != key {
			continue
		}
		if err := c.RemoveObject(ctx, bucket, key, minio.RemoveObjectOptions{VersionID: o.VersionID}); err != nil {
			return err
		}
	}
	body := []byte("transitioned payload of records/2025/q3-report.pdf\n")
	info, err := c.PutObject(ctx, bucket, key, bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("tier %s: s3://%s/%s holds one version, %s\n", bucket, bucket, key, info.VersionID)
	return nil
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func fail(code int, err error) {
	fmt.Fprintf(os.Stderr, "demotier: %v\n", err)
	os.Exit(code)
}
