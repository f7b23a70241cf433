package s3

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// bucketInfo is what the store remembers about a bucket between calls:
// its versioning and Object Lock state (which decide how a delete is sent)
// and the enabled rules with tag filters (which decide whose tags are
// fetched). It is refreshed by every ListBuckets.
type bucketInfo struct {
	versioning filer.Versioning
	objectLock bool
	tagRules   []lifecycle.Rule
}

// needsTags reports whether some enabled tag rule could select version v
// of key: its prefix and size bounds hold. Only then is GetObjectTagging
// worth a request; delete markers have no tags.
func (b *bucketInfo) needsTags(key string, v *filer.Version) bool {
	if v.DeleteMarker {
		return false
	}
	for i := range b.tagRules {
		f := b.tagRules[i].Filter
		f.Tags = nil
		if f.MatchesVersion(key, v) {
			return true
		}
	}
	return false
}

// tagRulesOf returns the enabled rules of a lifecycle document that filter
// on tags. A document that does not parse yields none: the run command
// rejects that bucket anyway, so its tags are never consulted.
func tagRulesOf(xml string) []lifecycle.Rule {
	if xml == "" {
		return nil
	}
	cfg, err := lifecycle.Parse([]byte(xml))
	if err != nil {
		return nil
	}
	var out []lifecycle.Rule
	for _, r := range cfg.Rules {
		if r.Enabled && len(r.Filter.Tags) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// ListBuckets returns every bucket sorted by name with its raw lifecycle
// document (GetBucketLifecycleConfiguration's body, byte for byte),
// versioning (GetBucketVersioning) and Object Lock state
// (GetObjectLockConfiguration). Any failure other than "not configured"
// fails the whole call: a bucket with unknown rules or versioning is not
// guessed at.
func (s *Store) ListBuckets(ctx context.Context) ([]filer.Bucket, error) {
	var names []string
	in := &s3api.ListBucketsInput{}
	for {
		out, err := s.c.ListBuckets(ctx, in)
		if err != nil {
			return nil, apiErr("ListBuckets", "", err)
		}
		for _, b := range out.Buckets {
			names = append(names, aws.ToString(b.Name))
		}
		tok := aws.ToString(out.ContinuationToken)
		if tok == "" {
			break
		}
		if in.ContinuationToken != nil && tok == *in.ContinuationToken {
			return nil, fmt.Errorf("ListBuckets: %w", ErrMarkerStuck)
		}
		in.ContinuationToken = aws.String(tok)
	}
	sort.Strings(names)

	out := make([]filer.Bucket, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, s.conc)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = s.describeBucket(ctx, name)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// describeBucket reads one bucket's lifecycle, versioning and lock state
// and refreshes its cache entry.
func (s *Store) describeBucket(ctx context.Context, name string) (filer.Bucket, error) {
	b := filer.Bucket{Name: name}
	var err error
	if b.LifecycleXML, err = s.lifecycleXML(ctx, name); err != nil {
		return b, err
	}
	if b.Versioning, err = s.versioning(ctx, name); err != nil {
		return b, err
	}
	if b.ObjectLock, err = s.objectLock(ctx, name); err != nil {
		return b, err
	}
	s.mu.Lock()
	s.buckets[name] = &bucketInfo{versioning: b.Versioning, objectLock: b.ObjectLock, tagRules: tagRulesOf(b.LifecycleXML)}
	s.mu.Unlock()
	return b, nil
}

// bucket returns the cached info for name, describing the bucket first when
// ListBuckets has not (a caller that lists a bucket directly).
func (s *Store) bucket(ctx context.Context, name string) (*bucketInfo, error) {
	s.mu.Lock()
	b, ok := s.buckets[name]
	s.mu.Unlock()
	if ok {
		return b, nil
	}
	if _, err := s.describeBucket(ctx, name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buckets[name], nil
}

// lifecycleXML returns the bucket's lifecycle document as stored, "" when
// it has none (NoSuchLifecycleConfiguration).
func (s *Store) lifecycleXML(ctx context.Context, bucket string) (string, error) {
	var raw []byte
	_, err := s.c.GetBucketLifecycleConfiguration(ctx, &s3api.GetBucketLifecycleConfigurationInput{Bucket: aws.String(bucket)}, captureBody(&raw))
	if isCode(err, "NoSuchLifecycleConfiguration") {
		return "", nil
	}
	if !rawOK(err, raw) {
		return "", apiErr("GetBucketLifecycleConfiguration", bucket, err)
	}
	return string(raw), nil
}

// versioning maps GetBucketVersioning's Status; an empty status is a bucket
// that never had versioning, anything else unknown is an error.
func (s *Store) versioning(ctx context.Context, bucket string) (filer.Versioning, error) {
	out, err := s.c.GetBucketVersioning(ctx, &s3api.GetBucketVersioningInput{Bucket: aws.String(bucket)})
	if err != nil {
		return "", apiErr("GetBucketVersioning", bucket, err)
	}
	switch out.Status {
	case "":
		return filer.VersioningOff, nil
	case types.BucketVersioningStatusEnabled:
		return filer.VersioningEnabled, nil
	case types.BucketVersioningStatusSuspended:
		return filer.VersioningSuspended, nil
	}
	return "", fmt.Errorf("GetBucketVersioning %s: unknown status %q", bucket, out.Status)
}

// objectLock reports whether the bucket has Object Lock enabled. "Not
// configured" answers (AWS's ObjectLockConfigurationNotFoundError and the
// spellings other servers use) mean off.
func (s *Store) objectLock(ctx context.Context, bucket string) (bool, error) {
	out, err := s.c.GetObjectLockConfiguration(ctx, &s3api.GetObjectLockConfigurationInput{Bucket: aws.String(bucket)})
	if err != nil {
		if isCode(err, "ObjectLockConfigurationNotFoundError", "ObjectLockConfigurationNotFound", "NoSuchObjectLockConfiguration") {
			return false, nil
		}
		return false, apiErr("GetObjectLockConfiguration", bucket, err)
	}
	return out.ObjectLockConfiguration != nil && out.ObjectLockConfiguration.ObjectLockEnabled == types.ObjectLockEnabledEnabled, nil
}

func isCode(err error, codes ...string) bool {
	if err == nil {
		return false
	}
	c := errCode(err)
	for _, want := range codes {
		if strings.EqualFold(c, want) {
			return true
		}
	}
	return false
}
