// Package poolid decides when two spellings of a metadata pool (--meta) or
// an embedded filer set (--filer) name one place
// (docs/design/decommission.md#pool-identity). Every command that takes
// several pools or sets asks Distinct before it opens them, so a pool given
// twice, under any alias, is never counted as two.
//
// A directory is one place by its resolved path (made absolute, then
// filepath.EvalSymlinks, then filepath.Clean) or by its device and inode
// (os.SameFile); an s3:// pool by its endpoint, bucket and prefix after
// normalising. Normalising folds more spellings together than an S3 server
// would (bucket case, empty and dot segments): a false "same" is a usage
// error the operator can see, a false "different" could let a pool stand as
// its own target.
package poolid

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Kind is what a spec names.
type Kind int

// Kinds of pool.
const (
	KindDir Kind = iota // a local directory: "dir:PATH" or a plain path
	KindS3              // an S3 bucket and prefix: "s3://host:port/bucket[/prefix]"
)

// ID is the canonical identity of one pool or set.
type ID struct {
	// Spec is the value as the operator gave it; error messages name it.
	Spec string
	Kind Kind
	// Key is the canonical spelling: "dir:/abs/resolved/path" or
	// "s3://host:port/bucket/prefix/" (the prefix ends in "/" when set).
	Key string
	// file is the directory's os.Stat (links followed), for os.SameFile;
	// nil for s3:// pools and for a directory that cannot be stat'ed (it
	// then fails to open anyway).
	file os.FileInfo
}

// Same reports whether a and b name one pool: the same canonical key, or
// for directories the same device and inode (a bind mount or a path the
// resolver could not see through).
func (a ID) Same(b ID) bool {
	if a.Key == b.Key {
		return true
	}
	return a.file != nil && b.file != nil && os.SameFile(a.file, b.file)
}

// ErrSamePool is what a *TwinError matches with errors.Is.
var ErrSamePool = errors.New("two specs name the same pool")

// TwinError is two specs, at positions First and Second of the list given
// to Distinct (First < Second), that name one pool.
type TwinError struct {
	First, Second int
	A, B          ID // the identities at First and Second
}

func (e *TwinError) Error() string {
	return fmt.Sprintf("%q and %q name the same pool (%s)", e.A.Spec, e.B.Spec, e.A.Key)
}

// Is makes errors.Is(err, ErrSamePool) match.
func (e *TwinError) Is(target error) bool { return target == ErrSamePool }

// Distinct returns the identity of every spec, in order, or a *TwinError
// for the first pair (lowest Second, then lowest First) that names one
// pool, or the error of a spec that does not parse.
func Distinct(specs []string) ([]ID, error) {
	ids := make([]ID, 0, len(specs))
	for j, s := range specs {
		id, err := Of(s)
		if err != nil {
			return nil, err
		}
		for i, prev := range ids {
			if prev.Same(id) {
				return nil, &TwinError{First: i, Second: j, A: prev, B: id}
			}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// ErrUnsupported is a spec with a scheme other than dir: and s3://.
var ErrUnsupported = errors.New("unsupported pool: use dir:PATH, a directory path, or s3://host:port/bucket[/prefix]")

// Of is the identity of spec: "s3://host:port/bucket[/prefix]" (TLS when
// ILMCTL_S3_HTTPS=1, as client/metastore opens it), "dir:PATH" or a plain
// path.
func Of(spec string) (ID, error) {
	switch {
	case strings.HasPrefix(spec, "s3://"):
		return S3(spec, os.Getenv("ILMCTL_S3_HTTPS") == "1")
	case strings.HasPrefix(spec, "dir:"):
		return Dir(spec, strings.TrimPrefix(spec, "dir:"))
	case strings.Contains(spec, "://"):
		return ID{}, fmt.Errorf("%q: %w", spec, ErrUnsupported)
	}
	return Dir(spec, spec)
}

// Dir is the identity of the directory p, given as spec. The path is made
// absolute and its links resolved as the kernel resolves them; when it
// cannot be resolved (it does not exist, so opening it fails next) the
// lexically cleaned absolute path stands in.
func Dir(spec, p string) (ID, error) {
	if p == "" {
		return ID{}, fmt.Errorf("%q: empty directory path", spec)
	}
	// Not filepath.Abs: it cleans lexically, and "link/../x" is x beside
	// the link's target, not beside the link, for the open that follows.
	abs := p
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return ID{}, fmt.Errorf("%q: %w", spec, err)
		}
		abs = wd + string(filepath.Separator) + p
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	id := ID{Spec: spec, Kind: KindDir, Key: "dir:" + filepath.Clean(abs)}
	if st, err := os.Stat(abs); err == nil {
		id.file = st
	}
	return id, nil
}

// S3 is the identity of the s3:// pool url, spoken over TLS when https.
// The host is lower-cased without a trailing dot or the scheme's default
// port (80, or 443 with https); the bucket is lower-cased (S3 bucket names
// are lowercase); "/bucket/prefix" is cleaned as a slash path (empty, "."
// and ".." segments folded) and the prefix ends in "/". Two host names for
// one server are not detected: that needs DNS, and a load balancer may
// stand between.
func S3(url string, https bool) (ID, error) {
	rest := strings.TrimPrefix(url, "s3://")
	host, p, ok := strings.Cut(rest, "/")
	host = strings.ToLower(host)
	def := ":80"
	if https {
		def = ":443"
	}
	host = strings.TrimSuffix(strings.TrimSuffix(host, def), ":")
	if h, port, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		host = strings.TrimSuffix(h, ".") + ":" + port
	} else {
		host = strings.TrimSuffix(host, ".")
	}
	clean := strings.TrimPrefix(path.Clean("/"+p), "/")
	if !ok || host == "" || clean == "" {
		return ID{}, fmt.Errorf("bad pool %q: want s3://host:port/bucket[/prefix]", url)
	}
	bucket, prefix, _ := strings.Cut(clean, "/")
	key := "s3://" + host + "/" + strings.ToLower(bucket) + "/"
	if prefix != "" {
		key += prefix + "/"
	}
	return ID{Spec: url, Kind: KindS3, Key: key}, nil
}
