// Package filer holds "ilmctl filer": build an embedded filer from a fixture
// and list what it holds, so a lifecycle pass can be demonstrated and its
// effect inspected without a real cluster.
package filer

import (
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/spf13/cobra"
)

// NewCommand returns "ilmctl filer" with its subcommands.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "filer",
		Short: "Build and inspect the embedded filer",
		Long: `The embedded filer is a single bbolt file (DIR/filer.db) that stands in for
a SeaweedFS, RustFS or MinIO cluster: buckets with versioning and lifecycle
configuration, every object version, incomplete multipart uploads, the
meta-log of changes, and the pass cursors.

Load a fixture to create one, run a pass against it, then list what is left:
the difference is what the pass expired.`,
		Example: `  ilmctl filer load testdata/demo/fixture.json --filer ./ilmctl-data
  ilmctl run --filer ./ilmctl-data
  ilmctl filer ls --filer ./ilmctl-data --bucket logs`,
	}
	cmd.AddCommand(newLoadCommand(), newLsCommand())
	return cmdutil.Group(cmd)
}

func addFilerFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "filer", cmdutil.DefaultFilerPath, "embedded filer directory (holds filer.db)")
}
