// Package atomicfile writes the files ilmctl keeps on the operator's local
// disk so that a crash, kill -9 or power loss leaves either the old file or
// the new one, never a partial one:
//
//  1. the data goes to a temporary file in the target's own directory (a
//     rename is atomic only within one file system);
//  2. the temporary file is fsynced, so the rename cannot publish blocks
//     that are not on disk yet (without it a zero-length file is a legal
//     outcome after a crash on ext4 and others);
//  3. it is renamed over the target;
//  4. the directory is fsynced, so the rename itself survives a crash.
//
// A crash before step 3 leaves the target untouched and may leave the
// temporary file behind: it is hidden (a leading dot), never read by ilmctl,
// and safe to delete. Readers open the target by its name only.
//
// Directories are fsynced too (SyncDir, MkdirAll) because a new file is
// durable only once the entry naming it, and the entries naming its parent
// directories, are.
package atomicfile
