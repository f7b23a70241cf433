package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PrivateMode is the mode of files ilmctl writes for the operator alone:
// recovery receipts and exports can reveal bucket, object and tier names.
const PrivateMode fs.FileMode = 0o600

// ErrExists is WritePrivate refusing to replace an existing file.
var ErrExists = errors.New("file exists")

// WritePrivate writes data to path with exactly PrivateMode, atomically
// and durably (temporary file, fsync, then publish, then directory
// fsync). Without overwrite an existing path is never replaced: the
// temporary file is published with a hard link, which fails if path
// exists, so even a file created between a check and the write survives.
// With overwrite it is renamed over path.
func WritePrivate(path string, data []byte, overwrite bool) error {
	if overwrite {
		return WriteFileMode(path, data, PrivateMode)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := tmp.Chmod(PrivateMode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(name, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, ErrExists)
		}
		return err
	}
	return SyncDir(dir)
}
