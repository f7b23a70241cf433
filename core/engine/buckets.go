package engine

import (
	"fmt"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// BucketError is a bucket whose lifecycle configuration was rejected: it
// gets no lifecycle action (fail closed, never a guess), and the pass
// reports it.
type BucketError struct {
	Bucket string
	Err    error // the parser's verdict, a *lifecycle.Error for a rejected document
}

func (e *BucketError) Error() string { return fmt.Sprintf("bucket %s: %v", e.Bucket, e.Err) }
func (e *BucketError) Unwrap() error { return e.Err }

// ParseBuckets parses every listed bucket's lifecycle configuration with
// the strict parser. Buckets without one are skipped; a bucket whose
// document is rejected is returned in rejected, in listing order, and
// none of its rules is in ok.
func ParseBuckets(bs []filer.Bucket) (ok []Bucket, rejected []BucketError) {
	for _, b := range bs {
		if b.LifecycleXML == "" {
			continue
		}
		cfg, err := lifecycle.Parse([]byte(b.LifecycleXML))
		if err != nil {
			rejected = append(rejected, BucketError{Bucket: b.Name, Err: err})
			continue
		}
		ok = append(ok, Bucket{Name: b.Name, Versioning: b.Versioning, ObjectLock: b.ObjectLock, Rules: cfg.Rules})
	}
	return ok, rejected
}
