//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// WriteFile replaces path with data atomically and durably (steps 1-4 of
// the package comment). Like os.WriteFile, a new file gets perm less the
// umask and an existing file keeps its mode. path's directory must exist.
//
// The temporary file is renameio's: ".<base><random digits>" beside path,
// created with O_EXCL and removed again if any step before the rename
// fails.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	// WithTempDir: renameio otherwise probes $TMPDIR on every call and may
	// put the temporary file there when it is on the same file system.
	if err := renameio.WriteFile(path, data, perm, renameio.WithTempDir(dir)); err != nil {
		return err
	}
	return SyncDir(dir)
}

// WriteFileMode is WriteFile for a file another user reads (node_exporter
// reading a metrics textfile): the file ends with exactly mode, whatever
// the umask and whatever mode the file it replaces had. The mode is set on
// the temporary file before the rename, so a reader never sees the new
// content with another mode.
func WriteFileMode(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithStaticPermissions(mode))
	if err != nil {
		return err
	}
	defer func() { _ = f.Cleanup() }() // a no-op once the file is in place
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs directory dir, making the entries created, renamed or
// removed in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// MkdirAll is os.MkdirAll that also fsyncs the parent of every directory
// it creates, so a file later renamed into dir does not vanish with its
// directory after a crash. created reports whether dir itself was made.
func MkdirAll(dir string, perm fs.FileMode) (created bool, err error) {
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return false, &fs.PathError{Op: "mkdir", Path: dir, Err: errors.New("not a directory")}
		}
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if _, err := MkdirAll(parent, perm); err != nil {
			return false, err
		}
	}
	if err := os.Mkdir(dir, perm); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Created meanwhile by someone else, as os.MkdirAll accepts.
			if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
				return false, nil
			}
		}
		return false, err
	}
	return true, SyncDir(parent)
}
