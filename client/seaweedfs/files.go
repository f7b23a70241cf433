package seaweedfs

import (
	"context"
	"crypto/md5"
	"fmt"
	"path"
	"time"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"

	"github.com/ilmctl/ilmctl/core/filer"
)

// ReadFile reads a state file's inline content, as SeaweedFS's worker
// reads its cursors (weed/filer/read_write.go ReadInsideFiler).
func (s *Store) ReadFile(ctx context.Context, p string) ([]byte, error) {
	dir, name := path.Split(path.Clean(p))
	e, err := s.lookup(ctx, path.Clean(dir), name)
	if err != nil {
		return nil, err
	}
	if e == nil || e.IsDirectory {
		return nil, fmt.Errorf("%s: %w", p, filer.ErrNotFound)
	}
	if len(e.Content) == 0 && len(e.GetChunks()) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrChunkedFile, p)
	}
	return e.Content, nil
}

// WriteFile stores data as the entry's inline content, creating parent
// directories, with the attributes SeaweedFS's worker writes
// (weed/filer/read_write.go SaveInsideFiler: mode 0644, size, MD5 and
// mtime). A filer entry update replaces the whole entry, so readers see
// either the old or the new content.
func (s *Store) WriteFile(ctx context.Context, p string, data []byte) error {
	dir, name := path.Split(path.Clean(p))
	dir = path.Clean(dir)
	sum := md5.Sum(data)
	now := time.Now()
	old, err := s.lookup(ctx, dir, name)
	if err != nil {
		return err
	}
	if old == nil {
		_, err = s.fc.CreateEntry(ctx, &filer_pb.CreateEntryRequest{
			Directory: dir,
			Entry: &filer_pb.Entry{
				Name: name,
				Attributes: &filer_pb.FuseAttributes{
					Mtime: now.Unix(), MtimeNs: int32(now.Nanosecond()), Crtime: now.Unix(),
					FileMode: 0o644, FileSize: uint64(len(data)), Md5: sum[:],
				},
				Content: data,
			},
		})
		if err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		return nil
	}
	if old.IsDirectory {
		return fmt.Errorf("write %s: it is a directory", p)
	}
	if old.Attributes == nil {
		old.Attributes = &filer_pb.FuseAttributes{FileMode: 0o644, Crtime: now.Unix()}
	}
	old.Content, old.Chunks = data, nil
	old.Attributes.Mtime, old.Attributes.MtimeNs = now.Unix(), int32(now.Nanosecond())
	old.Attributes.FileSize, old.Attributes.Md5 = uint64(len(data)), sum[:]
	if _, err := s.fc.UpdateEntry(ctx, &filer_pb.UpdateEntryRequest{Directory: dir, Entry: old}); err != nil {
		return fmt.Errorf("update %s: %w", p, err)
	}
	return nil
}
