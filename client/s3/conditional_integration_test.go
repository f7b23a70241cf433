//go:build integration

package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ilmctl/ilmctl/internal/itest"
)

// What a server did with one conditional request whose condition is false
// (or, for the *Match rows, true).
const (
	honoured = "honoured"          // refused with 412, nothing changed (or, for a true condition: done)
	ignored  = "ignored"           // done as if the header were absent
	rejected = "rejected"          // refused with another status, nothing changed
	broken   = "answered but kept" // 2xx without doing it
)

// conditionalRow is one conditional request ilmctl relies on.
type conditionalRow struct {
	name string
	// guards says what ilmctl uses the request for (docs/s3.md#conditional-requests-per-server).
	guards  string
	measure func(t *testing.T, c *itest.S3) string
}

// conditionalExpected is what each server did when it was measured, at the
// versions scripts/seaweedfs.sh and scripts/minio.sh pin. A different
// answer fails the test: docs/s3.md's table must then be updated with it.
var conditionalExpected = map[itest.Server]map[string]string{
	itest.SeaweedFS: {
		"PUT If-None-Match: * on an existing key":               honoured,
		"PUT If-Match: <wrong ETag>":                            honoured,
		"PUT If-Match: <current ETag>":                          honoured,
		"DeleteObject If-Match: <wrong ETag>, no VersionId":     honoured,
		"DeleteObject If-Match: <wrong ETag>, versioned bucket": honoured,
		"DeleteObject If-Match: <wrong ETag>, with VersionId":   honoured,
		"DeleteObject If-Match: <current ETag>, with VersionId": honoured,
		"DeleteObject If-Match: <current ETag>, no VersionId":   honoured,
	},
	itest.MinIO: {
		"PUT If-None-Match: * on an existing key":               honoured,
		"PUT If-Match: <wrong ETag>":                            honoured,
		"PUT If-Match: <current ETag>":                          honoured,
		"DeleteObject If-Match: <wrong ETag>, no VersionId":     ignored,
		"DeleteObject If-Match: <wrong ETag>, versioned bucket": ignored,
		"DeleteObject If-Match: <wrong ETag>, with VersionId":   ignored,
		"DeleteObject If-Match: <current ETag>, with VersionId": honoured,
		"DeleteObject If-Match: <current ETag>, no VersionId":   honoured,
	},
}

const wrongIfMatch = `"0123456789abcdef0123456789abcdef"`

// TestConditionalRequests measures what the server under test does with
// every conditional request ilmctl relies on and compares it with what
// docs/s3.md's table says of that server. It logs one table row per request.
func TestConditionalRequests(t *testing.T) {
	c := itest.FromEnv(t)
	server := itest.ServerEnv(t)
	rows := []conditionalRow{
		{"PUT If-None-Match: * on an existing key", "--state s3:// creating a cursor", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutObject(t, b, "k", "first", nil)
			_, err := c.C.PutObject(ctx(t), &s3api.PutObjectInput{Bucket: aws.String(b), Key: aws.String("k"), Body: strings.NewReader("second"), IfNoneMatch: aws.String("*")})
			return verdict(t, err, body(t, c, b, "k") == "first")
		}},
		{"PUT If-Match: <wrong ETag>", "--state s3:// replacing a cursor", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutObject(t, b, "k", "first", nil)
			_, err := c.C.PutObject(ctx(t), &s3api.PutObjectInput{Bucket: aws.String(b), Key: aws.String("k"), Body: strings.NewReader("second"), IfMatch: aws.String(wrongIfMatch)})
			return verdict(t, err, body(t, c, b, "k") == "first")
		}},
		{"PUT If-Match: <current ETag>", "--state s3:// replacing a cursor", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			_, etag := c.PutObject(t, b, "k", "first", nil)
			_, err := c.C.PutObject(ctx(t), &s3api.PutObjectInput{Bucket: aws.String(b), Key: aws.String("k"), Body: strings.NewReader("second"), IfMatch: aws.String(`"` + etag + `"`)})
			return matchVerdict(t, err, body(t, c, b, "k") == "second")
		}},
		{"DeleteObject If-Match: <wrong ETag>, no VersionId", "Expiration on an unversioned bucket", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutObject(t, b, "k", "first", nil)
			_, err := c.C.DeleteObject(ctx(t), &s3api.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k"), IfMatch: aws.String(wrongIfMatch)})
			vs, _ := c.ListAll(t, b)
			return verdict(t, err, len(vs) == 1 && vs[0] == "k@null")
		}},
		{"DeleteObject If-Match: <wrong ETag>, versioned bucket", "Expiration on a versioned bucket (writes a delete marker)", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutVersioning(t, b, "Enabled")
			v, _ := c.PutObject(t, b, "k", "first", nil)
			_, err := c.C.DeleteObject(ctx(t), &s3api.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k"), IfMatch: aws.String(wrongIfMatch)})
			vs, _ := c.ListAll(t, b)
			return verdict(t, err, len(vs) == 1 && vs[0] == "k@"+v)
		}},
		{"DeleteObject If-Match: <wrong ETag>, with VersionId", "NoncurrentDays, NewerNoncurrentVersions (permanent delete)", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutVersioning(t, b, "Enabled")
			v1, _ := c.PutObject(t, b, "k", "first", nil)
			v2, _ := c.PutObject(t, b, "k", "second", nil)
			_, err := c.C.DeleteObject(ctx(t), &s3api.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k"), VersionId: aws.String(v1), IfMatch: aws.String(wrongIfMatch)})
			vs, _ := c.ListAll(t, b)
			return verdict(t, err, len(vs) == 2 && matchSet(vs, []string{"k@" + v1, "k@" + v2}))
		}},
		{"DeleteObject If-Match: <current ETag>, with VersionId", "a permanent delete that still applies", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutVersioning(t, b, "Enabled")
			v1, etag := c.PutObject(t, b, "k", "first", nil)
			v2, _ := c.PutObject(t, b, "k", "second", nil)
			_, err := c.C.DeleteObject(ctx(t), &s3api.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k"), VersionId: aws.String(v1), IfMatch: aws.String(`"` + etag + `"`)})
			vs, _ := c.ListAll(t, b)
			return matchVerdict(t, err, len(vs) == 1 && vs[0] == "k@"+v2)
		}},
		{"DeleteObject If-Match: <current ETag>, no VersionId", "an Expiration that still applies", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			_, etag := c.PutObject(t, b, "k", "first", nil)
			_, err := c.C.DeleteObject(ctx(t), &s3api.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k"), IfMatch: aws.String(`"` + etag + `"`)})
			vs, _ := c.ListAll(t, b)
			return matchVerdict(t, err, len(vs) == 0)
		}},
	}
	want := conditionalExpected[server]
	var table strings.Builder
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got := r.measure(t, c)
			fmt.Fprintf(&table, "| %s | %s | %s |\n", r.name, got, r.guards)
			if got != want[r.name] {
				t.Errorf("%s on %s: %s, want %s as measured before; update docs/s3.md#conditional-requests-per-server", r.name, server, got, want[r.name])
			}
		})
	}
	t.Logf("%s:\n%s", server, table.String())
}

// verdict classifies the answer to a request whose condition was false;
// kept is whether the object is as it was.
func verdict(t *testing.T, err error, kept bool) string {
	t.Helper()
	t.Logf("answer: %v; object kept: %v", err, kept)
	switch {
	case err == nil && kept:
		return broken
	case err == nil:
		return ignored
	case !kept:
		return ignored + " (" + status(err) + ")"
	case strings.HasPrefix(status(err), "412"):
		return honoured
	}
	return rejected + " (" + status(err) + ")"
}

// matchVerdict classifies the answer to a request whose condition held;
// done is whether it took effect.
func matchVerdict(t *testing.T, err error, done bool) string {
	t.Helper()
	t.Logf("answer: %v; done: %v", err, done)
	switch {
	case err == nil && done:
		return honoured
	case err == nil:
		return broken
	}
	return rejected + " (" + status(err) + ")"
}

// status is an error's HTTP status and S3 code, e.g. "412 PreconditionFailed".
func status(err error) string {
	var re *smithyhttp.ResponseError
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = " " + ae.ErrorCode()
	}
	if errors.As(err, &re) {
		return fmt.Sprintf("%d%s", re.HTTPStatusCode(), code)
	}
	return err.Error()
}

func body(t *testing.T, c *itest.S3, bucket, key string) string {
	t.Helper()
	out, err := c.C.GetObject(ctx(t), &s3api.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get %s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(out.Body); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func ctx(t *testing.T) context.Context { return t.Context() }
