package filer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/client/embedded"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/spf13/cobra"
)

func newLoadCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "load FIXTURE.json",
		Short: "Create buckets, versions and uploads from a JSON fixture",
		Long: `Load writes a fixture's buckets, object versions and multipart uploads into
the embedded filer, creating DIR if needed, together with the meta-log
history they imply (a put at each version's mtime, a demotion of its
predecessor at the same instant, an upload init at its initiated time).

The fixture is one JSON object, decoded strictly (unknown fields are
errors). Versions are listed oldest first, the last being the latest:

  {"buckets":[{"name":"logs","versioning":"Enabled","object_lock":false,
    "lifecycle_xml":"<LifecycleConfiguration>...</LifecycleConfiguration>",
    "objects":[{"key":"app/a.log","versions":[
      {"version_id":"v1","mtime":"2026-01-01T10:00:00Z","size":120,"etag":"e1"},
      {"version_id":"v2","mtime":"2026-02-01T10:00:00Z","size":130}]}],
    "uploads":[{"upload_id":"u1","key":"big.bin","initiated":"2026-01-01T00:00:00Z"}]}]}

versioning is "Enabled", "Suspended" or "Off"; an omitted version_id gets a
stable generated ID, and null means the null version. The load is one
transaction: a bad fixture leaves the filer unchanged. A bucket the filer
already holds is an error; load into a fresh --filer directory.`,
		Example: `  ilmctl filer load testdata/demo/fixture.json
  ilmctl filer load fixture.json --filer /tmp/ilm-demo`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Usage("filer load takes one FIXTURE.json argument, got %d (see 'ilmctl filer load --help')", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoad(cmd.Context(), cmd.OutOrStdout(), args[0], dir)
		},
	}
	addFilerFlag(cmd, &dir)
	return cmd
}

// removeFiler deletes a just-created embedded filer: its database file and
// its directory when nothing else is in it.
func removeFiler(f client.Filer) {
	d, ok := f.(interface{ Dir() string })
	if !ok {
		return
	}
	os.Remove(filepath.Join(d.Dir(), embedded.DBFile))
	os.Remove(d.Dir())
}

func runLoad(ctx context.Context, w io.Writer, path, dir string) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open fixture: %w", err)
	}
	defer in.Close()
	// A filer this load creates is removed again if the load fails, so a
	// bad fixture never leaves an empty filer that a later run would pass
	// over as if it were real.
	f, err := client.Open(ctx, dir, client.Options{MustExist: true})
	created := errors.Is(err, client.ErrNoFiler)
	if created {
		f, err = client.Open(ctx, dir, client.Options{})
	}
	if err != nil {
		return err
	}
	sum, err := client.LoadFixture(ctx, f, in)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close filer %s: %w", dir, cerr)
	}
	if err != nil {
		if created {
			removeFiler(f)
		}
		return fmt.Errorf("load %s: %w", path, err)
	}
	_, err = fmt.Fprintf(w, "loaded %d buckets, %d objects, %d versions, %d uploads (%d meta-log events) into %s\n",
		sum.Buckets, sum.Objects, sum.Versions, sum.Uploads, sum.Events, dir)
	return err
}
