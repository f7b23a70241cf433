package filer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/render"
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
    "uploads":[{"upload_id":"u1","key":"big.bin",
      "initiated":"2026-01-01T00:00:00Z"}]}]}

versioning is "Enabled", "Suspended" or "Off"; an omitted version_id gets a
stable generated ID, and null means the null version.

lifecycle_xml is stored exactly as given. It is judged by the same parser
as 'ilmctl run': a document the parser rejects is still loaded, with a
one-line warning giving the parser's verdict, and the pass reports that
bucket (bucket_errors, exit 4) and takes no action on it.

The load is all or nothing, even if ilmctl is killed (kill -9, power loss):
  - DIR without filer.db: the new filer is built in
    DIR/filer.db.ilmctl-load-<random> and renamed to DIR/filer.db only once
    it is complete and on disk. Until then DIR holds no filer ('filer ls'
    and 'run' say "no filer at DIR"); a bad fixture leaves nothing behind.
  - DIR with a filer.db: the fixture is added in one transaction; a bad
    fixture or a kill leaves the filer as it was. A bucket the filer already
    holds gets the fixture's objects and uploads (new keys only) when the
    fixture repeats its versioning, object_lock and lifecycle_xml exactly;
    otherwise it is an error.
A filer.db.ilmctl-load-* file left by a killed load is never read as a
filer; the next load into DIR removes it and says so. Two loads into one
DIR at once: the second fails and changes nothing.

The meta-log events are sorted through a temporary file in DIR that is
unlinked as soon as it is created: while the load runs it takes about 25
bytes of disk per event plus the event's key and version ID (some 0.7 GB
at 10M versions), and none after.`,
		Example: `  ilmctl filer load testdata/demo/fixture.json
  ilmctl filer load fixture.json --filer /tmp/ilm-demo`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.SeeHelp("ilmctl filer load", "filer load takes one FIXTURE.json argument, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoad(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], dir)
		},
	}
	addFilerFlag(cmd, &dir)
	return cmd
}

// loadHook is a TEST SEAM (kill_test.go), nil in production: the hook
// client.Load calls after each bucket and before the final rename.
var loadHook func(client.LoadPoint) error

func runLoad(ctx context.Context, stdout, stderr io.Writer, path, dir string) error {
	in, err := os.Open(path)
	if err != nil {
		// *fs.PathError already names the operation and the file.
		return fmt.Errorf("fixture: %w", err)
	}
	defer in.Close()
	res, err := client.Load(ctx, dir, in, client.LoadOptions{Hook: loadHook})
	for _, p := range res.Removed {
		fmt.Fprintf(stderr, "ilmctl: removed %s, left by an unfinished load\n", p)
	}
	var fe *client.FixtureError
	var se *json.SyntaxError
	if errors.As(err, &fe) && fe.Bucket == "" && fe.Offset == 0 && errors.As(err, &se) {
		// Not JSON from its first byte: the wrong file, most likely.
		return fmt.Errorf("%s is not a JSON fixture (%v); see 'ilmctl filer load --help' for its shape", path, se)
	}
	if fe != nil {
		// The error says where in the file: the file's name leads.
		return fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	for _, r := range res.Rejected {
		fmt.Fprintf(stderr, "ilmctl: warning: bucket %s: lifecycle_xml stored as given, but the lifecycle parser rejects it; ilmctl run will take no action on this bucket and exit 4: %v\n", r.Bucket, r.Err)
	}
	return render.FilerLoad(stdout, dir, render.FilerLoaded{
		Buckets: res.Buckets, Objects: res.Objects, Versions: res.Versions, Uploads: res.Uploads, Events: res.Events,
	})
}
