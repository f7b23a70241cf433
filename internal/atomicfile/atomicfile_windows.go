package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// renameio does not build on Windows; ilmctl is not run there, but it
// compiles, so this keeps the same steps with the calls Windows has.
// Directories cannot be fsynced on Windows: NTFS journals the rename.

// WriteFile replaces path with data atomically (see the unix version).
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	mode := perm
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	return WriteFileMode(path, data, mode)
}

// WriteFileMode replaces path with data atomically, with exactly mode.
func WriteFileMode(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// SyncDir is a no-op on Windows.
func SyncDir(string) error { return nil }

// MkdirAll is os.MkdirAll; created reports whether dir itself was made.
func MkdirAll(dir string, perm fs.FileMode) (created bool, err error) {
	if _, err := os.Stat(dir); err == nil {
		return false, os.MkdirAll(dir, perm)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, os.MkdirAll(dir, perm)
}
