package seaweedfs

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"

	"github.com/ilmctl/ilmctl/core/filer"
)

// ErrEventOrder is a meta-log stream whose TsNs went backwards; cursors
// assume TsNs order, so the pass stops rather than misplace one.
var ErrEventOrder = errors.New("meta-log events out of TsNs order")

// clientName identifies ilmctl's subscriptions in the filer's subscriber
// list (weed shell fs.meta.subscribers).
const clientName = "ilmctl-lifecycle"

// SubscribeMetadata opens one SubscribeMetadata stream on the buckets path
// with since_ns and until_ns, unpacks batched events, and calls fn with
// each one that maps to an object version or upload (see mapEvent), in
// TsNs order. It returns nil once the filer has delivered everything up to
// untilNs (end of stream, or the first event past it).
//
// First it waits (up to metaLogVolumesWait) until every volume holding a
// persisted meta-log file of the range is located, and fails with
// ErrMetaLogUnreadable otherwise: the filer skips such files silently, and
// a stream ended that way is indistinguishable from a complete one.
func (s *Store) SubscribeMetadata(ctx context.Context, sinceNs, untilNs int64, fn func(filer.Event) error) error {
	if err := s.awaitMetaLogVolumes(ctx, sinceNs, untilNs); err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel() // unblocks the stream when we stop early
	var id [4]byte
	_, _ = rand.Read(id[:])
	stream, err := s.fc.SubscribeMetadata(sctx, &filer_pb.SubscribeMetadataRequest{
		ClientName:             clientName,
		PathPrefix:             s.bucketsPath + "/",
		SinceNs:                sinceNs,
		UntilNs:                untilNs,
		ClientId:               int32(binary.BigEndian.Uint32(id[:]) >> 1),
		ClientSupportsBatching: true,
	}, eventStreamCodec)
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", s.bucketsPath, err)
	}
	lastTs := sinceNs
	deliver := func(r *filer_pb.SubscribeMetadataResponse) (stop bool, err error) {
		if r == nil || r.EventNotification == nil || r.TsNs <= sinceNs {
			return false, nil
		}
		if r.TsNs > untilNs {
			return true, nil
		}
		if r.TsNs < lastTs {
			return true, fmt.Errorf("%w: %d after %d", ErrEventOrder, r.TsNs, lastTs)
		}
		lastTs = r.TsNs
		ev, ok, err := mapEvent(s.bucketsPath, r)
		if err != nil || !ok {
			return err != nil, err
		}
		return false, fn(ev)
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("meta-log stream: %w", err)
		}
		// The response's own event comes first; Events is the batched tail.
		if stop, err := deliver(resp); stop || err != nil {
			return err
		}
		for _, r := range resp.Events {
			if stop, err := deliver(r); stop || err != nil {
				return err
			}
		}
	}
}

// mapEvent maps one filer meta-log event to the logical event it records,
// following SeaweedFS's own router (weed/s3api/s3lifecycle/router/router.go
// and reader/reader.go extractBucketKey) for paths:
//
//   - <bucket>/<key>.versions/v_<id> created: put of version <id>;
//     removed: remove; updated so that it gains (or changes) its
//     Seaweed-X-Amz-Noncurrent-Since-Ns stamp: demote; other updates
//     (tags, retention): put, so replay re-evaluates the version.
//   - <bucket>/<key>.versions updated so that its
//     Seaweed-X-Amz-Latest-Version-Id pointer changes: demote of the
//     version it named before ("null" when it named none: the null
//     version was the latest).
//   - <bucket>/<key> (a file, or a directory that also holds the object):
//     the same as a version file, for the null version.
//   - <bucket>/.uploads/<id> directory created: mpu_init of the key in its
//     "key" attribute; removed: mpu_remove. Part files below it and
//     everything else (plain directories, bucket entries) map to nothing.
//
// Every event keeps the filer's TsNs; one filer event maps to at most one
// logical event, so TsNs stays strictly increasing. Path is the entry's
// bucket-relative path whenever it is not the key, computed as SeaweedFS's
// reader computes the key it shards by (reader.go, extractBucketKey: the
// new parent path, else the event's directory, and the entry's name).
func mapEvent(bucketsPath string, r *filer_pb.SubscribeMetadataResponse) (filer.Event, bool, error) {
	n := r.EventNotification
	oldE, newE := n.OldEntry, n.NewEntry
	var full string
	switch {
	case newE != nil:
		dir := n.NewParentPath
		if dir == "" {
			dir = r.Directory
		}
		full = strings.TrimSuffix(dir, "/") + "/" + newE.Name
	case oldE != nil:
		full = strings.TrimSuffix(r.Directory, "/") + "/" + oldE.Name
	default:
		return filer.Event{}, false, nil
	}
	rest, ok := strings.CutPrefix(full, strings.TrimSuffix(bucketsPath, "/")+"/")
	if !ok {
		return filer.Event{}, false, nil
	}
	bucket, rel, ok := strings.Cut(rest, "/")
	if !ok || bucket == "" || rel == "" {
		return filer.Event{}, false, nil
	}
	ev := filer.Event{TsNs: r.TsNs, Bucket: bucket}
	entry := newE
	if entry == nil {
		entry = oldE
	}

	// Multipart uploads.
	if up, ok := strings.CutPrefix(rel, uploadsDir+"/"); ok {
		if up == "" || strings.Contains(up, "/") || !entry.IsDirectory {
			return filer.Event{}, false, nil // part files, .uploads itself
		}
		ev.UploadID, ev.Key, ev.Path = up, string(entry.Extended[extMultipartObjectKey]), rel
		switch {
		case oldE == nil:
			if ev.Key == "" {
				return filer.Event{}, false, fmt.Errorf("%w: meta-log event at %d creates %s without %q", ErrBadEntry, r.TsNs, full, extMultipartObjectKey)
			}
			ev.Type = filer.EventMPUInit
		case newE == nil:
			if ev.Key == "" {
				return filer.Event{}, false, nil // nothing was ever initiated under a key
			}
			ev.Type = filer.EventMPURemove
		default:
			return filer.Event{}, false, nil
		}
		return ev, true, nil
	}
	if rel == uploadsDir {
		return filer.Event{}, false, nil
	}

	parent, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent, name = rel[:i], rel[i+1:]
	}

	// A version file.
	if logical, ok := strings.CutSuffix(parent, versionsSuffix); ok && logical != "" && !strings.HasSuffix(logical, "/") {
		id, ok := versionIDFromFileName(name)
		if !ok || entry.IsDirectory {
			return filer.Event{}, false, nil
		}
		ev.Key, ev.VersionID, ev.Type, ev.Path = logical, id, entryEventType(oldE, newE), rel
		return ev, true, nil
	}

	// A .versions directory: the latest pointer moved.
	if logical, ok := strings.CutSuffix(rel, versionsSuffix); ok && logical != "" && !strings.HasSuffix(logical, "/") && entry.IsDirectory {
		if oldE == nil || newE == nil {
			return filer.Event{}, false, nil
		}
		before, after := string(oldE.Extended[extLatestVersionID]), string(newE.Extended[extLatestVersionID])
		if before == after {
			return filer.Event{}, false, nil
		}
		if before == "" {
			before = filer.NullVersionID
		}
		ev.Key, ev.VersionID, ev.Type, ev.Path = logical, before, filer.EventDemote, rel
		return ev, true, nil
	}

	// The null version: a file at the key, or a directory holding it.
	if entry.IsDirectory && !entry.IsPrefixObject() {
		return filer.Event{}, false, nil
	}
	ev.Key, ev.VersionID, ev.Type = rel, filer.NullVersionID, entryEventType(oldE, newE)
	return ev, true, nil
}

// entryEventType classifies a change to one version's entry.
func entryEventType(oldE, newE *filer_pb.Entry) filer.EventType {
	switch {
	case newE == nil:
		return filer.EventRemove
	case oldE == nil:
		return filer.EventPut
	}
	stamp := string(newE.Extended[extNoncurrentSinceNs])
	if stamp != "" && stamp != string(oldE.Extended[extNoncurrentSinceNs]) {
		return filer.EventDemote
	}
	return filer.EventPut
}

func unixNs(ns int64) time.Time { return time.Unix(0, ns).UTC() }
