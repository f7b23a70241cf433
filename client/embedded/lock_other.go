//go:build !unix

package embedded

// lockDir cannot lock a directory on this platform: locked is always
// false, so Load refuses, rather than removes, unfinished loads' files.
func lockDir(string) (unlock func(), locked bool, err error) {
	return func() {}, false, nil
}
