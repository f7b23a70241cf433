package itest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// putLifecycleRaw sends PutBucketLifecycleConfiguration with body as the
// request payload: the SDK serializes an empty input and a serialize-step
// middleware swaps in the raw document before checksums and signing, so
// the server stores exactly body.
func (s *S3) putLifecycleRaw(c context.Context, bucket, body string) error {
	_, err := s.C.PutBucketLifecycleConfiguration(c,
		&s3.PutBucketLifecycleConfigurationInput{Bucket: aws.String(bucket)},
		func(o *s3.Options) {
			o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
				return st.Serialize.Insert(rawBody([]byte(body)), "OperationSerializer", middleware.After)
			})
		})
	return err
}

type rawBody []byte

func (rawBody) ID() string { return "ilmctl:RawBody" }

func (b rawBody) HandleSerialize(ctx context.Context, in middleware.SerializeInput, next middleware.SerializeHandler) (middleware.SerializeOutput, middleware.Metadata, error) {
	req, ok := in.Request.(*smithyhttp.Request)
	if !ok {
		return middleware.SerializeOutput{}, middleware.Metadata{}, fmt.Errorf("raw body: unexpected transport request %T", in.Request)
	}
	req.Header.Set("Content-Type", "application/xml")
	r, err := req.SetStream(bytes.NewReader(b))
	if err != nil {
		return middleware.SerializeOutput{}, middleware.Metadata{}, err
	}
	in.Request = r
	return next.HandleSerialize(ctx, in)
}
