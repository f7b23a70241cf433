package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// churnOp is what the day's churn does to one key.
type churnOp int

const (
	churnNone      churnOp = iota
	churnOverwrite         // PUT a new version (a new body, the key's tags)
	churnDelete            // DELETE without a version ID: a delete marker, or a removal when unversioned
	churnRetag             // PUT tagging on the latest version: expire=yes&team=churn
)

func (o churnOp) String() string {
	return [...]string{"none", "overwrite", "delete", "retag"}[o]
}

// churnOf picks 1 % of a bucket's keys, one in every hundred: key
// 100m+2 for even m, 100m+51 for odd m, so both parities of every bucket's
// aged/not-aged and prefix patterns are hit; the operation cycles
// overwrite, delete, retag with m.
func churnOf(i int) churnOp {
	m := i / 100
	r := 2
	if m%2 == 1 {
		r = 51
	}
	if i%100 != r {
		return churnNone
	}
	return churnOverwrite + churnOp(m%3)
}

// churn applies the day's churn to every server in cs: each selected key's
// operation is sent to all servers at once and waited for before the
// worker's next key, so the servers see the same writes at about the same
// times. An operation must end the same way on every server (both succeed,
// or both refuse it with the same S3 error code, as a retag of a key whose
// latest version is a delete marker is); anything else is an error.
func churn(ctx context.Context, cs []*s3.Client, scale float64, conc int) error {
	type job struct {
		b  *bucketSpec
		i  int
		op churnOp
	}
	specs := dataset(scale)
	jobs := make(chan job)
	var mu sync.Mutex
	done := map[string]int{}
	var firstErr error
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				codes := make([]string, len(cs))
				var ow sync.WaitGroup
				for si, c := range cs {
					ow.Add(1)
					go func() {
						defer ow.Done()
						codes[si] = churnKey(ctx, c, j.b, j.i, j.op)
					}()
				}
				ow.Wait()
				mu.Lock()
				for _, code := range codes[1:] {
					if code != codes[0] && firstErr == nil {
						firstErr = fmt.Errorf("%s %s/%s: the servers answered %q and %q", j.op, j.b.name, j.b.key(j.i), codes[0], code)
					}
				}
				outcome := j.op.String()
				if codes[0] != "" {
					outcome += " refused " + codes[0]
				}
				done[outcome]++
				mu.Unlock()
			}
		}()
	}
	for bi := range specs {
		b := &specs[bi]
		for i := 0; i < b.keys; i++ {
			if op := churnOf(i); op != churnNone {
				jobs <- job{b, i, op}
			}
		}
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "benchseed: churn on %d servers: %v\n", len(cs), done)
	return firstErr
}

// churnKey applies op to key i of b on one server and returns "" or the S3
// error code that refused it (the transport error's text when it has
// none).
func churnKey(ctx context.Context, c *s3.Client, b *bucketSpec, i int, op churnOp) string {
	key := b.key(i)
	var err error
	switch op {
	case churnOverwrite:
		in := &s3.PutObjectInput{Bucket: aws.String(b.name), Key: aws.String(key),
			Body: bytes.NewReader([]byte(fmt.Sprintf("%s/%s/churn", b.name, key)))}
		if b.tags != nil {
			if t := b.tags(i); t != "" {
				in.Tagging = aws.String(t)
			}
		}
		_, err = c.PutObject(ctx, in)
	case churnDelete:
		_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.name), Key: aws.String(key)})
	case churnRetag:
		_, err = c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(b.name), Key: aws.String(key),
			Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("expire"), Value: aws.String("yes")},
				{Key: aws.String("team"), Value: aws.String("churn")}}}})
	}
	if err == nil {
		return ""
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return err.Error()
}
