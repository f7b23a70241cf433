package s3

import (
	"cmp"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ilmctl/ilmctl/core/filer"
)

// maxPage is S3's largest listing page.
const maxPage = 1000

// versionsPage is one decoded ListObjectVersions response. Entries keep
// the document order of Version and DeleteMarker elements: S3 lists a
// key's versions newest first across both kinds.
type versionsPage struct {
	Truncated           bool
	NextKeyMarker       string
	NextVersionIDMarker string
	Entries             []versionEntry
}

// versionEntry is one Version or DeleteMarker element.
type versionEntry struct {
	Key     string
	Version filer.Version
}

type xmlVersions struct {
	IsTruncated         bool       `xml:"IsTruncated"`
	NextKeyMarker       string     `xml:"NextKeyMarker"`
	NextVersionIDMarker string     `xml:"NextVersionIdMarker"`
	EncodingType        string     `xml:"EncodingType"`
	Entries             []xmlEntry `xml:",any"`
}

type xmlEntry struct {
	XMLName      xml.Name
	Key          string `xml:"Key"`
	VersionID    string `xml:"VersionId"`
	IsLatest     string `xml:"IsLatest"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         string `xml:"Size"`
}

// decodeVersions parses a ListVersionsResult document strictly enough that
// nothing on a page is acted on unless every entry decoded: a bad
// timestamp, size or IsLatest value fails the page with ErrBadListing.
func decodeVersions(raw []byte) (versionsPage, error) {
	var x xmlVersions
	if err := xml.Unmarshal(raw, &x); err != nil {
		return versionsPage{}, fmt.Errorf("%w: %v", ErrBadListing, err)
	}
	p := versionsPage{Truncated: x.IsTruncated, NextKeyMarker: x.NextKeyMarker, NextVersionIDMarker: x.NextVersionIDMarker}
	urlKeys := strings.EqualFold(x.EncodingType, "url")
	for _, e := range x.Entries {
		marker := e.XMLName.Local == "DeleteMarker"
		if !marker && e.XMLName.Local != "Version" {
			continue // Name, Prefix, MaxKeys, CommonPrefixes ...
		}
		key := e.Key
		if urlKeys {
			k, err := url.QueryUnescape(key)
			if err != nil {
				return versionsPage{}, fmt.Errorf("%w: key %q: %v", ErrBadListing, key, err)
			}
			key = k
		}
		v, err := e.version(marker)
		if err != nil {
			return versionsPage{}, fmt.Errorf("%w: %s@%s: %v", ErrBadListing, key, e.VersionID, err)
		}
		p.Entries = append(p.Entries, versionEntry{Key: key, Version: v})
	}
	return p, nil
}

func (e *xmlEntry) version(marker bool) (filer.Version, error) {
	v := filer.Version{VersionID: e.VersionID, DeleteMarker: marker, ETag: strings.Trim(e.ETag, `"`)}
	if v.VersionID == "" {
		return v, fmt.Errorf("no VersionId")
	}
	switch e.IsLatest {
	case "true":
		v.IsLatest = true
	case "false":
	default:
		return v, fmt.Errorf("IsLatest %q", e.IsLatest)
	}
	t, err := time.Parse(time.RFC3339Nano, e.LastModified)
	if err != nil {
		return v, fmt.Errorf("LastModified: %v", err)
	}
	v.MtimeNs = t.UnixNano()
	if !marker {
		if _, err := fmt.Sscan(e.Size, &v.Size); err != nil || v.Size < 0 {
			return v, fmt.Errorf("Size %q", e.Size) //nolint:staticcheck // ST1005: Size is the XML element, named as IsLatest and LastModified are above
		}
	}
	return v, nil
}

// listVersionsPage fetches one raw ListObjectVersions page.
func (s *Store) listVersionsPage(ctx context.Context, in *s3api.ListObjectVersionsInput) (versionsPage, error) {
	var raw []byte
	_, err := s.c.ListObjectVersions(ctx, in, captureBody(&raw))
	if !rawOK(err, raw) {
		return versionsPage{}, apiErr("ListObjectVersions", aws.ToString(in.Bucket), err)
	}
	p, err := decodeVersions(raw)
	if err != nil {
		return versionsPage{}, fmt.Errorf("ListObjectVersions %s: %w", aws.ToString(in.Bucket), err)
	}
	if p.Truncated {
		if p.NextKeyMarker == "" && p.NextVersionIDMarker == "" {
			return versionsPage{}, fmt.Errorf("ListObjectVersions %s: %w", aws.ToString(in.Bucket), filer.ErrTruncatedPage)
		}
		if p.NextKeyMarker == aws.ToString(in.KeyMarker) && p.NextVersionIDMarker == aws.ToString(in.VersionIdMarker) {
			return versionsPage{}, fmt.Errorf("ListObjectVersions %s: %w", aws.ToString(in.Bucket), ErrMarkerStuck)
		}
	}
	return p, nil
}

// grouper folds listing entries into objects, one per key in listing
// order, each with its versions in document (newest-first) order.
type grouper struct {
	after string // keys <= after are dropped (a server that repeats the marker key)
	objs  []filer.Object
}

func (g *grouper) add(es []versionEntry) {
	for _, e := range es {
		if e.Key <= g.after && g.after != "" {
			continue
		}
		if n := len(g.objs); n > 0 && g.objs[n-1].Key == e.Key {
			g.objs[n-1].Versions = append(g.objs[n-1].Versions, e.Version)
			continue
		}
		g.objs = append(g.objs, filer.Object{Key: e.Key, Versions: []filer.Version{e.Version}})
	}
}

// normalizeOrder makes obj.Versions newest first, or fails when that
// order cannot be known. ListObjectVersions lists a key's versions newest
// first, and that order is the server's own statement of succession: it
// is kept wherever LastModified seconds tie, since S3 timestamps carry
// whole seconds and two writes in one second are ordinary. SeaweedFS's
// gateway sorts by version ID instead, which for its time-ordered IDs is
// the same order except that the "null" version comes last wherever it
// belongs. So:
//   - exactly one version must be IsLatest; it is moved to the front;
//   - the other versions but a null version listed last keep document
//     order when their LastModified never increases along it; when it
//     does, they are sorted by LastModified if no two share a second,
//     else the order contradicts itself and the key is ambiguous;
//   - a null version listed last is placed by its LastModified second; one
//     that shares its second with another noncurrent version could belong
//     above or below it, which decides NoncurrentDays ages and
//     NewerNoncurrentVersions counts, so the key is ambiguous.
//
// Every failure is a *filer.KeyError wrapping filer.ErrAmbiguousLayout,
// saying what the listing showed: the key gets no action and is reported,
// and nothing else stops (docs/design/daily-run.md#walker).
func normalizeOrder(bucket string, obj *filer.Object) error {
	ambiguous := func(format string, args ...any) error {
		return &filer.KeyError{Bucket: bucket, Key: obj.Key, Err: fmt.Errorf("%w: %s", filer.ErrAmbiguousLayout, fmt.Sprintf(format, args...))}
	}
	seenID := make(map[string]bool, len(obj.Versions))
	for _, v := range obj.Versions {
		if seenID[v.VersionID] {
			return ambiguous("the listing shows version ID %q twice", v.VersionID)
		}
		seenID[v.VersionID] = true
	}
	latest := -1
	for i, v := range obj.Versions {
		if v.IsLatest {
			if latest >= 0 {
				return ambiguous("the listing marks both %q and %q IsLatest", obj.Versions[latest].VersionID, v.VersionID)
			}
			latest = i
		}
	}
	if latest < 0 {
		// SeaweedFS lists a key this way when its latest pointer names
		// "null" while the bare null object is not what it names: the
		// listing contradicts itself about which entry is current.
		return ambiguous("the listing marks none of its %d versions IsLatest", len(obj.Versions))
	}
	rest := append(append([]filer.Version{}, obj.Versions[:latest]...), obj.Versions[latest+1:]...)
	var null *filer.Version
	if n := len(rest); n > 1 && rest[n-1].VersionID == filer.NullVersionID {
		null, rest = &rest[n-1], rest[:n-1]
	}
	sec := func(v filer.Version) int64 { return time.Unix(0, v.MtimeNs).Unix() }
	seconds := map[int64]string{}
	tie := ""
	monotonic := true
	for i, v := range rest {
		if other, ok := seconds[sec(v)]; ok && tie == "" {
			tie = fmt.Sprintf("%q and %q", other, v.VersionID)
		}
		seconds[sec(v)] = v.VersionID
		if i > 0 && sec(v) > sec(rest[i-1]) {
			monotonic = false
		}
	}
	if !monotonic {
		if tie != "" {
			return ambiguous("noncurrent versions are listed out of time order, and %s share a LastModified second", tie)
		}
		sort.SliceStable(rest, func(i, j int) bool { return rest[i].MtimeNs > rest[j].MtimeNs })
	}
	if null != nil {
		if other, ok := seconds[sec(*null)]; ok {
			return ambiguous("the noncurrent null version, listed last, shares its LastModified second with %q: its place among the versions is unknown", other)
		}
		at := sort.Search(len(rest), func(i int) bool { return sec(rest[i]) < sec(*null) })
		rest = slices.Insert(rest, at, *null)
	}
	obj.Versions = append([]filer.Version{obj.Versions[latest]}, rest...)
	return nil
}

// ListObjects returns up to limit keys after startAfter, each with every
// version and delete marker newest first, from ListObjectVersions. Tags are
// fetched (GetObjectTagging) only for versions an enabled tag rule of the
// bucket could select; other versions have nil Tags. RetainUntil and
// LegalHold are left zero: Object Lock is checked per delete instead.
// NoncurrentSinceNs is 0 (S3 does not expose it), so noncurrent ages count
// from the successor's LastModified, as AWS counts them.
func (s *Store) ListObjects(ctx context.Context, bucket, startAfter string, limit int) ([]filer.Object, string, error) {
	if limit <= 0 {
		limit = maxPage
	}
	b, err := s.bucket(ctx, bucket)
	if err != nil {
		return nil, "", err
	}
	g := &grouper{after: startAfter}
	in := &s3api.ListObjectVersionsInput{Bucket: aws.String(bucket), MaxKeys: aws.Int32(int32(min(maxPage, limit+1)))}
	if startAfter != "" {
		in.KeyMarker = aws.String(startAfter)
	}
	// Read until a (limit+1)th key starts, which proves the first limit keys
	// are complete, or the listing ends.
	for len(g.objs) <= limit {
		p, err := s.listVersionsPage(ctx, in)
		if err != nil {
			return nil, "", err
		}
		g.add(p.Entries)
		if !p.Truncated {
			break
		}
		in.KeyMarker, in.VersionIdMarker = aws.String(p.NextKeyMarker), optional(p.NextVersionIDMarker)
	}
	objs, next := g.objs, ""
	if len(objs) > limit {
		objs, next = objs[:limit], objs[limit-1].Key
	}
	for i := range objs {
		if err := normalizeOrder(bucket, &objs[i]); err != nil {
			// The rest of the page is good; the key carries its error.
			objs[i] = filer.Object{Key: objs[i].Key, Err: err}
			continue
		}
		if err := s.fillTags(ctx, bucket, b, &objs[i]); err != nil {
			return nil, "", err
		}
	}
	return objs, next, nil
}

// LookupObject returns key's versions newest first (ListObjectVersions with
// the key as prefix, stopping at the first longer key), with tags as in
// ListObjects.
func (s *Store) LookupObject(ctx context.Context, bucket, key string) (filer.Object, bool, error) {
	b, err := s.bucket(ctx, bucket)
	if err != nil {
		return filer.Object{}, false, err
	}
	obj, found, err := s.lookup(ctx, bucket, key)
	if err != nil || !found {
		return obj, found, err
	}
	return obj, true, s.fillTags(ctx, bucket, b, &obj)
}

// lookup is LookupObject without tags, as the delete path's identity check
// uses it.
func (s *Store) lookup(ctx context.Context, bucket, key string) (filer.Object, bool, error) {
	obj := filer.Object{Key: key}
	in := &s3api.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(key), MaxKeys: aws.Int32(maxPage)}
	for {
		p, err := s.listVersionsPage(ctx, in)
		if err != nil {
			return filer.Object{}, false, err
		}
		done := !p.Truncated
		for _, e := range p.Entries {
			if e.Key != key {
				// Keys sort after their own prefix: key's versions are over.
				done = true
				break
			}
			obj.Versions = append(obj.Versions, e.Version)
		}
		if done {
			break
		}
		in.KeyMarker, in.VersionIdMarker = aws.String(p.NextKeyMarker), optional(p.NextVersionIDMarker)
	}
	if len(obj.Versions) == 0 {
		return obj, false, nil
	}
	return obj, true, normalizeOrder(bucket, &obj)
}

// fillTags fetches tags for the versions of obj a tag rule could select.
func (s *Store) fillTags(ctx context.Context, bucket string, b *bucketInfo, obj *filer.Object) error {
	for i := range obj.Versions {
		v := &obj.Versions[i]
		if !b.needsTags(obj.Key, v) {
			continue
		}
		tags, found, err := s.versionTags(ctx, bucket, b, obj.Key, v.VersionID)
		if err != nil {
			return err
		}
		if !found {
			// Gone since the listing: without tags no tag rule matches it,
			// and a delete would be NOOP_RESOLVED anyway.
			continue
		}
		v.Tags = tags
	}
	return nil
}

// versionTags reads one version's tags (GetObjectTagging, naming the
// version unless the bucket never had versioning). found is false when
// the version is gone; any other failure is an *APIError.
func (s *Store) versionTags(ctx context.Context, bucket string, b *bucketInfo, key, versionID string) (tags map[string]string, found bool, err error) {
	in := &s3api.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if b.versioning != filer.VersioningOff {
		in.VersionId = aws.String(versionID)
	}
	out, err := s.c.GetObjectTagging(ctx, in)
	if isCode(err, "NoSuchKey", "NoSuchVersion", "NotFound") {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, apiErr("GetObjectTagging", bucket+"/"+key+"@"+versionID, err)
	}
	tags = make(map[string]string, len(out.TagSet))
	for _, t := range out.TagSet {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return tags, true, nil
}

// uploadMarker is ListUploads's opaque continuation marker: the server's
// own NextKeyMarker and NextUploadIdMarker.
type uploadMarker struct {
	Key      string `json:"k"`
	UploadID string `json:"u"`
}

// ListUploads returns one ListMultipartUploads page of at most limit
// uploads after the opaque marker startAfter, each page in AWS's order
// (key, then initiation), whatever the server's.
func (s *Store) ListUploads(ctx context.Context, bucket, startAfter string, limit int) ([]filer.Upload, string, error) {
	if limit <= 0 || limit > maxPage {
		limit = maxPage
	}
	in := &s3api.ListMultipartUploadsInput{Bucket: aws.String(bucket), MaxUploads: aws.Int32(int32(limit))}
	if startAfter != "" {
		var m uploadMarker
		if err := json.Unmarshal([]byte(startAfter), &m); err != nil {
			return nil, "", fmt.Errorf("ListUploads %s: marker %q is not one this store issued: %v", bucket, startAfter, err)
		}
		in.KeyMarker, in.UploadIdMarker = aws.String(m.Key), optional(m.UploadID)
	}
	out, err := s.c.ListMultipartUploads(ctx, in)
	if err != nil {
		return nil, "", apiErr("ListMultipartUploads", bucket, err)
	}
	ups := make([]filer.Upload, 0, len(out.Uploads))
	for _, u := range out.Uploads {
		if u.Initiated == nil || aws.ToString(u.UploadId) == "" {
			return nil, "", fmt.Errorf("ListMultipartUploads %s: %w: upload of %q without Initiated or UploadId", bucket, ErrBadListing, aws.ToString(u.Key))
		}
		ups = append(ups, filer.Upload{Key: aws.ToString(u.Key), UploadID: aws.ToString(u.UploadId), Initiated: u.Initiated.UTC()})
	}
	// AWS lists by key, then initiation; MinIO lists a bucket's uploads in
	// initiation order across keys (and ignores max-uploads). A page is
	// put in AWS's order here: markers stay the server's own.
	slices.SortStableFunc(ups, func(a, b filer.Upload) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), a.Initiated.Compare(b.Initiated))
	})
	if !aws.ToBool(out.IsTruncated) {
		return ups, "", nil
	}
	m := uploadMarker{Key: aws.ToString(out.NextKeyMarker), UploadID: aws.ToString(out.NextUploadIdMarker)}
	if m.Key == "" && m.UploadID == "" {
		return nil, "", fmt.Errorf("ListMultipartUploads %s: %w", bucket, filer.ErrTruncatedPage)
	}
	if m.Key == aws.ToString(in.KeyMarker) && m.UploadID == aws.ToString(in.UploadIdMarker) {
		return nil, "", fmt.Errorf("ListMultipartUploads %s: %w", bucket, ErrMarkerStuck)
	}
	next, _ := json.Marshal(m)
	return ups, string(next), nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}
