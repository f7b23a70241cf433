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
	return s.updateExtended(ctx, dir, name, func(ext map[string][]byte) {
		ext[extNoncurrentSinceNs] = []byte(strconv.FormatInt(since.UnixNano(), 10))
	})
}

// updateExtended applies edit to dir/name's Extended map and writes the
// entry back through filer UpdateEntry.
func (s *Store) updateExtended(ctx context.Context, dir, name string, edit func(ext map[string][]byte)) error {
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
	edit(e.Extended)
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

// SetLatestVersionPointer rewrites key's .versions directory
// Seaweed-X-Amz-Latest-Version-Id pointer through filer UpdateEntry; ""
// removes it. For tests that reproduce layouts older SeaweedFS releases
// left behind (a pointer naming a version that is gone, or naming "null"
// beside a bare null object).
func (s *Store) SetLatestVersionPointer(ctx context.Context, bucket, key, versionID string) error {
	dir, name := path.Split(s.bucketDir(bucket) + "/" + key + versionsSuffix)
	return s.updateExtended(ctx, strings.TrimSuffix(dir, "/"), name, func(ext map[string][]byte) {
		if versionID == "" {
			delete(ext, extLatestVersionID)
		} else {
			ext[extLatestVersionID] = []byte(versionID)
		}
	})
}

// PutLegacyNullMarker writes a null-version delete marker as a version
// file, <key>.versions/v_null, dated mtime, creating the .versions
// directory when missing: the layout older SeaweedFS releases could leave
// beside a bare null object (seaweedfs#10583). For tests only.
func (s *Store) PutLegacyNullMarker(ctx context.Context, bucket, key string, mtime time.Time) error {
	dir, name := path.Split(s.bucketDir(bucket) + "/" + key + versionsSuffix)
	dir = strings.TrimSuffix(dir, "/")
	vdir, err := s.lookup(ctx, dir, name)
	if err != nil {
		return err
	}
	if vdir == nil {
		if _, err := s.fc.CreateEntry(ctx, &filer_pb.CreateEntryRequest{Directory: dir, Entry: &filer_pb.Entry{
			Name: name, IsDirectory: true,
			Attributes: &filer_pb.FuseAttributes{Mtime: mtime.Unix(), Crtime: mtime.Unix(), FileMode: 0o20000000755},
		}}); err != nil {
			return fmt.Errorf("create %s/%s: %w", dir, name, err)
		}
	}
	marker := &filer_pb.Entry{
		Name:       versionFileName(filer.NullVersionID),
		Attributes: &filer_pb.FuseAttributes{Mtime: mtime.Unix(), MtimeNs: int32(mtime.Nanosecond()), Crtime: mtime.Unix(), FileMode: 0o644},
		Extended:   map[string][]byte{extVersionID: []byte(filer.NullVersionID), extDeleteMarker: []byte("true")},
	}
	if _, err := s.fc.CreateEntry(ctx, &filer_pb.CreateEntryRequest{Directory: dir + "/" + name, Entry: marker}); err != nil {
		return fmt.Errorf("create %s/%s/%s: %w", dir, name, marker.Name, err)
	}
	return nil
}

// RemoveVersionFile deletes <key>.versions/v_<versionID> through the filer
// (not S3). For tests that undo a layout they built.
func (s *Store) RemoveVersionFile(ctx context.Context, bucket, key, versionID string) error {
	dir := s.bucketDir(bucket) + "/" + key + versionsSuffix
	if _, err := s.fc.DeleteEntry(ctx, &filer_pb.DeleteEntryRequest{Directory: dir, Name: versionFileName(versionID), IsDeleteData: true}); err != nil {
		return fmt.Errorf("delete %s/%s: %w", dir, versionFileName(versionID), err)
	}
	return nil
}

// RawEntry returns the bare entry at key (the null version's home), nil
// when there is none. For tests that check an entry survived whatever the
// S3 view of the key says.
func (s *Store) RawEntry(ctx context.Context, bucket, key string) (*filer_pb.Entry, error) {
	dir, name := path.Split(s.bucketDir(bucket) + "/" + strings.TrimSuffix(key, "/"))
	return s.lookup(ctx, strings.TrimSuffix(dir, "/"), name)
}

// RawVersion reads the version file <key>.versions/v_<versionID> alone, as
// a filer.Version with the store token a LifecycleDelete compares. For
// tests that prepare a delete for one specific entry.
func (s *Store) RawVersion(ctx context.Context, bucket, key, versionID string) (filer.Version, error) {
	dir := s.bucketDir(bucket) + "/" + key + versionsSuffix
	e, err := s.lookup(ctx, dir, versionFileName(versionID))
	if err != nil {
		return filer.Version{}, err
	}
	if e == nil {
		return filer.Version{}, fmt.Errorf("%s/%s: %w", dir, versionFileName(versionID), filer.ErrNotFound)
	}
	return versionFromEntry(e, versionID)
}

// DeleteBucketDir removes a bucket's directory and everything in it
// through the filer, the way `weed shell s3.bucket.delete` does, whatever
// versions, delete markers or retention it holds. For test servers only:
// a lifecycle pass covers every bucket on its filer, so a test that
// reasons about what a pass does first clears what earlier tests left.
func (s *Store) DeleteBucketDir(ctx context.Context, bucket string) error {
	if _, err := s.fc.DeleteEntry(ctx, &filer_pb.DeleteEntryRequest{
		Directory: s.bucketsPath, Name: bucket, IsDeleteData: true, IsRecursive: true, IgnoreRecursiveError: true,
	}); err != nil {
		return fmt.Errorf("delete %s/%s: %w", s.bucketsPath, bucket, err)
	}
	return nil
}
