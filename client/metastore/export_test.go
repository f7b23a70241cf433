package metastore

// SetBeforeRename lets tests stop a dir: pool write between its
// temporary's fsync and its rename, as kill -9 would.
func SetBeforeRename(d *Dir, fn func(tmp, dst string) error) { d.beforeRename = fn }
