package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/lanrat/extsort"
)

// A load writes the meta-log in TsNs order, after the objects: the
// events a fixture implies come in key order, their instants at random,
// and inserting them as they come dirtied leaf pages all over the
// meta-log in every batch (bbolt rewrites each dirty page on commit, and
// every page touched stays resident in the map), which made a load's
// time and memory grow faster than the data. Instead each event goes
// into an external sort (sorter) on (instant, fixture order); the
// sorted events are appended to the meta-log, and the demotions whose
// TsNs differ from instant + 1ns are sorted again, by key, to patch the
// noncurrent-since of their object records in one sequential pass (see
// loadStream).
//
// Sorting is github.com/lanrat/extsort's: a maintained external sort
// with bounded memory (sorted runs of sortChunk records in one temporary
// file, then a k-way merge). Its file is created in the filer directory,
// beside the unfinished database, and unlinked at once, so it leaves
// nothing behind whatever way the load ends.

// sortChunk is how many event records the external sort holds in memory
// per sorted run; two or three runs are in memory at once (one being
// filled, one being sorted, one being written), at about 80 bytes a
// record. The merge then reads every run at once through a 64 KiB buffer
// each (extsort's, at most 64 MiB in all), so smaller runs cost the merge
// what they save the sort: at 10M versions (13M events) 100,000 keeps
// both near 10 MiB, and a 1M-version load below 100 MiB of RSS, 10M
// close to it. The demotions to patch, fewer and alive during the
// meta-log sweep, are sorted in runs of a quarter of that. Tests lower it
// to sort through the temporary file.
var sortChunk = 100_000

// sorter feeds records into an external sort and reads them back in
// byte order. Records are strings whose leading bytes are the sort key.
type sorter struct {
	in     chan string
	out    <-chan string
	errc   <-chan error
	cancel context.CancelFunc
	closed bool  // in is closed
	err    error // the sort's error, once read from errc
	once   sync.Once
}

func newSorter(ctx context.Context, dir string, chunk int) *sorter {
	ctx, cancel := context.WithCancel(ctx)
	in := make(chan string, 1024)
	srt, out, errc := extsort.Strings(in, &extsort.Config{
		ChunkSize:          max(chunk, 1),
		NumWorkers:         1,
		ChanBuffSize:       0,
		SortedChanBuffSize: 1024,
		TempFilesDir:       dir,
	})
	go srt.Sort(ctx)
	return &sorter{in: in, out: out, errc: errc, cancel: cancel}
}

// add hands rec to the sort; it fails when the sort has failed.
func (s *sorter) add(ctx context.Context, rec string) error {
	if s.err != nil {
		return s.err
	}
	select {
	case s.in <- rec:
		return nil
	case err, ok := <-s.errc:
		if cerr := ctx.Err(); cerr != nil {
			return cerr // the sort stopped because the load was cancelled
		}
		if !ok || err == nil {
			err = errors.New("external sort ended early")
		}
		s.err = fmt.Errorf("sort meta-log events: %w", err)
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// each calls fn with every record in order, once the input is complete.
func (s *sorter) each(ctx context.Context, fn func(string) error) error {
	if s.err != nil {
		return s.err
	}
	s.closed = true
	close(s.in)
	n := 0
	for rec := range s.out {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	if err, ok := <-s.errc; ok && err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		s.err = fmt.Errorf("sort meta-log events: %w", err)
		return s.err
	}
	return ctx.Err()
}

// close stops the sort, wherever it is, and waits for its goroutines to
// let go of their temporary file. It may be called again.
func (s *sorter) close() {
	s.once.Do(func() {
		s.cancel()
		if !s.closed {
			s.closed = true
			close(s.in)
		}
		for range s.out {
		}
		for range s.errc {
		}
	})
}

// Event codes in sort records.
const (
	codePut byte = iota + 1
	codeDemote
	codeMPUInit
)

// sortEvent is one meta-log event on its way through the sort.
type sortEvent struct {
	AtNs     int64  // the instant the fixture gives it
	Seq      uint64 // its place in fixture order
	Code     byte
	Bucket   uint32 // index into fixtureStream.buckets
	Key      string
	Version  string // EventPut, EventDemote
	UploadID string // EventMPUInit
}

// encodeEvent writes e as a sort record: AtNs and Seq big-endian first,
// so the records' byte order is (instant, fixture order). AtNs is never
// negative (checked before).
func encodeEvent(e sortEvent) string {
	b := make([]byte, 0, 8+8+1+4+binary.MaxVarintLen64*2+len(e.Key)+len(e.Version)+len(e.UploadID))
	b = binary.BigEndian.AppendUint64(b, uint64(e.AtNs))
	b = binary.BigEndian.AppendUint64(b, e.Seq)
	b = append(b, e.Code)
	b = binary.BigEndian.AppendUint32(b, e.Bucket)
	b = binary.AppendUvarint(b, uint64(len(e.Key)))
	b = append(b, e.Key...)
	id := e.Version
	if e.Code == codeMPUInit {
		id = e.UploadID
	}
	b = append(b, id...)
	return string(b)
}

var errBadRecord = errors.New("corrupt record in the load's temporary sort file")

func decodeEvent(rec string) (sortEvent, error) {
	if len(rec) < 21 {
		return sortEvent{}, errBadRecord
	}
	e := sortEvent{
		AtNs:   int64(be64(rec[0:8])),
		Seq:    be64(rec[8:16]),
		Code:   rec[16],
		Bucket: be32(rec[17:21]),
	}
	rest := rec[21:]
	n, w := uvarintString(rest)
	if w <= 0 || uint64(len(rest)-w) < n {
		return sortEvent{}, errBadRecord
	}
	e.Key = rest[w : w+int(n)]
	id := rest[w+int(n):]
	switch e.Code {
	case codePut, codeDemote:
		e.Version = id
	case codeMPUInit:
		e.UploadID = id
	default:
		return sortEvent{}, errBadRecord
	}
	return e, nil
}

// uvarintString is binary.Uvarint on a string's leading bytes.
func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// demotePatch is a demoted version whose EventDemote took another TsNs
// than instant + 1ns: its record's NoncurrentSinceNs must become TsNs.
type demotePatch struct {
	Bucket  uint32
	Key     string
	Version string
	TsNs    int64
}

// encodePatch writes p as a sort record ordered by (bucket, key), the
// order of the object records, so the patches rewrite them in one
// sequential pass: bucket, key, 0x00, version, TsNs, len(version). The
// order only matters for speed; decodePatch reads the fields from the
// end, so a key holding 0x00 still decodes.
func encodePatch(p demotePatch) string {
	b := make([]byte, 0, 4+len(p.Key)+1+len(p.Version)+8+4)
	b = binary.BigEndian.AppendUint32(b, p.Bucket)
	b = append(b, p.Key...)
	b = append(b, 0)
	b = append(b, p.Version...)
	b = binary.BigEndian.AppendUint64(b, uint64(p.TsNs))
	b = binary.BigEndian.AppendUint32(b, uint32(len(p.Version)))
	return string(b)
}

func decodePatch(rec string) (demotePatch, error) {
	n := len(rec)
	if n < 4+1+8+4 {
		return demotePatch{}, errBadRecord
	}
	vlen := int(be32(rec[n-4:]))
	end := n - 12 - vlen // where the version begins
	if vlen < 0 || end < 5 || rec[end-1] != 0 {
		return demotePatch{}, errBadRecord
	}
	return demotePatch{
		Bucket:  be32(rec[:4]),
		Key:     rec[4 : end-1],
		Version: rec[end : n-12],
		TsNs:    int64(be64(rec[n-12 : n-4])),
	}, nil
}

// be64 and be32 read big-endian integers from a string's leading bytes
// without copying it.
func be64(s string) uint64 {
	_ = s[7]
	return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
}

func be32(s string) uint32 {
	_ = s[3]
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}
