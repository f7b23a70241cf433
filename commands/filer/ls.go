package filer

import (
	"context"
	"fmt"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	corefiler "github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

// lsPage is the page size for listing objects and uploads.
const lsPage = 1000

func newLsCommand() *cobra.Command {
	var dir, bucket string
	cmd := &cobra.Command{
		Use:        "ls",
		SuggestFor: []string{"list"},
		Short:      "List every object version and incomplete upload in the filer",
		Long: `Ls lists what the embedded filer holds: one row per object version (delete
markers included) and one per incomplete multipart upload, in bucket and key
order, versions newest first. Run it after a pass to see what survived.

LATEST marks each key's current version; a key whose latest version is a
delete marker (MARKER) reads as deleted to S3 clients. The table fits the
terminal (80 columns off a terminal unless $COLUMNS says otherwise): long
keys are shortened in the middle, long version and upload IDs to a unique
prefix. -o wide adds MTIME and shows every identifier whole; -o json has
every field. Times are RFC3339 in UTC.
Ls only reads: it opens filer.db read-only, beside other readers, and never
creates, repairs or changes it; a directory without filer.db, or a damaged
filer.db, is an error.`,
		Example: `  ilmctl filer ls
  ilmctl filer ls --filer /tmp/ilm-demo --bucket logs
  ilmctl filer ls -o wide
  ilmctl filer ls -o json | jq '.versions[] | select(.is_latest)'`,
		Args: cmdutil.NoArgs,
	}
	format := cmdutil.AddOutputFlag(cmd, render.FormatTable, render.FormatWide, render.FormatJSON)
	addFilerFlag(cmd, &dir)
	cmd.Flags().StringVar(&bucket, "bucket", "", "list only this bucket")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		out, err := format()
		if err != nil {
			return err
		}
		if err := client.CheckSpec(dir); err != nil {
			return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err}
		}
		res, err := listFiler(cmd.Context(), dir, bucket)
		if err != nil {
			return err
		}
		return render.FilerLs(cmd.OutOrStdout(), out, res, cmdutil.Width(cmd.OutOrStdout()))
	}
	return cmd
}

func listFiler(ctx context.Context, dir, only string) (render.FilerListing, error) {
	f, err := client.Open(ctx, dir, client.Options{ReadOnly: true})
	if err != nil {
		return render.FilerListing{}, err
	}
	defer f.Close()
	buckets, err := f.ListBuckets(ctx)
	if err != nil {
		return render.FilerListing{}, fmt.Errorf("filer %s: %w", dir, err)
	}
	res := render.NewFilerListing()
	found := only == ""
	for _, b := range buckets {
		if only != "" && b.Name != only {
			continue
		}
		found = true
		if err := listBucket(ctx, f, b.Name, &res); err != nil {
			return render.FilerListing{}, fmt.Errorf("filer %s: bucket %q: %w", dir, b.Name, err)
		}
	}
	if !found {
		return render.FilerListing{}, cmdutil.NoSuchBucket(only, dir)
	}
	return res, nil
}

func listBucket(ctx context.Context, s corefiler.Store, bucket string, res *render.FilerListing) error {
	for after := ""; ; {
		objs, next, err := s.ListObjects(ctx, bucket, after, lsPage)
		if err != nil {
			return err
		}
		for _, o := range objs {
			res.AddObject(bucket, o)
		}
		if next == "" {
			break
		}
		after = next
	}
	for after := ""; ; {
		ups, next, err := s.ListUploads(ctx, bucket, after, lsPage)
		if err != nil {
			return err
		}
		for _, u := range ups {
			res.AddUpload(bucket, u)
		}
		if next == "" {
			return nil
		}
		if len(ups) == 0 {
			return corefiler.ErrTruncatedPage
		}
		after = next
	}
}
