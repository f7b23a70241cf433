package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// ErrDamaged matches a DamagedError with errors.Is.
var ErrDamaged = errors.New("filer.db is damaged")

// DamagedError reports a filer.db that Open refused before bbolt mapped
// it: bbolt reads the database through a memory map, and a file shorter
// than its own meta pages claim faults (SIGBUS) or panics on the first read
// instead of returning an error. The file is left as it was.
type DamagedError struct {
	Dir, Path string
	// Reason says which on-disk invariant failed, e.g. "is 36864 bytes, but
	// its latest transaction uses 57344".
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("filer.db is damaged: %s %s: ilmctl left it untouched", e.Path, e.Reason)
}

// Hint is the advice main prints after the message (internal/hint).
func (e *DamagedError) Hint() string {
	return fmt.Sprintf("restore it from a backup, or move it aside and run 'ilmctl filer load FIXTURE.json --filer %s'", e.Dir)
}

// Is lets errors.Is(err, ErrDamaged) match.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// bbolt's on-disk format, go.etcd.io/bbolt v1.5.0 internal/common (meta.go,
// page.go, types.go), which the package does not export. Every page starts
// with a 16-byte header (id uint64, flags uint16, count uint16, overflow
// uint32); pages 0 and 1 hold a meta after it. bbolt casts these structs
// onto the mapped bytes, so they are in the machine's byte order.
const (
	pageHeaderSize   = 16
	metaSize         = 64 // magic … checksum
	metaChecksumOff  = 56 // the checksum is FNV-64a of the meta bytes before it
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	metaPageFlag     = 0x04
	freelistPageFlag = 0x10
	pgidNoFreelist   = ^uint64(0)
	minPageSize      = 1024    // the smallest page bbolt looks for a meta at
	maxPageSize      = 1 << 24 // the largest (db.go getPageSizeFromSecondMeta)
)

var ne = binary.NativeEndian

type pageHeader struct {
	id       uint64
	flags    uint16
	count    uint16
	overflow uint32
}

func decodePageHeader(b []byte) pageHeader {
	return pageHeader{id: ne.Uint64(b[0:]), flags: ne.Uint16(b[8:]), count: ne.Uint16(b[10:]), overflow: ne.Uint32(b[12:])}
}

// boltMeta is the part of a meta page the validation needs.
type boltMeta struct {
	page     uint64 // 0 or 1
	pageSize uint64
	root     uint64 // page of the root bucket
	freelist uint64 // first page of the freelist
	pgid     uint64 // high-water mark: pages [0, pgid) are in use or free
	txid     uint64
}

// decodeMeta decodes and checks the meta in page (its header first) as
// bbolt's Meta.Validate does: magic, version, checksum.
func decodeMeta(page []byte, n uint64) (boltMeta, error) {
	b := page[pageHeaderSize : pageHeaderSize+metaSize]
	switch {
	case ne.Uint32(b[0:]) != boltMagic:
		return boltMeta{}, fmt.Errorf("meta page %d has no bbolt magic number (not a bbolt database, or its start was overwritten)", n)
	case ne.Uint32(b[4:]) != boltVersion:
		return boltMeta{}, fmt.Errorf("meta page %d has bbolt format version %d, want %d", n, ne.Uint32(b[4:]), boltVersion)
	}
	h := fnv.New64a()
	h.Write(b[:metaChecksumOff])
	if h.Sum64() != ne.Uint64(b[metaChecksumOff:]) {
		return boltMeta{}, fmt.Errorf("meta page %d fails its checksum", n)
	}
	return boltMeta{
		page:     n,
		pageSize: uint64(ne.Uint32(b[8:])),
		root:     ne.Uint64(b[16:]),
		freelist: ne.Uint64(b[32:]),
		pgid:     ne.Uint64(b[40:]),
		txid:     ne.Uint64(b[48:]),
	}, nil
}

// validateDB checks, through f (read with ReadAt, never mapped), that
// bbolt can open and map the database without reading past its end:
//
//   - both meta pages carry bbolt's magic, version and a good checksum. bbolt
//     writes a meta in one write of one page and its 80 bytes lie in one
//     disk sector, so a crash leaves the old meta or the new one, never a
//     bad one: a bad meta is damage, not a torn commit;
//   - the file is a whole number of pages and reaches the high-water mark
//     (pgid) of both metas: every page a transaction can read lies below
//     it, and a page past the end of the file is a fault, not an error;
//   - the meta bbolt will use (the higher txid, db.go DB.meta) names a root
//     page and a freelist below that mark, with the right page types, and
//     every free page is below it too: bbolt reads both when it opens.
//
// The size of a file that bbolt grew is always a whole number of pages at
// or past the high-water mark (db.go DB.grow), so a valid filer passes.
func validateDB(f *os.File, size int64) error {
	if size == 0 {
		return errors.New("is empty (0 bytes)")
	}
	first := make([]byte, pageHeaderSize+metaSize)
	if size < int64(len(first)) {
		return fmt.Errorf("is %d bytes, too short for a bbolt meta page", size)
	}
	if _, err := f.ReadAt(first, 0); err != nil {
		return fmt.Errorf("cannot be read: %w", err)
	}
	m0, err := decodeMeta(first, 0)
	if err != nil {
		return err
	}
	ps := m0.pageSize
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return fmt.Errorf("meta page 0 gives a page size of %d bytes, not a power of two from %d to %d", ps, minPageSize, maxPageSize)
	}
	if uint64(size) < 2*ps {
		return fmt.Errorf("is %d bytes, shorter than its two %d-byte meta pages (truncated?)", size, ps)
	}
	second := make([]byte, pageHeaderSize+metaSize)
	if _, err := f.ReadAt(second, int64(ps)); err != nil {
		return fmt.Errorf("cannot be read: %w", err)
	}
	m1, err := decodeMeta(second, 1)
	if err != nil {
		return err
	}
	if m1.pageSize != ps {
		return fmt.Errorf("has meta pages that disagree on the page size (%d and %d bytes)", ps, m1.pageSize)
	}
	if uint64(size)%ps != 0 {
		return fmt.Errorf("is %d bytes, not a whole number of %d-byte pages (truncated?)", size, ps)
	}
	// bbolt uses the meta with the higher txid (db.go DB.meta).
	m, older := m0, m1
	if m1.txid > m0.txid {
		m, older = m1, m0
	}
	pages := uint64(size) / ps
	for _, m := range []boltMeta{m, older} {
		if m.pgid > pages {
			return fmt.Errorf("is %d bytes, but transaction %d (meta page %d) uses %d pages of %d bytes, %d bytes (truncated?)",
				size, m.txid, m.page, m.pgid, ps, m.pgid*ps)
		}
	}
	return checkTree(f, m)
}

// checkTree checks the pages bbolt reads on open for meta m: the root
// bucket's page and the freelist, all below the high-water mark.
func checkTree(f *os.File, m boltMeta) error {
	ps := m.pageSize
	bad := func(format string, args ...any) error {
		return fmt.Errorf("transaction %d (meta page %d): "+format, append([]any{m.txid, m.page}, args...)...)
	}
	hdr := make([]byte, pageHeaderSize)
	readHeader := func(id uint64) (pageHeader, error) {
		if _, err := f.ReadAt(hdr, int64(id*ps)); err != nil {
			return pageHeader{}, fmt.Errorf("cannot be read: %w", err)
		}
		return decodePageHeader(hdr), nil
	}

	if m.root < 2 || m.root >= m.pgid {
		return bad("root page %d is outside the database's pages 2-%d", m.root, m.pgid-1)
	}
	root, err := readHeader(m.root)
	if err != nil {
		return err
	}
	if root.id != m.root || (root.flags != branchPageFlag && root.flags != leafPageFlag) || m.root+uint64(root.overflow) >= m.pgid {
		return bad("root page %d is not a branch or leaf page of this database (it says page %d, flags %#x)", m.root, root.id, root.flags)
	}

	if m.freelist == pgidNoFreelist {
		return bad("has no freelist page, which ilmctl always writes")
	}
	if m.freelist < 2 || m.freelist >= m.pgid {
		return bad("freelist page %d is outside the database's pages 2-%d", m.freelist, m.pgid-1)
	}
	fl, err := readHeader(m.freelist)
	if err != nil {
		return err
	}
	if fl.id != m.freelist || fl.flags != freelistPageFlag || m.freelist+uint64(fl.overflow) >= m.pgid {
		return bad("freelist page %d is not a freelist page of this database (it says page %d, flags %#x)", m.freelist, fl.id, fl.flags)
	}
	// The page IDs follow the header; a count of 0xFFFF means the real
	// count is the first uint64 (page.go FreelistPageCount).
	buf := make([]byte, (uint64(fl.overflow)+1)*ps)
	if _, err := f.ReadAt(buf, int64(m.freelist*ps)); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("cannot be read: %w", err)
	}
	ids := buf[pageHeaderSize:]
	count := uint64(fl.count)
	if count == 0xFFFF {
		count = ne.Uint64(ids)
		ids = ids[8:]
	}
	if count > uint64(len(ids))/8 {
		return bad("freelist page %d lists %d pages, more than it holds", m.freelist, count)
	}
	for i := range count {
		if id := ne.Uint64(ids[8*i:]); id < 2 || id >= m.pgid {
			return bad("freelist page %d lists page %d, outside the database's pages 2-%d", m.freelist, id, m.pgid-1)
		}
	}
	return nil
}

// checkPages runs bbolt's own consistency check (Tx.Check) over every page
// tx can reach: page types and IDs, key order, the freelist. It turns a
// damaged page inside the file into an error at open instead of a panic in
// whichever command reads it first. It reads every page once, about a
// second for a filer of a few hundred MB. validateDB must have passed:
// Check reads pages through the map, and only the size check keeps those
// reads inside the file.
func checkPages(tx *bolt.Tx) error {
	var first error
	for err := range tx.Check() { // drained: Check's goroutine uses tx until it closes the channel
		if first == nil {
			first = err
		}
	}
	if first == nil {
		return nil
	}
	// Check reports a bad page it tripped over as a recovered panic,
	// "panic: assertion failed: …"; it is a finding, not a crash.
	return fmt.Errorf("fails bbolt's consistency check: %s", strings.TrimPrefix(first.Error(), "panic: "))
}
