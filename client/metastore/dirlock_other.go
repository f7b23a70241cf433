//go:build !unix

package metastore

// lockRoot is a no-op where flock is not available: the process-local
// mutex still serializes one process's conditional writes.
func lockRoot(string) (func(), error) { return func() {}, nil }
