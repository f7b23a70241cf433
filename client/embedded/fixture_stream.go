package embedded

import (
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
// name and versioning come before them, as the README's fixture format and
// scripts/genfixture write them. Otherwise they are decoded whole first,
// since every version is checked against the bucket's versioning (and
// Object Lock). In a streamed bucket, "object_lock": true after its
// objects is refused: they were checked without it.
func loadStream(ctx context.Context, db *bolt.DB, dir string, r io.Reader, batched bool, hook func(LoadPoint) error) (FixtureSummary, error) {
	w := &streamWriter{db: db, batched: batched}
	// Deferred, so a panicking hook releases the transaction (and with it
	// bbolt's writer lock) as a crash would, and stops the sort.
	defer w.rollback()
	events := newSorter(ctx, dir, sortChunk)
	defer events.close()
	fs := &fixtureStream{ctx: ctx, dec: json.NewDecoder(r), w: w, hook: hook, names: map[string]bool{}, dir: dir, events: events}
	fs.dec.DisallowUnknownFields()
	err := fs.run()
	if err == nil {
		err = fs.writeMetaLog()
	}
	if err == nil {
		err = w.commit()
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
	if err := fs.delim('{'); err != nil {
		return err
	}
	for fs.dec.More() {
		key, err := fs.key()
		if err != nil {
			return err
		}
		if key != "buckets" {
			return fmt.Errorf("json: unknown field %q", key)
		}
		isNull, err := fs.arrayOrNull()
		if err != nil || isNull {
			if err != nil {
				return err
			}
			continue
		}
		for i := 0; fs.dec.More(); i++ {
			if err := fs.bucket(i); err != nil {
				return err
			}
		}
		if err := fs.delim(']'); err != nil {
			return err
		}
	}
	if err := fs.delim('}'); err != nil {
		return err
	}
	if _, err := fs.dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the top-level object: a fixture is one JSON object")
	}
	return nil
}

// delim reads the next token and checks it is d.
func (fs *fixtureStream) delim(d json.Delim) error {
	tok, err := fs.dec.Token()
	if err != nil {
		return noEOF(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("json: want %q, got %v", d, tok)
	}
	return nil
}

func (fs *fixtureStream) key() (string, error) {
	tok, err := fs.dec.Token()
	if err != nil {
		return "", noEOF(err)
	}
	k, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("json: want an object key, got %v", tok)
	}
	return k, nil
}

// arrayOrNull reads '[' (false) or null (true).
func (fs *fixtureStream) arrayOrNull() (isNull bool, err error) {
	tok, err := fs.dec.Token()
	if err != nil {
		return false, noEOF(err)
	}
	if tok == nil {
		return true, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return false, fmt.Errorf("json: want an array, got %v", tok)
	}
	return false, nil
}

// noEOF reports a document that ends too early as encoding/json does.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// existsErr is the refusal of a bucket the filer holds with another
// configuration.
func existsErr(name string) error {
	return hint.With(fmt.Errorf("bucket %q: %w", name, ErrBucketExists),
		"to add objects to it, repeat its versioning, object_lock and lifecycle_xml exactly; else load into a fresh --filer directory")
}

// bucketStream is one bucket on its way in.
type bucketStream struct {
	fb       FixtureBucket
	seen     map[string]bool // fields seen so far
	started  bool            // its object and upload indexes exist
	idx      uint32          // its number in fixtureStream.buckets
	streamed bool            // objects or uploads were written as decoded
	objects  int             // objects written, for error positions
	uploads  int
	// existing is the filer's record of the bucket when it held it
	// before this load: the fixture adds objects and uploads to it.
	existing *bucketRecord
}

func (fs *fixtureStream) bucket(i int) error {
	tok, err := fs.dec.Token()
	if err != nil {
		return noEOF(err)
	}
	b := &bucketStream{seen: map[string]bool{}}
	if tok == nil { // a null bucket decodes as an empty one
		return fs.finishBucket(i, b)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("json: buckets[%d]: want an object, got %v", i, tok)
	}
	for fs.dec.More() {
		key, err := fs.key()
		if err != nil {
			return err
		}
		if err := fs.ctx.Err(); err != nil {
			return err
		}
		switch key {
		case "name":
			err = fs.dec.Decode(&b.fb.Name)
		case "versioning":
			err = fs.dec.Decode(&b.fb.Versioning)
		case "object_lock":
			err = fs.dec.Decode(&b.fb.ObjectLock)
			if err == nil && b.streamed && b.fb.ObjectLock {
				return fmt.Errorf("bucket %q: \"object_lock\": true comes after objects or uploads that were checked without it: put it before them", b.fb.Name)
			}
		case "lifecycle_xml":
			err = fs.dec.Decode(&b.fb.LifecycleXML)
		case "objects", "uploads":
			err = fs.items(i, b, key)
		default:
			return fmt.Errorf("json: unknown field %q", key)
		}
		if err != nil {
			return err
		}
		b.seen[key] = true
	}
	if err := fs.delim('}'); err != nil {
		return err
	}
	return fs.finishBucket(i, b)
}

// items reads a bucket's objects or uploads: written one at a time when
// the bucket's name and versioning are known, else decoded whole and
// written when the bucket ends.
func (fs *fixtureStream) items(i int, b *bucketStream, field string) error {
	if !b.seen["name"] || !b.seen["versioning"] {
		if field == "objects" {
			var objs []FixtureObject
			if err := fs.dec.Decode(&objs); err != nil {
				return err
			}
			b.fb.Objects = append(b.fb.Objects, objs...)
			return nil
		}
		var ups []FixtureUpload
		if err := fs.dec.Decode(&ups); err != nil {
			return err
		}
		b.fb.Uploads = append(b.fb.Uploads, ups...)
		return nil
	}
	if err := fs.startBucket(i, b); err != nil {
		return err
	}
	b.streamed = true
	isNull, err := fs.arrayOrNull()
	if err != nil || isNull {
		return err
	}
	for fs.dec.More() {
		if err := fs.ctx.Err(); err != nil {
			return err
		}
		if field == "objects" {
			var fo FixtureObject
			if err := fs.dec.Decode(&fo); err != nil {
				return err
			}
			if err := fs.writeObject(b, fo); err != nil {
				return fmt.Errorf("bucket %q: %w", b.fb.Name, err)
			}
			continue
		}
		var u FixtureUpload
		if err := fs.dec.Decode(&u); err != nil {
			return err
		}
		if err := fs.writeUpload(b, u); err != nil {
			return fmt.Errorf("bucket %q: %w", b.fb.Name, err)
		}
	}
	return fs.delim(']')
}

// startBucket checks the bucket's name and versioning and creates its
// object and upload indexes, once.
func (fs *fixtureStream) startBucket(i int, b *bucketStream) error {
	if b.started {
		return nil
	}
	fb := &b.fb
	if fb.Name == "" {
		return fmt.Errorf("buckets[%d]: name is required", i)
	}
	if fs.names[fb.Name] {
		return fmt.Errorf("bucket %q: listed twice", fb.Name)
	}
	fs.names[fb.Name] = true
	b.idx = uint32(len(fs.buckets))
	fs.buckets = append(fs.buckets, fb.Name)
	if _, err := bucketVersioning(fb.Versioning); err != nil {
		return fmt.Errorf("bucket %q: %w", fb.Name, err)
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
			return existsErr(fb.Name)
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
	for _, fo := range fb.Objects {
		if err := fs.writeObject(b, fo); err != nil {
			return fmt.Errorf("bucket %q: %w", fb.Name, err)
		}
	}
	for _, u := range fb.Uploads {
		if err := fs.writeUpload(b, u); err != nil {
			return fmt.Errorf("bucket %q: %w", fb.Name, err)
		}
	}
	vs, _ := bucketVersioning(fb.Versioning)
	rec := bucketRecord{Versioning: vs, ObjectLock: fb.ObjectLock, LifecycleXML: fb.LifecycleXML}
	if b.existing != nil && *b.existing != rec {
		return existsErr(fb.Name)
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
func (fs *fixtureStream) writeObject(b *bucketStream, fo FixtureObject) error {
	pos := b.objects
	b.objects++
	if fo.Key == "" {
		return fmt.Errorf("objects[%d]: key is required", pos)
	}
	rec, err := planVersions(b.fb, fo)
	if err != nil {
		return fmt.Errorf("object %q: %w", fo.Key, err)
	}
	tx, err := fs.w.txn()
	if err != nil {
		return err
	}
	objs := fs.fill(objectsOf(tx, b.fb.Name))
	if objs.Get([]byte(fo.Key)) != nil {
		if b.existing != nil {
			return fmt.Errorf("object %q: listed twice, or already in the filer", fo.Key)
		}
		return fmt.Errorf("object %q: listed twice", fo.Key)
	}
	// Oldest first: each version's put, then its predecessor's demotion
	// at the same instant. The put comes first in fixture order, so the
	// sweep (writeMetaLog) gives the demotion its put's TsNs + 1: the
	// instant + 1 unless other events came at that instant too, in which
	// case the sweep patches the noncurrent-since set here.
	vs := rec.Versions
	for i := len(vs) - 1; i >= 0; i-- {
		if err := fs.event(sortEvent{AtNs: vs[i].MtimeNs, Code: codePut, Bucket: b.idx, Key: fo.Key, Version: vs[i].VersionID}); err != nil {
			return err
		}
		if i+1 < len(vs) {
			if err := fs.event(sortEvent{AtNs: vs[i].MtimeNs, Code: codeDemote, Bucket: b.idx, Key: fo.Key, Version: vs[i+1].VersionID}); err != nil {
				return err
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

func (fs *fixtureStream) writeUpload(b *bucketStream, u FixtureUpload) error {
	pos := b.uploads
	b.uploads++
	switch {
	case u.Key == "":
		return fmt.Errorf("uploads[%d]: key is required", pos)
	case u.UploadID == "":
		return fmt.Errorf("upload of %q: upload_id is required", u.Key)
	case u.Initiated.IsZero():
		return fmt.Errorf("upload %q of %q: initiated is required (RFC3339)", u.UploadID, u.Key)
	}
	if err := filer.CheckTime("initiated", u.Initiated); err != nil {
		return fmt.Errorf("upload %q of %q: %w", u.UploadID, u.Key, err)
	}
	tx, err := fs.w.txn()
	if err != nil {
		return err
	}
	ups := fs.fill(uploadsOf(tx, b.fb.Name))
	k := uploadKey(u.Key, u.UploadID)
	if ups.Get(k) != nil {
		return fmt.Errorf("upload %q of %q: listed twice", u.UploadID, u.Key)
	}
	raw, err := encode(uploadRecord{InitiatedNs: u.Initiated.UnixNano()})
	if err != nil {
		return err
	}
	if err := ups.Put(k, raw); err != nil {
		return err
	}
	if err := fs.event(sortEvent{AtNs: u.Initiated.UnixNano(), Code: codeMPUInit, Bucket: b.idx, Key: u.Key, UploadID: u.UploadID}); err != nil {
		return err
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
