// Command benchs3 is the S3 side of scripts/bench-vs-rclone.sh, a
// benchmark helper, not part of ilmctl:
//
//	benchs3 proxy -listen 127.0.0.1:19100 -to http://127.0.0.1:19000
//	benchs3 bucket -endpoint http://127.0.0.1:19000 -versioning -expire-date 2020-01-01T00:00:00Z NAME
//	benchs3 unlifecycle -endpoint http://127.0.0.1:19000 NAME
//
// proxy is a counting reverse proxy: it forwards every request to -to
// unchanged (the Host header too, so SigV4 signatures made for the
// proxy's address still verify) and counts them by S3 operation; GET
// /__counts answers the counts as JSON ({"DeleteObjects": 3, ...}) and
// resets them. bucket creates a bucket (or takes the one it finds), optionally with versioning
// Enabled and a lifecycle of one Expiration Date rule; unlifecycle removes a bucket's
// lifecycle. Credentials come from AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: benchs3 proxy|bucket|unlifecycle [flags]")
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "proxy":
		err = proxy(args)
	case "bucket", "unlifecycle":
		err = bucket(cmd, args)
	default:
		err = fmt.Errorf("unknown command %q: want proxy, bucket or unlifecycle", cmd)
	}
	if err != nil {
		log.Fatalf("benchs3: %v", err)
	}
}

func proxy(args []string) error {
	fs := flag.NewFlagSet("proxy", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:19100", "address to listen on")
	to := fs.String("to", "http://127.0.0.1:9000", "S3 endpoint to forward to")
	_ = fs.Parse(args)
	target, err := url.Parse(*to)
	if err != nil {
		return fmt.Errorf("-to %q: %v", *to, err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	counts := map[string]int{}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/__counts" {
			mu.Lock()
			defer mu.Unlock()
			_ = json.NewEncoder(w).Encode(counts)
			counts = map[string]int{}
			return
		}
		op := operation(r)
		mu.Lock()
		counts[op]++
		mu.Unlock()
		rp.ServeHTTP(w, r)
	})
	return http.ListenAndServe(*listen, nil)
}

func bucket(cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	endpoint := fs.String("endpoint", "http://127.0.0.1:9000", "S3 endpoint")
	versioning := fs.Bool("versioning", false, "enable versioning")
	expire := fs.String("expire-date", "", "a lifecycle of one rule, Expiration Date at this RFC 3339 time, for every object")
	_ = fs.Parse(args)
	if fs.NArg() != 1 {
		return fmt.Errorf("%s: want one bucket name", cmd)
	}
	name := aws.String(fs.Arg(0))
	ctx := context.Background()
	c := s3api.New(s3api.Options{
		BaseEndpoint: endpoint, UsePathStyle: true, Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider(os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), ""),
	})
	if cmd == "unlifecycle" {
		_, err := c.DeleteBucketLifecycle(ctx, &s3api.DeleteBucketLifecycleInput{Bucket: name})
		return err
	}
	var owned *types.BucketAlreadyOwnedByYou
	if _, err := c.CreateBucket(ctx, &s3api.CreateBucketInput{Bucket: name}); err != nil && !errors.As(err, &owned) {
		return err
	}
	if *versioning {
		if _, err := c.PutBucketVersioning(ctx, &s3api.PutBucketVersioningInput{Bucket: name,
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			return err
		}
	}
	if *expire == "" {
		return nil
	}
	date, err := time.Parse(time.RFC3339, *expire)
	if err != nil {
		return fmt.Errorf("-expire-date: %v", err)
	}
	_, err = c.PutBucketLifecycleConfiguration(ctx, &s3api.PutBucketLifecycleConfigurationInput{Bucket: name,
		LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: []types.LifecycleRule{{
			ID: aws.String("all"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("")},
			Expiration: &types.LifecycleExpiration{Date: &date},
		}}}})
	return err
}

// operation names an S3 request by method, path depth and subresource,
// the way S3's API reference does (path-style addressing).
func operation(r *http.Request) string {
	q := r.URL.Query()
	path := strings.Trim(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	switch {
	case bucket == "":
		return "ListBuckets"
	case key == "" && r.Method == http.MethodPost && q.Has("delete"):
		return "DeleteObjects"
	case key == "" && q.Has("versions"):
		return "ListObjectVersions"
	case key == "" && q.Has("uploads"):
		return "ListMultipartUploads"
	case key == "" && q.Has("lifecycle"):
		return r.Method + " BucketLifecycle"
	case key == "" && q.Has("versioning"):
		return r.Method + " BucketVersioning"
	case key == "" && q.Has("object-lock"):
		return "GetObjectLockConfiguration"
	case key == "" && r.Method == http.MethodGet:
		return "ListObjects"
	case key == "":
		return r.Method + " Bucket"
	case q.Has("tagging"):
		return r.Method + " ObjectTagging"
	case q.Has("uploadId"):
		return r.Method + " MultipartUpload"
	case r.Method == http.MethodHead:
		return "HeadObject"
	case r.Method == http.MethodDelete:
		return "DeleteObject"
	case r.Method == http.MethodGet:
		return "GetObject"
	case r.Method == http.MethodPut:
		return "PutObject"
	}
	return r.Method + " Object"
}
