package metastore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	core "github.com/ilmctl/ilmctl/core/metastore"
)

// ProbePrefix starts the key (below the pool's prefix) of every object the
// conditional-delete probe writes: in the pool's temporaries, TempDir,
// outside every namespace a reader lists (ilm/, decommission/), and
// skipped by List.
const ProbePrefix = TempDir + "/delete-probe-"

// ProbeTTL is how long one S3 value trusts a probe that passed. Nothing is
// kept across runs; within a long prune or abandon the server is asked
// again, so one swapped behind the endpoint (an upgrade, a load balancer)
// is caught before the next delete.
const ProbeTTL = 5 * time.Minute

// probeWrongETag is an If-Match value the probe object never has.
const probeWrongETag = `"00000000000000000000000000000000"`

// probeBody is the probe object's content: an operator who finds one (a
// process killed mid-probe) can tell what it is.
const probeBody = "ilmctl conditional-delete probe; safe to remove\n"

// probeFix is what the refusal means and the operator's way out, said
// once.
const probeFix = "ilmctl deletes nothing in this pool: keep it on a server that honours If-Match on DeleteObject (AWS S3, SeaweedFS; see docs/s3.md)"

// CheckConditionalDelete establishes whether the pool's server honours
// If-Match on DeleteObject (docs/design/recovery.md#conditional-delete-probe):
// it writes a probe object under ProbePrefix, deletes it with a wrong
// If-Match (it must answer 412 and keep it), then with the right one (it
// must go). A pass is trusted for ProbeTTL by the clock s was opened with.
// A server that deleted the probe, or answered otherwise than S3 does, is
// an error wrapping core.ErrConditionalDeleteUnsupported; a probe that
// could not be run (no answer, access denied) is another error. The probe
// is removed either way; failing to remove it is an error too.
func (s *S3) CheckConditionalDelete(ctx context.Context) error {
	s.probeMu.Lock()
	defer s.probeMu.Unlock()
	start := s.now()
	if !s.probedAt.IsZero() && !start.Before(s.probedAt) && start.Sub(s.probedAt) < ProbeTTL {
		return nil
	}
	if err := s.probe(ctx); err != nil {
		s.probedAt = time.Time{}
		return err
	}
	s.probedAt = start
	return nil
}

func (s *S3) probe(ctx context.Context) (err error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return fmt.Errorf("%s: conditional-delete probe: random name: %w", s.name, err)
	}
	rel := ProbePrefix + hex.EncodeToString(r[:])
	key := aws.String(s.prefix + rel)
	put, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: key, Body: strings.NewReader(probeBody), IfNoneMatch: aws.String("*")}, oneAttempt)
	if err != nil {
		return fmt.Errorf("%s: conditional-delete probe: write %s: %w", s.name, rel, err)
	}
	gone := false
	defer func() {
		if gone {
			return
		}
		// The key is this call's own random name, so an unconditional
		// delete can remove nothing else.
		_, cerr := s.c.DeleteObject(context.WithoutCancel(ctx), &s3.DeleteObjectInput{Bucket: &s.bucket, Key: key})
		if cerr != nil {
			err = errors.Join(err, fmt.Errorf("%s: conditional-delete probe: remove %s: %w", s.name, rel, cerr))
		}
	}()
	unsupported := func(what string) error {
		return fmt.Errorf("%s: %w: %s; %s", s.name, core.ErrConditionalDeleteUnsupported, what, probeFix)
	}

	_, derr := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: key, IfMatch: aws.String(probeWrongETag)}, oneAttempt)
	switch {
	case derr == nil:
		present, err := s.probePresent(ctx, key)
		if err != nil {
			return fmt.Errorf("%s: conditional-delete probe: %w", s.name, err)
		}
		if !present {
			gone = true
			return unsupported("a DELETE of the probe " + rel + " with a wrong If-Match removed it")
		}
		return unsupported("a DELETE with a wrong If-Match answered success and kept the probe")
	case probeStatus(derr) == 412 || probeCode(derr) == "PreconditionFailed":
	case probeStatus(derr) == 501 || probeStatus(derr) == 400:
		return unsupported(fmt.Sprintf("a DELETE with a wrong If-Match failed with %v, want 412 PreconditionFailed", derr))
	default:
		return fmt.Errorf("%s: conditional-delete probe: DELETE with a wrong If-Match: %w", s.name, derr)
	}
	if present, err := s.probePresent(ctx, key); err != nil || !present {
		if err != nil {
			return fmt.Errorf("%s: conditional-delete probe: %w", s.name, err)
		}
		gone = true
		return unsupported("a DELETE with a wrong If-Match answered 412 but removed the probe")
	}

	_, derr = s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: key, IfMatch: put.ETag}, oneAttempt)
	switch {
	case derr == nil:
	case probeStatus(derr) == 412 || probeStatus(derr) == 501 || probeStatus(derr) == 400:
		return unsupported(fmt.Sprintf("a DELETE with the matching If-Match %s failed with %v", aws.ToString(put.ETag), derr))
	default:
		return fmt.Errorf("%s: conditional-delete probe: DELETE with the matching If-Match: %w", s.name, derr)
	}
	present, err := s.probePresent(ctx, key)
	if err != nil {
		return fmt.Errorf("%s: conditional-delete probe: %w", s.name, err)
	}
	if present {
		return unsupported("a DELETE with the matching If-Match answered success and kept the probe")
	}
	gone = true
	return nil
}

// probePresent is a HEAD of key: false on 404.
func (s *S3) probePresent(ctx context.Context, key *string) (bool, error) {
	_, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: key})
	if err == nil {
		return true, nil
	}
	if probeStatus(err) == 404 {
		return false, nil
	}
	return false, fmt.Errorf("HEAD %s: %w", strings.TrimPrefix(*key, s.prefix), err)
}

func probeStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func probeCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// inTemporaries reports whether key (below the pool prefix) is in the
// pool's temporaries, which List never returns.
func inTemporaries(key string) bool { return strings.HasPrefix(key, TempDir+"/") }
