package seaweedfs

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"

	"github.com/ilmctl/ilmctl/core/filer"
)

// SetVersionMtime rewrites one version's mtime through filer UpdateEntry,
// the way SeaweedFS's own lifecycle integration tests age objects
// (test/s3/lifecycle). It exists for tests and demos: the version keeps
// its content and Extended map, so only its age and identity change.
// versionID "null" names the bare entry at the key.
func (s *Store) SetVersionMtime(ctx context.Context, bucket, key, versionID string, mtime time.Time) error {
	dir, name := path.Split(s.bucketDir(bucket) + "/" + strings.TrimSuffix(key, "/"))
	dir = strings.TrimSuffix(dir, "/")
	if versionID != filer.NullVersionID {
		dir, name = dir+"/"+name+versionsSuffix, versionFileName(versionID)
	}
	return s.setMtime(ctx, dir, name, mtime)
}

// SetUploadMtime rewrites a multipart upload directory's mtime, which is
// the upload's initiation time for lifecycle (see ListUploads).
func (s *Store) SetUploadMtime(ctx context.Context, bucket, uploadID string, mtime time.Time) error {
	return s.setMtime(ctx, s.bucketDir(bucket)+"/"+uploadsDir, uploadID, mtime)
}

func (s *Store) setMtime(ctx context.Context, dir, name string, mtime time.Time) error {
	e, err := s.lookup(ctx, dir, name)
	if err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("%s/%s: %w", dir, name, filer.ErrNotFound)
	}
	if e.Attributes == nil {
		e.Attributes = &filer_pb.FuseAttributes{}
	}
	e.Attributes.Mtime, e.Attributes.MtimeNs = mtime.Unix(), int32(mtime.Nanosecond())
	if e.Attributes.Crtime > mtime.Unix() {
		e.Attributes.Crtime = mtime.Unix()
	}
	if _, err := s.fc.UpdateEntry(ctx, &filer_pb.UpdateEntryRequest{Directory: dir, Entry: e}); err != nil {
		return fmt.Errorf("update %s/%s: %w", dir, name, err)
	}
	return nil
}

// SetVersionNoncurrentSince rewrites a noncurrent version's
// Seaweed-X-Amz-Noncurrent-Since-Ns stamp (the demotion time NoncurrentDays
// counts from) through filer UpdateEntry. For tests and demos, like
// SetVersionMtime.
func (s *Store) SetVersionNoncurrentSince(ctx context.Context, bucket, key, versionID string, since time.Time) error {
	dir, name := path.Split(s.bucketDir(bucket) + "/" + strings.TrimSuffix(key, "/"))
	dir = strings.TrimSuffix(dir, "/")
	if versionID != filer.NullVersionID {
		dir, name = dir+"/"+name+versionsSuffix, versionFileName(versionID)
	}
	e, err := s.lookup(ctx, dir, name)
	if err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("%s/%s: %w", dir, name, filer.ErrNotFound)
	}
	if e.Extended == nil {
		e.Extended = map[string][]byte{}
	}
	e.Extended[extNoncurrentSinceNs] = []byte(strconv.FormatInt(since.UnixNano(), 10))
	if _, err := s.fc.UpdateEntry(ctx, &filer_pb.UpdateEntryRequest{Directory: dir, Entry: e}); err != nil {
		return fmt.Errorf("update %s/%s: %w", dir, name, err)
	}
	return nil
}

// MetaLogPersistedNs returns when the filer last appended to its persisted
// meta-log: the newest chunk ModifiedTsNs (Unix nanoseconds) in the latest
// day directory, 0 when nothing is persisted. SeaweedFS keeps the newest
// meta-log events in memory and appends them to these files once a minute
// (weed/filer/filer.go LogFlushInterval); events still in memory when the
// filer dies uncleanly are lost to every subscriber. A chunk committed
// after an event was written comes from a flush that holds it, unless that
// flush sealed its window during the milliseconds of its own upload. For
// tests and demos that stop the server.
func (s *Store) MetaLogPersistedNs(ctx context.Context) (int64, error) {
	days, err := s.listAll(ctx, metaLogDir)
	if err != nil {
		return 0, err
	}
	var last *filer_pb.Entry
	for _, d := range days {
		if d.IsDirectory && (last == nil || d.Name > last.Name) {
			last = d
		}
	}
	if last == nil {
		return 0, nil
	}
	files, err := s.listAll(ctx, metaLogDir+"/"+last.Name)
	if err != nil {
		return 0, err
	}
	var newest int64
	for _, f := range files {
		for _, c := range f.GetChunks() {
			newest = max(newest, c.GetModifiedTsNs())
		}
	}
	return newest, nil
}
