package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// maxRawBody bounds a captured response body (a lifecycle document is at
// most 1000 rules; a ListObjectVersions page at most 1000 entries).
const maxRawBody = 32 << 20

// rawBody captures the bytes of a 2xx response before the SDK parses
// them. The lifecycle document must reach core/lifecycle.Parse exactly as
// the server stored it, and a versions listing must keep its document order
// (the SDK splits Version and DeleteMarker into two slices and loses how
// they interleave within a key).
type rawBody struct{ dst *[]byte }

func (rawBody) ID() string { return "ilmctl:RawBody" }

func (r rawBody) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, md, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRawBody+1))
	_ = resp.Body.Close()
	if err != nil {
		return out, md, err
	}
	if len(b) > maxRawBody {
		return out, md, fmt.Errorf("response body exceeds %d bytes", maxRawBody)
	}
	*r.dst = b
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return out, md, nil
}

// captureBody is a per-call option storing the raw 2xx body in *dst. It
// sits last in the deserialize step, next to the transport, so it sees the
// bytes before the operation deserializer.
func captureBody(dst *[]byte) func(*s3api.Options) {
	return func(o *s3api.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Deserialize.Add(rawBody{dst: dst}, middleware.After)
		})
	}
}

// rawOK reports whether a call whose body was captured succeeded at the
// HTTP level: no error, or only the SDK's own parse failing on a document
// this package decodes itself (the raw bytes are then authoritative).
func rawOK(err error, raw []byte) bool {
	if err == nil {
		return true
	}
	var de *smithy.DeserializationError
	return raw != nil && errors.As(err, &de)
}

// errCode returns the S3 error code of err ("" when it is not an API error).
func errCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// errMessage returns the S3 error message of err.
func errMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

// httpStatus returns the HTTP status of an error response, 0 when none.
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// apiErr wraps err as an *APIError for op on target.
func apiErr(op, target string, err error) error {
	if err == nil {
		return nil
	}
	var already *APIError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &already) {
		return err
	}
	return &APIError{Op: op, Target: target, Status: httpStatus(err), Code: errCode(err), Err: err}
}
