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
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
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
	// guards says what ilmctl uses the request for (README § Any S3
	// endpoint, Conditional requests per server).
	guards  string
	measure func(t *testing.T, c *itest.S3) string
}

// conditionalExpected is what each server did when it was measured, at the
// versions scripts/seaweedfs.sh and scripts/minio.sh pin. A different
// answer fails the test: README's table must then be updated with it.
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
		"DeleteObjects ETag: <wrong ETag>, no VersionId":        honoured,
		"DeleteObjects ETag: <wrong ETag>, versioned bucket":    honoured,
		"DeleteObjects ETag: <wrong ETag>, VersionId null":      honoured,
		"DeleteObjects ETag: <wrong ETag>, with VersionId":      honoured,
		"DeleteObjects ETag: <current ETag>, no VersionId":      honoured,
		"DeleteObjects ETag: <current ETag>, VersionId null":    honoured,
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
		"DeleteObjects ETag: <wrong ETag>, no VersionId":        ignored,
		"DeleteObjects ETag: <wrong ETag>, versioned bucket":    ignored,
		"DeleteObjects ETag: <wrong ETag>, VersionId null":      ignored,
		"DeleteObjects ETag: <wrong ETag>, with VersionId":      ignored,
		"DeleteObjects ETag: <current ETag>, no VersionId":      honoured,
		"DeleteObjects ETag: <current ETag>, VersionId null":    honoured,
	},
}

const wrongIfMatch = `"0123456789abcdef0123456789abcdef"`

// TestConditionalRequests measures what the server under test does with
// every conditional request ilmctl relies on and compares it with what
// README's table says of that server. It logs one table row per request.
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
		{"DeleteObjects ETag: <wrong ETag>, no VersionId", "batched Expiration on an unversioned bucket", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutObject(t, b, "k", "first", nil)
			err := deleteObjects(t, c, b, "k", "", wrongIfMatch)
			vs, _ := c.ListAll(t, b)
			return verdict(t, err, len(vs) == 1 && vs[0] == "k@null")
		}},
		{"DeleteObjects ETag: <wrong ETag>, versioned bucket", "batched Expiration on a versioned bucket (writes a delete marker)", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutVersioning(t, b, "Enabled")
			v, _ := c.PutObject(t, b, "k", "first", nil)
			err := deleteObjects(t, c, b, "k", "", wrongIfMatch)
			vs, _ := c.ListAll(t, b)
			return verdict(t, err, len(vs) == 1 && vs[0] == "k@"+v)
		}},
		{"DeleteObjects ETag: <wrong ETag>, VersionId null", "batched NoncurrentDays of a null version", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutObject(t, b, "k", "first", nil)
			c.PutVersioning(t, b, "Enabled")
			v2, _ := c.PutObject(t, b, "k", "second", nil)
			err := deleteObjects(t, c, b, "k", "null", wrongIfMatch)
			vs, _ := c.ListAll(t, b)
			return verdict(t, err, len(vs) == 2 && matchSet(vs, []string{"k@null", "k@" + v2}))
		}},
		{"DeleteObjects ETag: <wrong ETag>, with VersionId", "not sent: a version ID names content that never changes", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			c.PutVersioning(t, b, "Enabled")
			v1, _ := c.PutObject(t, b, "k", "first", nil)
			v2, _ := c.PutObject(t, b, "k", "second", nil)
			err := deleteObjects(t, c, b, "k", v1, wrongIfMatch)
			vs, _ := c.ListAll(t, b)
			return verdict(t, err, len(vs) == 2 && matchSet(vs, []string{"k@" + v1, "k@" + v2}))
		}},
		{"DeleteObjects ETag: <current ETag>, no VersionId", "a batched Expiration that still applies", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			_, etag := c.PutObject(t, b, "k", "first", nil)
			err := deleteObjects(t, c, b, "k", "", `"`+etag+`"`)
			vs, _ := c.ListAll(t, b)
			return matchVerdict(t, err, len(vs) == 0)
		}},
		{"DeleteObjects ETag: <current ETag>, VersionId null", "a batched null-version delete that still applies", func(t *testing.T, c *itest.S3) string {
			b := c.CreateBucket(t, "ilmctl-it-cond")
			_, etag := c.PutObject(t, b, "k", "first", nil)
			c.PutVersioning(t, b, "Enabled")
			v2, _ := c.PutObject(t, b, "k", "second", nil)
			err := deleteObjects(t, c, b, "k", "null", `"`+etag+`"`)
			vs, _ := c.ListAll(t, b)
			return matchVerdict(t, err, len(vs) == 1 && vs[0] == "k@"+v2)
		}},
	}
	want := conditionalExpected[server]
	var table strings.Builder
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got := r.measure(t, c)
			fmt.Fprintf(&table, "| %s | %s | %s |\n", r.name, got, r.guards)
			if got != want[r.name] {
				t.Errorf("%s on %s: %s, want %s as measured before; update README § Any S3 endpoint, Conditional requests per server", r.name, server, got, want[r.name])
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
	var oe *objectError
	if errors.As(err, &oe) {
		if oe.code == "PreconditionFailed" {
			return "412 PreconditionFailed (per object)"
		}
		return "per object " + oe.code
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

// deleteObjects sends a DeleteObjects of one entry (key, versionID when
// set, ETag when set) and returns the request's error or the entry's: a
// per-object error becomes an *objectError, so verdict reads it as it
// reads a DeleteObject's.
func deleteObjects(t *testing.T, c *itest.S3, bucket, key, versionID, etag string) error {
	t.Helper()
	id := types.ObjectIdentifier{Key: aws.String(key)}
	if versionID != "" {
		id.VersionId = aws.String(versionID)
	}
	if etag != "" {
		id.ETag = aws.String(etag)
	}
	out, err := c.C.DeleteObjects(ctx(t), &s3api.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{id}}})
	if err != nil {
		return err
	}
	t.Logf("DeleteObjects: %d deleted, %d errors", len(out.Deleted), len(out.Errors))
	for _, e := range out.Errors {
		return &objectError{code: aws.ToString(e.Code), msg: aws.ToString(e.Message)}
	}
	return nil
}

// objectError is one entry of a DeleteObjects answer's Errors.
type objectError struct{ code, msg string }

func (e *objectError) Error() string { return e.code + ": " + e.msg }

func ctx(t *testing.T) context.Context { return t.Context() }
