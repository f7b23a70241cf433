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
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
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

// contains reports whether b lies inside a, a strictly larger place of the
// same kind: a directory below a's resolved path, or an s3:// prefix below
// a's in the same bucket of the same endpoint. A pool inside another is
// removed with it (and a directory pool's files are the other's), so two
// such pools are never counted as two either.
func (a ID) contains(b ID) bool {
	if a.Kind != b.Kind || a.Key == b.Key {
		return false
	}
	outer := a.Key
	if !strings.HasSuffix(outer, "/") {
		outer += "/"
	}
	return strings.HasPrefix(b.Key, outer)
}

// ErrSamePool is what a *TwinError matches with errors.Is.
var ErrSamePool = errors.New("two specs name the same pool")

// TwinError is two specs, at positions First and Second of the list given
// to Distinct (First < Second), that name one pool, or (Nested) of which
// one lies inside the other.
type TwinError struct {
	First, Second int
	A, B          ID // the identities at First and Second
	// Nested: not one place, but one inside the other; Inner says which.
	Nested bool
	Inner  int // First or Second, when Nested
}

func (e *TwinError) Error() string {
	if e.Nested {
		in, out := e.A, e.B
		if e.Inner == e.Second {
			in, out = e.B, e.A
		}
		return fmt.Sprintf("%q lies inside %q (%s)", in.Spec, out.Spec, out.Key)
	}
	return fmt.Sprintf("%q and %q name the same pool (%s)", e.A.Spec, e.B.Spec, e.A.Key)
}

// Is makes errors.Is(err, ErrSamePool) match.
func (e *TwinError) Is(target error) bool { return target == ErrSamePool }

// Distinct returns the identity of every spec, in order, or a *TwinError
// for the first pair (lowest Second, then lowest First) that names one
// pool or of which one lies inside the other, or the error of a spec that
// does not parse.
func Distinct(specs []string) ([]ID, error) {
	ids := make([]ID, 0, len(specs))
	for j, s := range specs {
		id, err := Of(s)
		if err != nil {
			return nil, err
		}
		for i, prev := range ids {
			switch {
			case prev.Same(id):
				return nil, &TwinError{First: i, Second: j, A: prev, B: id}
			case prev.contains(id):
				return nil, &TwinError{First: i, Second: j, A: prev, B: id, Nested: true, Inner: j}
			case id.contains(prev):
				return nil, &TwinError{First: i, Second: j, A: prev, B: id, Nested: true, Inner: i}
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
	hostport, p, ok := strings.Cut(rest, "/")
	host, err := canonicalHost(strings.ToLower(hostport), https)
	clean := strings.TrimPrefix(path.Clean("/"+p), "/")
	if !ok || err != nil || host == "" || clean == "" {
		return ID{}, fmt.Errorf("bad pool %q: want s3://host:port/bucket[/prefix]", url)
	}
	bucket, prefix, _ := strings.Cut(clean, "/")
	key := "s3://" + host + "/" + strings.ToLower(bucket) + "/"
	if prefix != "" {
		key += prefix + "/"
	}
	return ID{Spec: url, Kind: KindS3, Key: key}, nil
}

// canonicalHost is hostport (lower-cased) as S3 keys it: the host without
// a trailing dot, an IP address in its canonical form ("[0:0::1]" is
// "[::1]"), the port as a number without leading zeros ("09000" is
// "9000"), and no port when it is the scheme's default (80, or 443 with
// https). A port that is not a number 1-65535 is an error.
func canonicalHost(hostport string, https bool) (string, error) {
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: a bare host, or a bracketed IPv6 address.
		h, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
		if strings.HasSuffix(hostport, ":") {
			h = strings.TrimSuffix(h, ":")
		}
	}
	h = strings.TrimSuffix(h, ".")
	if ip := net.ParseIP(h); ip != nil {
		h = ip.String()
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("port %q", port)
		}
		port = strconv.Itoa(n)
	}
	if port == "80" && !https || port == "443" && https {
		port = ""
	}
	if port != "" {
		return net.JoinHostPort(h, port), nil
	}
	if strings.Contains(h, ":") {
		return "[" + h + "]", nil
	}
	return h, nil
}
