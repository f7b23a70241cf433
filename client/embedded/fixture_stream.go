package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// streamBatch is how many records a batched load (a new filer, see
// loadStream) writes per transaction: bbolt holds a transaction's pages
// in memory until its commit.
const streamBatch = 2000

// loadStream decodes the fixture in r token by token and writes it into
// db as it goes, so neither the decoded fixture nor the database's
// changes are held whole. batched commits every streamBatch records, for
// a database nothing reads yet (Load's temporary one, renamed into place
// only when complete); otherwise everything is one transaction, all or
// nothing. hook (LoadOptions.Hook) runs after each bucket is written.
//
// It writes in three sweeps, each in the order of the keys it writes, so
// a batch dirties few pages (see fixture_events.go):
//
//  1. buckets, object records and uploads, in fixture order; each
//     demoted version's NoncurrentSinceNs is set to its demotion's
//     instant + 1ns (where the demotion lands, 1ns after its successor's
//     put, unless other events share the instant), and every event goes
//     into an external sort (temporary file in dir) on (instant, fixture
//     order);
//  2. the meta-log, in TsNs order: each sorted event at its instant or
//     1ns after the previous event, whichever is later, skipping TsNs the
//     filer already holds; the demotions that did not land on instant +
//     1ns go into a second sort, on (bucket, key);
//  3. those versions' NoncurrentSinceNs set to their demotion's TsNs.
//
// A bucket's objects and uploads are written as they are decoded when its
// name and versioning come before them, as docs/embedded-filer.md#fixture-format and
// scripts/genfixture write them. Otherwise they are held until the bucket
// ends, since every version is checked against the bucket's versioning
// (and Object Lock). Object Lock only allows more (retention), so
// "object_lock": true after streamed objects is accepted; a streamed
// version with retention before it is refused, saying where the field
// must go. Every fault in the document is a *FixtureError: bucket, key,
// version and byte offset.
func loadStream(ctx context.Context, db *bolt.DB, dir string, r io.Reader, batched bool, hook func(LoadPoint) error) (FixtureSummary, error) {
	w := &streamWriter{db: db, batched: batched}
	// Deferred, so a panicking hook releases the transaction (and with it
	// bbolt's writer lock) as a crash would, and stops the sort.
	defer w.rollback()
	events := newSorter(ctx, dir, sortChunk)
	defer events.close()
	rec := &recorder{r: r}
	fs := &fixtureStream{ctx: ctx, dec: json.NewDecoder(rec), rec: rec, w: w, hook: hook, names: map[string]bool{}, dir: dir, events: events}
	err := fs.run()
	if err == nil {
		err = fs.writeMetaLog()
	}
	if err == nil {
		err = w.commit()
	}
	var fe *FixtureError
	if errors.As(err, &fe) {
		return FixtureSummary{}, err
	}
	if err != nil {
		return FixtureSummary{}, fmt.Errorf("fixture: %w", err)
	}
	return fs.sum, nil
}

// streamWriter hands out the open write transaction, committing and
// beginning a new one every streamBatch records when batched.
type streamWriter struct {
	db      *bolt.DB
	batched bool
	tx      *bolt.Tx
	n       int
}

// txn returns the transaction to write one record in. Handles to nested
// buckets do not survive a commit: callers look them up again after each
// call.
func (w *streamWriter) txn() (*bolt.Tx, error) {
	if w.tx != nil && w.batched && w.n >= streamBatch {
		if err := w.commit(); err != nil {
			return nil, err
		}
	}
	if w.tx == nil {
		tx, err := w.db.Begin(true)
		if err != nil {
			return nil, err
		}
		w.tx, w.n = tx, 0
	}
	w.n++
	return w.tx, nil
}

func (w *streamWriter) commit() error {
	if w.tx == nil {
		return nil
	}
	tx := w.tx
	w.tx = nil
	if err := tx.Commit(); err != nil {
		return err
	}
	// The sweeps append, touching few pages, but patching
	// noncurrent-since reads object records all over the file; it reads
	// each page once, so its pages are given back as it goes rather than
	// kept resident to the end. A failed release leaves them to the
	// kernel.
	if w.batched && fileResidentOver(releaseBudget) {
		_ = releaseMapped(w.db)
	}
	return nil
}

func (w *streamWriter) rollback() {
	if w.tx != nil {
		_ = w.tx.Rollback()
		w.tx = nil
	}
}

// fixtureStream walks a Fixture document.
type fixtureStream struct {
	ctx   context.Context
	dec   *json.Decoder
	rec   *recorder // what dec reads, to place syntax errors
	w     *streamWriter
	hook  func(LoadPoint) error
	names map[string]bool // bucket names seen: few
	sum   FixtureSummary
	dir   string // where the sorts keep their temporary file
	// events sorts the meta-log events on (instant, fixture order); seq
	// numbers them in fixture order.
	events *sorter
	seq    uint64
	// buckets are the names of the buckets written, indexed by the
	// sort records' bucket numbers.
	buckets []string
}

func (fs *fixtureStream) run() error {
	top := where{}
	if err := fs.delim('{'); err != nil {
		return top.fail(-1, err)
	}
	for fs.dec.More() {
		off := fs.next()
		key, err := fs.key()
		if err != nil {
			return top.fail(-1, err)
		}
		if key != "buckets" {
			return top.fail(off, fmt.Errorf("unknown field %q: a fixture is {\"buckets\":[...]}", key))
		}
		isNull, err := fs.arrayOrNull()
		if err != nil || isNull {
			if err != nil {
				return top.fail(-1, err)
			}
			continue
		}
		for i := 0; fs.dec.More(); i++ {
			if err := fs.bucket(i); err != nil {
				return err
			}
		}
		if err := fs.delim(']'); err != nil {
			return top.fail(-1, err)
		}
	}
	if err := fs.delim('}'); err != nil {
		return top.fail(-1, err)
	}
	off := fs.next()
	if _, err := fs.dec.Token(); !errors.Is(err, io.EOF) {
		return top.fail(off, errors.New("trailing data after the top-level object: a fixture is one JSON object"))
	}
	return nil
}

// next is the document offset of the next token: past the separator and
// spaces after the decoder's position.
func (fs *fixtureStream) next() int64 {
	off := fs.dec.InputOffset()
	b := fs.rec.from(off)
	i := 0
	for i < len(b) && (b[i] == ',' || b[i] == ':' || isSpace(b[i])) {
		i++
	}
	return off + int64(i)
}

// tokenErr places an error of dec.Token: a document cut short at its
// end, anything else where the decoder stands, past a separator (go1.27's
// Decoder leaves InputOffset before the comma More looked past, go1.26's
// after it).
func (fs *fixtureStream) tokenErr(err error) error {
	if fs.cutShort(err) {
		return at(fs.rec.total, errCutShort)
	}
	return at(fs.next(), err)
}

// cutShort reports whether err is the decoder meeting the document's end
// inside a value: io.EOF or io.ErrUnexpectedEOF, or (go1.27's Token after
// More) a syntax error at the end of a document read whole, with nothing
// but separators and spaces after the decoder's position.
func (fs *fixtureStream) cutShort(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var se *json.SyntaxError
	return errors.As(err, &se) && fs.rec.eof && se.Offset >= fs.rec.total && fs.next() >= fs.rec.total
}

// errCutShort is a document that ends inside a value.
var errCutShort = errors.New("unexpected EOF: the document is cut short")

// delim reads the next token and checks it is d.
func (fs *fixtureStream) delim(d json.Delim) error {
	off := fs.dec.InputOffset()
	tok, err := fs.dec.Token()
	if err != nil {
		return fs.tokenErr(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return at(off, fmt.Errorf("want %q, got %v", d, tok))
	}
	return nil
}

func (fs *fixtureStream) key() (string, error) {
	off := fs.dec.InputOffset()
	tok, err := fs.dec.Token()
	if err != nil {
		return "", fs.tokenErr(err)
	}
	k, ok := tok.(string)
	if !ok {
		return "", at(off, fmt.Errorf("want an object key, got %v", tok))
	}
	return k, nil
}

// arrayOrNull reads '[' (false) or null (true).
func (fs *fixtureStream) arrayOrNull() (isNull bool, err error) {
	off := fs.dec.InputOffset()
	tok, err := fs.dec.Token()
	if err != nil {
		return false, fs.tokenErr(err)
	}
	if tok == nil {
		return true, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return false, at(off, fmt.Errorf("want an array, got %v", tok))
	}
	return false, nil
}

// raw reads the next value whole: its bytes and its document offset. A
// syntax error is placed at its character, a document cut short at its
// end.
func (fs *fixtureStream) raw() (json.RawMessage, int64, error) {
	before := fs.dec.InputOffset()
	fs.rec.keepFrom(before)
	var raw json.RawMessage
	if err := fs.dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, before, at(fs.rec.total, errCutShort)
		case errors.As(err, &se):
			return nil, before, at(fs.rec.syntaxOffset(before), fmt.Errorf("bad JSON: %s", se))
		}
		return nil, before, at(before, err)
	}
	return raw, fs.dec.InputOffset() - int64(len(raw)), nil
}

// existsErr is the refusal of a bucket the filer holds with another
// configuration.
func existsErr() error {
	return hint.With(fmt.Errorf("%w in the filer with another versioning, object_lock or lifecycle_xml", ErrBucketExists),
		"to add objects to it, repeat its versioning, object_lock and lifecycle_xml exactly; else load into a fresh --filer directory")
}

// bucketStream is one bucket on its way in.
type bucketStream struct {
	fb       FixtureBucket    // its fields; Objects and Uploads stay empty
	seen     map[string]bool  // fields seen so far
	at       map[string]int64 // document offsets of the values of name and the other scalar fields
	off      int64            // document offset of the bucket
	started  bool             // its object and upload indexes exist
	idx      uint32           // its number in fixtureStream.buckets
	streamed bool             // objects or uploads were written as decoded
	objects  int              // objects read, for error positions
	uploads  int
	// held are the objects and uploads read before the bucket's name
	// and versioning, written when it ends.
	heldObjects []heldObject
	heldUploads []heldUpload
	// existing is the filer's record of the bucket when it held it
	// before this load: the fixture adds objects and uploads to it.
	existing *bucketRecord
}

// heldObject is an object read, with what places its errors.
type heldObject struct {
	fo  FixtureObject
	raw json.RawMessage // the object as the document has it
	off int64           // its document offset
	pos int             // its index in the bucket's objects
}

type heldUpload struct {
	u   FixtureUpload
	off int64
	pos int
}

// offsetOf is the document offset of field's value, else of the bucket.
func (b *bucketStream) offsetOf(field string) int64 {
	if off, ok := b.at[field]; ok {
		return off
	}
	return b.off
}

// where is the bucket's place, by name once it is known.
func (b *bucketStream) where(i int) where {
	if b.fb.Name != "" {
		return where{bucket: "bucket " + b.fb.Name}
	}
	return where{bucket: fmt.Sprintf("buckets[%d]", i)}
}

func (fs *fixtureStream) bucket(i int) error {
	b := &bucketStream{seen: map[string]bool{}, at: map[string]int64{}, off: fs.next()}
	tok, err := fs.dec.Token()
	if err != nil {
		return b.where(i).fail(-1, fs.tokenErr(err))
	}
	if tok == nil { // a null bucket decodes as an empty one
		return fs.finishBucket(i, b)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return b.where(i).fail(b.off, fmt.Errorf("want an object, got %v", tok))
	}
	b.off = fs.dec.InputOffset() - 1
	for fs.dec.More() {
		keyOff := fs.next()
		key, err := fs.key()
		if err != nil {
			return b.where(i).fail(-1, err)
		}
		if err := fs.ctx.Err(); err != nil {
			return err
		}
		var field any
		switch key {
		case "name":
			field = &b.fb.Name
		case "versioning":
			field = &b.fb.Versioning
		case "object_lock":
			field = &b.fb.ObjectLock
		case "lifecycle_xml":
			field = &b.fb.LifecycleXML
		case "objects", "uploads":
			if err := fs.items(i, b, key); err != nil {
				return err
			}
		default:
			return b.where(i).fail(keyOff, fmt.Errorf("unknown field %q: want %s", key, fieldNames(&FixtureBucket{})))
		}
		if field != nil {
			raw, off, err := fs.raw()
			if err == nil {
				err = decodeStrict(raw, off, key, field)
			}
			if err != nil {
				return b.where(i).fail(off, err)
			}
			b.at[key] = off
		}
		b.seen[key] = true
	}
	if err := fs.delim('}'); err != nil {
		return b.where(i).fail(-1, err)
	}
	return fs.finishBucket(i, b)
}

// items reads a bucket's objects or uploads: written one at a time when
// the bucket's name and versioning are known, else held and written when
// the bucket ends.
func (fs *fixtureStream) items(i int, b *bucketStream, field string) error {
	stream := b.seen["name"] && b.seen["versioning"]
	if stream {
		if err := fs.startBucket(i, b); err != nil {
			return err
		}
		b.streamed = true
	}
	isNull, err := fs.arrayOrNull()
	if err != nil || isNull {
		if err != nil {
			return b.where(i).fail(-1, err)
		}
		return nil
	}
	for fs.dec.More() {
		if err := fs.ctx.Err(); err != nil {
			return err
		}
		raw, off, err := fs.raw()
		if field == "objects" {
			pos := b.objects
			b.objects++
			if err != nil {
				w := b.where(i)
				w.object = objectLabel(pos, stringField(fs.rec.from(off), "key"))
				return w.fail(off, err)
			}
			h, err := decodeObject(b.where(i), raw, off, pos)
			if err != nil {
				return err
			}
			if !stream {
				b.heldObjects = append(b.heldObjects, h)
				continue
			}
			if err := fs.writeObject(i, b, h); err != nil {
				return err
			}
			continue
		}
		pos := b.uploads
		b.uploads++
		if err != nil {
			w := b.where(i)
			w.upload = uploadLabel(pos, stringField(fs.rec.from(off), "upload_id"), stringField(fs.rec.from(off), "key"))
			return w.fail(off, err)
		}
		h := heldUpload{off: off, pos: pos}
		if err := decodeStrict(raw, off, "uploads[]", &h.u); err != nil {
			w := b.where(i)
			w.upload = uploadLabel(pos, stringField(raw, "upload_id"), stringField(raw, "key"))
			return w.fail(off, err)
		}
		if !stream {
			b.heldUploads = append(b.heldUploads, h)
			continue
		}
		if err := fs.writeUpload(i, b, h); err != nil {
			return err
		}
	}
	if err := fs.delim(']'); err != nil {
		return b.where(i).fail(-1, err)
	}
	return nil
}

// objectLabel names an object for an error, as FixtureError.Object.
func objectLabel(pos int, key string) string {
	if key != "" {
		return "key " + key
	}
	return fmt.Sprintf("objects[%d]", pos)
}

// uploadLabel names an upload for an error, as FixtureError.Upload.
func uploadLabel(pos int, id, key string) string {
	switch {
	case id != "" && key != "":
		return "upload " + id + " of key " + key
	case key != "":
		return fmt.Sprintf("uploads[%d] of key %s", pos, key)
	}
	return fmt.Sprintf("uploads[%d]", pos)
}

// decodeObject decodes one object of bucket w, the pos'th, at document
// offset off. A fault in a version names it and points into it.
func decodeObject(w where, raw json.RawMessage, off int64, pos int) (heldObject, error) {
	h := heldObject{raw: raw, off: off, pos: pos}
	err := decodeStrict(raw, off, "objects[]", &h.fo)
	if err == nil {
		return h, nil
	}
	w.object = objectLabel(pos, stringField(raw, "key"))
	// Find the version at fault: decode each alone.
	eachField(raw, func(k string, _, valOff int64, val json.RawMessage) bool {
		if k != "versions" || len(val) == 0 || val[0] != '[' {
			return true
		}
		voff := off + valOff
		i := 0
		eachElem(val, func(elOff int64, el json.RawMessage) bool {
			var fv FixtureVersion
			if verr := decodeStrict(el, voff+elOff, "versions[]", &fv); verr != nil {
				var id FixtureVersionID
				if s := stringField(el, "version_id"); s != "" {
					id = FixtureVersionID{Set: true, ID: s}
				}
				w.version, err = versionLabel(i, id), verr
				return false
			}
			i++
			return true
		})
		return false
	})
	return h, w.fail(off, err)
}

// versionOffset is the offset in the object raw of its i'th version, 0
// when it has none.
func versionOffset(raw []byte, i int) int64 {
	var off int64
	eachField(raw, func(k string, _, valOff int64, val json.RawMessage) bool {
		if k != "versions" {
			return true
		}
		n := 0
		eachElem(val, func(elOff int64, _ json.RawMessage) bool {
			if n == i {
				off = valOff + elOff
				return false
			}
			n++
			return true
		})
		return false
	})
	return off
}

// eachElem calls fn with the offset in arr and the bytes of each element
// of the JSON array arr, until fn returns false.
func eachElem(arr []byte, fn func(off int64, el json.RawMessage) bool) {
	d := json.NewDecoder(bytes.NewReader(arr))
	if _, err := d.Token(); err != nil {
		return
	}
	for d.More() {
		var el json.RawMessage
		if err := d.Decode(&el); err != nil || !fn(d.InputOffset()-int64(len(el)), el) {
			return
		}
	}
}

// startBucket checks the bucket's name and versioning and creates its
// object and upload indexes, once.
func (fs *fixtureStream) startBucket(i int, b *bucketStream) error {
	if b.started {
		return nil
	}
	fb := &b.fb
	w := b.where(i)
	if fb.Name == "" {
		return w.fail(b.off, errors.New("name is required"))
	}
	if fs.names[fb.Name] {
		return w.fail(b.offsetOf("name"), errors.New("listed twice"))
	}
	fs.names[fb.Name] = true
	b.idx = uint32(len(fs.buckets))
	fs.buckets = append(fs.buckets, fb.Name)
	if _, err := bucketVersioning(fb.Versioning); err != nil {
		return w.fail(b.offsetOf("versioning"), err)
	}
	tx, err := fs.w.txn()
	if err != nil {
		return err
	}
	if rec, exists, err := getBucket(tx, fb.Name); err != nil {
		return err
	} else if exists {
		// Adding to a bucket the filer holds is allowed only when the
		// fixture repeats its configuration; lifecycle_xml and
		// object_lock may come later in the stream and are compared
		// when the bucket ends (finishBucket).
		if vs, _ := bucketVersioning(fb.Versioning); vs != rec.Versioning {
			return w.fail(b.off, existsErr())
		}
		b.existing = &rec
		b.started = true
		return nil
	}
	if _, err := tx.Bucket(bktObjects).CreateBucket([]byte(fb.Name)); err != nil {
		return fmt.Errorf("bucket %q: object index: %w", fb.Name, err)
	}
	if _, err := tx.Bucket(bktUploads).CreateBucket([]byte(fb.Name)); err != nil {
		return fmt.Errorf("bucket %q: upload index: %w", fb.Name, err)
	}
	b.started = true
	return nil
}

func bucketVersioning(v string) (filer.Versioning, error) {
	switch v {
	case "", "Off":
		return filer.VersioningOff, nil
	case "Enabled":
		return filer.VersioningEnabled, nil
	case "Suspended":
		return filer.VersioningSuspended, nil
	}
	return "", fmt.Errorf("versioning %q: use \"Enabled\", \"Suspended\" or \"Off\"", v)
}

// finishBucket writes what was held back and the bucket record.
func (fs *fixtureStream) finishBucket(i int, b *bucketStream) error {
	if err := fs.startBucket(i, b); err != nil {
		return err
	}
	fb := &b.fb
	for _, h := range b.heldObjects {
		if err := fs.writeObject(i, b, h); err != nil {
			return err
		}
	}
	for _, h := range b.heldUploads {
		if err := fs.writeUpload(i, b, h); err != nil {
			return err
		}
	}
	b.heldObjects, b.heldUploads = nil, nil
	vs, _ := bucketVersioning(fb.Versioning)
	rec := bucketRecord{Versioning: vs, ObjectLock: fb.ObjectLock, LifecycleXML: fb.LifecycleXML}
	if b.existing != nil && *b.existing != rec {
		return b.where(i).fail(b.off, existsErr())
	}
	raw, err := encode(rec)
	if err != nil {
		return err
	}
	tx, err := fs.w.txn()
	if err != nil {
		return err
	}
	if err := tx.Bucket(bktBuckets).Put([]byte(fb.Name), raw); err != nil {
		return err
	}
	if err := lifecycleVerdict(fb.LifecycleXML); err != nil {
		fs.sum.Rejected = append(fs.sum.Rejected, RejectedLifecycle{Bucket: fb.Name, Err: err})
	}
	fs.sum.Buckets++
	if fs.hook != nil {
		return fs.hook(LoadPoint{Buckets: fs.sum.Buckets})
	}
	return nil
}

// writeObject validates one key and writes it with its meta-log history.
func (fs *fixtureStream) writeObject(i int, b *bucketStream, h heldObject) error {
	fo := h.fo
	w := b.where(i)
	w.object = objectLabel(h.pos, fo.Key)
	if fo.Key == "" {
		return w.fail(h.off, errors.New("key is required"))
	}
	rec, err := planVersions(b.fb, fo)
	if err != nil {
		off := h.off
		var ve *versionErr
		if errors.As(err, &ve) {
			w.version, err = ve.label, ve.err
			off = h.off + versionOffset(h.raw, ve.i)
		}
		if errors.Is(err, errNeedObjectLock) && b.streamed && !b.seen["object_lock"] {
			err = fmt.Errorf("%w, before its \"objects\": the loader writes a bucket's objects as it reads them, once it has the bucket's name and versioning", err)
		}
		return w.fail(off, err)
	}
	tx, err := fs.w.txn()
	if err != nil {
		return err
	}
	objs := fs.fill(objectsOf(tx, b.fb.Name))
	if objs.Get([]byte(fo.Key)) != nil {
		if b.existing != nil {
			return hint.With(w.fail(h.off, errors.New("listed twice, or already in the filer")),
				"to start over, use a new --filer directory or remove this one")
		}
		return w.fail(h.off, errors.New("listed twice"))
	}
	// Oldest first: each version's put, then its predecessor's demotion
	// at the same instant. The put comes first in fixture order, so the
	// sweep (writeMetaLog) gives the demotion its put's TsNs + 1: the
	// instant + 1 unless other events came at that instant too, in which
	// case the sweep patches the noncurrent-since set here.
	vs := rec.Versions
	for i := len(vs) - 1; i >= 0; i-- {
		if err := fs.event(sortEvent{AtNs: vs[i].MtimeNs, Code: codePut, Bucket: b.idx, Key: fo.Key, Version: vs[i].VersionID}); err != nil {
			return w.fail(h.off, err)
		}
		if i+1 < len(vs) {
			if err := fs.event(sortEvent{AtNs: vs[i].MtimeNs, Code: codeDemote, Bucket: b.idx, Key: fo.Key, Version: vs[i+1].VersionID}); err != nil {
				return w.fail(h.off, err)
			}
			vs[i+1].NoncurrentSinceNs = vs[i].MtimeNs + 1
		}
	}
	raw, err := encode(rec)
	if err != nil {
		return err
	}
	if err := objs.Put([]byte(fo.Key), raw); err != nil {
		return err
	}
	fs.sum.Objects++
	fs.sum.Versions += len(vs)
	return nil
}

func (fs *fixtureStream) writeUpload(i int, b *bucketStream, h heldUpload) error {
	u := h.u
	w := b.where(i)
	w.upload = uploadLabel(h.pos, u.UploadID, u.Key)
	switch {
	case u.Key == "":
		return w.fail(h.off, errors.New("key is required"))
	case u.UploadID == "":
		return w.fail(h.off, errors.New("upload_id is required"))
	case u.Initiated.IsZero():
		return w.fail(h.off, errors.New("initiated is required (RFC3339)"))
	}
	if err := filer.CheckTime("initiated", u.Initiated); err != nil {
		return w.fail(h.off, err)
	}
	tx, err := fs.w.txn()
	if err != nil {
		return err
	}
	ups := fs.fill(uploadsOf(tx, b.fb.Name))
	k := uploadKey(u.Key, u.UploadID)
	if ups.Get(k) != nil {
		return w.fail(h.off, errors.New("listed twice"))
	}
	raw, err := encode(uploadRecord{InitiatedNs: u.Initiated.UnixNano()})
	if err != nil {
		return err
	}
	if err := ups.Put(k, raw); err != nil {
		return err
	}
	if err := fs.event(sortEvent{AtNs: u.Initiated.UnixNano(), Code: codeMPUInit, Bucket: b.idx, Key: u.Key, UploadID: u.UploadID}); err != nil {
		return w.fail(h.off, err)
	}
	fs.sum.Uploads++
	return nil
}

// fill packs b's pages full when the load builds a new filer: its
// records arrive in key order (genfixture's objects, and the meta-log
// sweep always), so bbolt's default of half-full pages would only make
// the file twice as large.
func (fs *fixtureStream) fill(b *bolt.Bucket) *bolt.Bucket {
	if fs.w.batched {
		b.FillPercent = 1.0
	}
	return b
}

// event queues e for the meta-log sweep.
func (fs *fixtureStream) event(e sortEvent) error {
	if e.AtNs < 0 {
		typ, _ := eventType(e.Code)
		return fmt.Errorf("event %s %s/%s at %d: times before 1970 are not supported", typ, fs.buckets[e.Bucket], e.Key, e.AtNs)
	}
	e.Seq = fs.seq
	fs.seq++
	fs.sum.Events++
	return fs.events.add(fs.ctx, encodeEvent(e))
}

func eventType(code byte) (filer.EventType, error) {
	switch code {
	case codePut:
		return filer.EventPut, nil
	case codeDemote:
		return filer.EventDemote, nil
	case codeMPUInit:
		return filer.EventMPUInit, nil
	}
	return "", errBadRecord
}

// writeMetaLog writes the sorted events into the meta-log, in TsNs order:
// each at its instant or 1ns after the previous one, whichever is later,
// and past any TsNs the filer already holds. Then it sets the
// NoncurrentSinceNs of each version whose demotion did not land on its
// instant + 1ns (what writeObject wrote) to that demotion's TsNs.
func (fs *fixtureStream) writeMetaLog() error {
	patches := newSorter(fs.ctx, fs.dir, sortChunk/4)
	defer patches.close()
	held := int64(-1) // the filer's last TsNs before this load
	first := true
	last := int64(-1) // the TsNs of the previous event written
	err := fs.events.each(fs.ctx, func(rec string) error {
		e, err := decodeEvent(rec)
		if err != nil {
			return err
		}
		typ, err := eventType(e.Code)
		if err != nil || int(e.Bucket) >= len(fs.buckets) {
			return errBadRecord
		}
		tx, err := fs.w.txn()
		if err != nil {
			return err
		}
		log := fs.fill(tx.Bucket(bktMetalog))
		if first {
			if k, _ := log.Cursor().Last(); k != nil {
				held = tsFromKey(k)
			}
			first = false
		}
		ts := max(e.AtNs, last+1)
		for ts <= held && log.Get(tsKey(ts)) != nil {
			ts++
		}
		last = ts
		ev := filer.Event{TsNs: ts, Type: typ, Bucket: fs.buckets[e.Bucket], Key: e.Key, VersionID: e.Version, UploadID: e.UploadID}
		if err := putEvent(tx, ev); err != nil {
			return err
		}
		if e.Code == codeDemote && ts != e.AtNs+1 {
			return patches.add(fs.ctx, encodePatch(demotePatch{Bucket: e.Bucket, Key: e.Key, Version: e.Version, TsNs: ts}))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return patches.each(fs.ctx, fs.patchDemote)
}

// patchDemote sets one demoted version's NoncurrentSinceNs to its
// demotion's TsNs.
func (fs *fixtureStream) patchDemote(rec string) error {
	p, err := decodePatch(rec)
	if err != nil {
		return err
	}
	if int(p.Bucket) >= len(fs.buckets) {
		return errBadRecord
	}
	name := fs.buckets[p.Bucket]
	tx, err := fs.w.txn()
	if err != nil {
		return err
	}
	objs := fs.fill(objectsOf(tx, name))
	raw := objs.Get([]byte(p.Key))
	if raw == nil {
		return fmt.Errorf("object %s/%s: written by this load but missing when its demotion was timed", name, p.Key)
	}
	var obj objectRecord
	if err := decode("object "+name+"/"+p.Key, raw, &obj); err != nil {
		return err
	}
	found := false
	for i := range obj.Versions {
		if obj.Versions[i].VersionID == p.Version {
			obj.Versions[i].NoncurrentSinceNs = p.TsNs
			found = true
			break
		}
	}
	if !found {
		return fmt.Errorf("object %s/%s: version %s written by this load but missing when its demotion was timed", name, p.Key, p.Version)
	}
	if raw, err = encode(obj); err != nil {
		return err
	}
	return objs.Put([]byte(p.Key), raw)
}
