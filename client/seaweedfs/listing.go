package seaweedfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"golang.org/x/sync/errgroup"

	"github.com/ilmctl/ilmctl/core/filer"
)

// listPageSize is the filer ListEntries page. The filer streams up to
// Limit entries and fewer only at the end of the directory
// (weed/server/filer_grpc_server.go ListEntries), so a short page ends a
// listing, as SeaweedFS's own scheduler assumes (configload.go).
const listPageSize = 1024

// listPage lists up to limit entries of dir after startFrom (inclusive
// when inclusive is set). A stream that breaks is ErrListingEnded, never a
// short page.
func (s *Store) listPage(ctx context.Context, dir, startFrom string, inclusive bool, limit int) ([]*filer_pb.Entry, error) {
	stream, err := s.fc.ListEntries(ctx, &filer_pb.ListEntriesRequest{
		Directory:          dir,
		StartFromFileName:  startFrom,
		InclusiveStartFrom: inclusive,
		Limit:              uint32(limit),
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []*filer_pb.Entry
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w: %s after %d entries: %v", ErrListingEnded, dir, len(out), err)
		}
		if resp.Entry == nil {
			return nil, fmt.Errorf("%w: %s: response without an entry", ErrListingEnded, dir)
		}
		if len(out) == limit {
			return nil, fmt.Errorf("%w: %s: more than the %d entries asked for", ErrListingEnded, dir, limit)
		}
		out = append(out, resp.Entry)
	}
}

// listAll lists every entry of dir; a missing dir is empty.
func (s *Store) listAll(ctx context.Context, dir string) ([]*filer_pb.Entry, error) {
	var all []*filer_pb.Entry
	after := ""
	for {
		page, err := s.listPage(ctx, dir, after, false, listPageSize)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < listPageSize {
			return all, nil
		}
		after = page[len(page)-1].Name
	}
}

// lookup returns dir/name, nil when it does not exist.
func (s *Store) lookup(ctx context.Context, dir, name string) (*filer_pb.Entry, error) {
	resp, err := filer_pb.LookupEntry(ctx, s.fc, &filer_pb.LookupDirectoryEntryRequest{Directory: dir, Name: name})
	if errors.Is(err, filer_pb.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lookup %s/%s: %w", dir, name, err)
	}
	return resp.Entry, nil
}

// ListBuckets lists the directories under the buckets path, sorted by name.
func (s *Store) ListBuckets(ctx context.Context) ([]filer.Bucket, error) {
	entries, err := s.listAll(ctx, s.bucketsPath)
	if err != nil {
		return nil, err
	}
	var out []filer.Bucket
	for _, e := range entries {
		if !e.IsDirectory {
			continue
		}
		b, err := parseBucket(e)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// LookupObject reads key's bare entry, its .versions directory and the
// version files in it.
func (s *Store) LookupObject(ctx context.Context, bucket, key string) (filer.Object, bool, error) {
	if key == "" || strings.HasPrefix(key, "/") {
		return filer.Object{}, false, nil
	}
	base := s.bucketDir(bucket)
	dir, name := path.Split(base + "/" + strings.TrimSuffix(key, "/"))
	dir = strings.TrimSuffix(dir, "/")
	p := objectParts{key: key}
	bare, err := s.lookup(ctx, dir, name)
	if err != nil {
		return filer.Object{}, false, err
	}
	if strings.HasSuffix(key, "/") {
		if bare != nil && bare.IsDirectoryKeyObject() && !bare.IsPrefixObject() {
			p.bare = bare
		}
	} else if bare != nil && (!bare.IsDirectory || bare.IsPrefixObject()) {
		p.bare = bare
	}
	if !strings.HasSuffix(key, "/") {
		vdir, err := s.lookup(ctx, dir, name+versionsSuffix)
		if err != nil {
			return filer.Object{}, false, err
		}
		if vdir != nil && vdir.IsDirectory {
			p.versions = vdir
		}
	}
	return s.assembleParts(ctx, bucket, dir, p)
}

// assembleParts lists p's version files (in dir/<name>.versions) and
// assembles the object. An entry that cannot be read exactly (ErrBadEntry,
// ErrDanglingLatest, filer.ErrAmbiguousLayout) is a *filer.KeyError: it
// concerns this key alone. Listing failures are returned as they are.
func (s *Store) assembleParts(ctx context.Context, bucket, dir string, p objectParts) (filer.Object, bool, error) {
	if p.versions != nil {
		files, err := s.listAll(ctx, dir+"/"+p.versions.Name)
		if err != nil {
			return filer.Object{}, false, err
		}
		p.files = files
	}
	obj, found, err := assemble(p)
	if err != nil {
		return filer.Object{}, false, &filer.KeyError{Bucket: bucket, Key: p.key, Err: err}
	}
	return obj, found, nil
}

// listAhead is how many keys' .versions directories ListObjects lists at
// once. Each is its own ListEntries round trip and they do not depend on
// each other; one at a time, a walk of a versioned bucket waits a round
// trip per key while the filer is mostly idle.
const listAhead = 8

// ListObjects walks the bucket's directory tree in S3 key order (bytewise:
// a directory "d" sorts as "d/", after "d.txt"), merging each key's bare
// entry with its .versions directory. The tree walk is sequential; the
// keys' version listings run listAhead at a time, and the page keeps key
// order.
func (s *Store) ListObjects(ctx context.Context, bucket, startAfter string, limit int) ([]filer.Object, string, error) {
	if limit <= 0 {
		return nil, "", fmt.Errorf("ListObjects: limit %d, want > 0", limit)
	}
	w := &treeWalk{s: s, after: startAfter}
	w.stack = []*level{newLevel(s.bucketDir(bucket), "", startAfter, true)}
	var out []filer.Object
	for {
		// A batch of at most the keys the page still has room for, so a
		// key is never listed for a page it does not end up in.
		var batch []*objItem
		for len(batch) < limit-len(out) {
			it, err := w.next(ctx)
			if err != nil {
				return nil, "", err
			}
			if it == nil {
				break
			}
			batch = append(batch, it)
		}
		if len(batch) == 0 {
			return out, "", nil
		}
		objs, err := s.assembleAll(ctx, bucket, batch)
		if err != nil {
			return nil, "", err
		}
		out = append(out, objs...)
		if len(out) == limit {
			it, err := w.next(ctx)
			if err != nil {
				return nil, "", err
			}
			if it == nil {
				return out, "", nil
			}
			return out, out[len(out)-1].Key, nil
		}
	}
}

// assembleAll assembles items (listing their version files listAhead at a
// time) and returns the objects found, in items' order. A key the store
// cannot read exactly carries its *filer.KeyError; any other failure fails
// the batch.
func (s *Store) assembleAll(ctx context.Context, bucket string, items []*objItem) ([]filer.Object, error) {
	type result struct {
		obj   filer.Object
		found bool
		err   error
	}
	res := make([]result, len(items))
	// The first failure that is not a key's own cancels the listings
	// still running and is the batch's error.
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(listAhead)
	for i, it := range items {
		if it.parts.versions == nil {
			// Nothing to list: assembled here, without a goroutine.
			res[i].obj, res[i].found, res[i].err = s.assembleParts(ctx, bucket, it.dir, it.parts)
			continue
		}
		g.Go(func() error {
			r := &res[i]
			r.obj, r.found, r.err = s.assembleParts(ctx, bucket, it.dir, it.parts)
			if r.err != nil && filer.AsKeyError(r.err) == nil {
				return r.err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]filer.Object, 0, len(items))
	for i, r := range res {
		if ke := filer.AsKeyError(r.err); ke != nil {
			// The rest of the page is good; the key carries its error.
			out = append(out, filer.Object{Key: items[i].parts.key, Err: ke})
			continue
		}
		if r.err != nil {
			return nil, r.err
		}
		if r.found {
			out = append(out, r.obj)
		}
	}
	return out, nil
}

// treeWalk is a depth-first walk over level iterators.
type treeWalk struct {
	s     *Store
	after string
	stack []*level
}

// objItem is one key found by the walk, with the filer directory holding it.
type objItem struct {
	dir   string
	parts objectParts
}

// next returns the next key after w.after in S3 order, nil at the end.
func (w *treeWalk) next(ctx context.Context) (*objItem, error) {
	for len(w.stack) > 0 {
		lv := w.stack[len(w.stack)-1]
		it, err := lv.next(ctx, w.s)
		if err != nil {
			return nil, err
		}
		if it == nil {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		if it.subdir != nil {
			full := lv.prefix + it.subdir.Name + "/"
			if it.dirObject != nil && full > w.after {
				w.stack = append(w.stack, newLevel(lv.dir+"/"+it.subdir.Name, full, w.after, false))
				return &objItem{dir: lv.dir, parts: objectParts{key: full, bare: it.dirObject}}, nil
			}
			if full > w.after || strings.HasPrefix(w.after, full) {
				w.stack = append(w.stack, newLevel(lv.dir+"/"+it.subdir.Name, full, w.after, false))
			}
			continue
		}
		if lv.prefix+it.rel > w.after {
			it.parts.key = lv.prefix + it.rel
			return &objItem{dir: lv.dir, parts: it.parts}, nil
		}
	}
	return nil, nil
}

// level iterates one filer directory's entries in S3 key order. Filer
// order (by name) differs from key order in two ways, both resolved by
// holding entries until no later name can sort before them: a directory
// "d" holds keys "d/…", which sort after names like "d.txt"; and
// "k.versions" holds versions of key "k", which may be listed long after
// the bare "k".
type level struct {
	dir      string // filer path
	prefix   string // key prefix of entries in dir ("" or ending in "/")
	root     bool   // the bucket directory: skips .uploads
	startAt  string // first filer name to list (inclusive)
	started  bool
	last     string // last filer name received
	done     bool   // the filer listing is exhausted
	pending  map[string]*levelItem
	ordered  []*levelItem // final items, ascending
	finalIdx int
}

// levelItem is either an object (rel key and parts) or a subdirectory.
type levelItem struct {
	rel       string // key relative to prefix; for a subdir, name + "/"
	parts     objectParts
	subdir    *filer_pb.Entry
	dirObject *filer_pb.Entry // a directory-key object "name/" held by subdir
}

func newLevel(dir, prefix, after string, root bool) *level {
	lv := &level{dir: dir, prefix: prefix, root: root, pending: map[string]*levelItem{}}
	rel, ok := strings.CutPrefix(after, prefix)
	if !ok || rel == "" {
		return lv
	}
	// The first name whose items can sort after rel: rel's first path
	// component c, or a shorter prefix p of c when "p/" sorts after c.
	c, _, _ := strings.Cut(rel, "/")
	lv.startAt = c
	for i := 1; i < len(c); i++ {
		if c[i] < '/' {
			lv.startAt = c[:i]
			break
		}
	}
	return lv
}

// next returns the level's next item in key order, nil when exhausted.
func (lv *level) next(ctx context.Context, s *Store) (*levelItem, error) {
	for lv.finalIdx >= len(lv.ordered) {
		if lv.done && len(lv.pending) == 0 {
			return nil, nil
		}
		if err := lv.fill(ctx, s); err != nil {
			return nil, err
		}
	}
	it := lv.ordered[lv.finalIdx]
	lv.ordered[lv.finalIdx] = nil
	lv.finalIdx++
	return it, nil
}

// fill fetches one filer page and moves every item no later name can
// precede into ordered.
func (lv *level) fill(ctx context.Context, s *Store) error {
	if !lv.done {
		start, inclusive := lv.last, false
		if !lv.started {
			start, inclusive, lv.started = lv.startAt, lv.startAt != "", true
		}
		page, err := s.listPage(ctx, lv.dir, start, inclusive, listPageSize)
		if err != nil {
			return err
		}
		for _, e := range page {
			lv.add(e)
		}
		if len(page) > 0 {
			lv.last = page[len(page)-1].Name
		}
		lv.done = len(page) < listPageSize
	}
	var final []*levelItem
	for rel, it := range lv.pending {
		if lv.done || rel < finalBound(lv.last) {
			final = append(final, it)
			delete(lv.pending, rel)
		}
	}
	sort.Slice(final, func(i, j int) bool { return final[i].rel < final[j].rel })
	lv.ordered = append(lv.ordered[lv.finalIdx:], final...)
	lv.finalIdx = 0
	return nil
}

func (lv *level) add(e *filer_pb.Entry) {
	name := e.Name
	item := func(rel string) *levelItem {
		it := lv.pending[rel]
		if it == nil {
			it = &levelItem{rel: rel}
			lv.pending[rel] = it
		}
		return it
	}
	switch {
	case lv.root && name == uploadsDir && e.IsDirectory:
	case !e.IsDirectory:
		item(name).parts.bare = e
	case strings.HasSuffix(name, versionsSuffix) && len(name) > len(versionsSuffix):
		item(strings.TrimSuffix(name, versionsSuffix)).parts.versions = e
	default:
		if e.IsPrefixObject() {
			item(name).parts.bare = e
		}
		it := item(name + "/")
		it.subdir = e
		if e.IsDirectoryKeyObject() && !e.IsPrefixObject() {
			it.dirObject = e
		}
	}
}

// finalBound is the smallest relative key any filer name after last can
// produce: last itself, or the shortest prefix p of last whose versions
// directory "p.versions" sorts after last.
func finalBound(last string) string {
	for i := 1; i < len(last); i++ { // a name ".versions" alone is a plain directory
		if last[:i]+versionsSuffix > last {
			return last[:i]
		}
	}
	return last
}

// ListUploads lists the bucket's .uploads directory, ordered by (key,
// upload ID). The marker is "<key>\x00<upload ID>" of the last upload
// returned. Initiated is the upload directory's mtime, the time
// SeaweedFS's router ages uploads by (router.go buildObjectInfo).
func (s *Store) ListUploads(ctx context.Context, bucket, startAfter string, limit int) ([]filer.Upload, string, error) {
	if limit <= 0 {
		return nil, "", fmt.Errorf("ListUploads: limit %d, want > 0", limit)
	}
	entries, err := s.listAll(ctx, s.bucketDir(bucket)+"/"+uploadsDir)
	if err != nil {
		return nil, "", err
	}
	var ups []filer.Upload
	for _, e := range entries {
		if !e.IsDirectory {
			continue
		}
		key := string(e.Extended[extMultipartObjectKey])
		if key == "" {
			return nil, "", fmt.Errorf("%w: %s/%s/%s has no %q", ErrBadEntry, bucket, uploadsDir, e.Name, extMultipartObjectKey)
		}
		ups = append(ups, filer.Upload{Key: key, UploadID: e.Name, Initiated: unixNs(mtimeNs(e))})
	}
	sort.Slice(ups, func(i, j int) bool { return uploadMarker(ups[i]) < uploadMarker(ups[j]) })
	i := sort.Search(len(ups), func(i int) bool { return uploadMarker(ups[i]) > startAfter })
	ups = ups[i:]
	if len(ups) > limit {
		return ups[:limit], uploadMarker(ups[limit-1]), nil
	}
	return ups, "", nil
}

func uploadMarker(u filer.Upload) string { return u.Key + "\x00" + u.UploadID }
