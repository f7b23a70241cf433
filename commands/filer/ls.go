package filer

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ilmctl/ilmctl/client"
	"github.com/ilmctl/ilmctl/commands/cmdutil"
	corefiler "github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/render"
	"github.com/spf13/cobra"
)

// lsPage is the page size for listing objects and uploads.
const lsPage = 1000

// lsResult is the -o json document; field names are stable.
type lsResult struct {
	Versions []lsVersion `json:"versions"`
	Uploads  []lsUpload  `json:"uploads"`
}

type lsVersion struct {
	Bucket       string `json:"bucket"`
	Key          string `json:"key"`
	VersionID    string `json:"version_id"`
	IsLatest     bool   `json:"is_latest"`
	DeleteMarker bool   `json:"delete_marker"`
	Mtime        string `json:"mtime"` // RFC3339 UTC, fractional seconds when present
	Size         int64  `json:"size"`
}

type lsUpload struct {
	Bucket    string `json:"bucket"`
	Key       string `json:"key"`
	UploadID  string `json:"upload_id"`
	Initiated string `json:"initiated"` // RFC3339 UTC
}

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
		return renderLs(cmd.OutOrStdout(), out, res, cmdutil.Width(cmd.OutOrStdout()))
	}
	return cmd
}

func listFiler(ctx context.Context, dir, only string) (lsResult, error) {
	f, err := client.Open(ctx, dir, client.Options{ReadOnly: true})
	if err != nil {
		return lsResult{}, err
	}
	defer f.Close()
	buckets, err := f.ListBuckets(ctx)
	if err != nil {
		return lsResult{}, fmt.Errorf("filer %s: %w", dir, err)
	}
	res := lsResult{Versions: []lsVersion{}, Uploads: []lsUpload{}}
	found := only == ""
	for _, b := range buckets {
		if only != "" && b.Name != only {
			continue
		}
		found = true
		if err := listBucket(ctx, f, b.Name, &res); err != nil {
			return lsResult{}, fmt.Errorf("filer %s: bucket %q: %w", dir, b.Name, err)
		}
	}
	if !found {
		return lsResult{}, cmdutil.NoSuchBucket(only, dir)
	}
	return res, nil
}

func listBucket(ctx context.Context, s corefiler.Store, bucket string, res *lsResult) error {
	for after := ""; ; {
		objs, next, err := s.ListObjects(ctx, bucket, after, lsPage)
		if err != nil {
			return err
		}
		for _, o := range objs {
			for _, v := range o.Versions {
				res.Versions = append(res.Versions, lsVersion{
					Bucket: bucket, Key: o.Key, VersionID: v.VersionID, IsLatest: v.IsLatest,
					DeleteMarker: v.DeleteMarker, Mtime: rfc3339(time.Unix(0, v.MtimeNs)), Size: v.Size,
				})
			}
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
			res.Uploads = append(res.Uploads, lsUpload{Bucket: bucket, Key: u.Key, UploadID: u.UploadID, Initiated: rfc3339(u.Initiated)})
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

// renderLs writes the listing; the table (not -o wide) short of width
// columns.
func renderLs(w io.Writer, format render.Format, res lsResult, width int) error {
	if format == render.FormatJSON {
		return render.JSON(w, res)
	}
	wide := format == render.FormatWide
	short := func(id string) string { return id }
	if !wide {
		ids := make([]string, 0, len(res.Versions)+len(res.Uploads))
		for _, v := range res.Versions {
			ids = append(ids, v.VersionID)
		}
		for _, u := range res.Uploads {
			ids = append(ids, u.UploadID)
		}
		short = render.ShortIDs(ids)
	}
	rows := make([][]string, 0, len(res.Versions))
	for _, v := range res.Versions {
		row := []string{v.Bucket, v.Key, short(v.VersionID), yesNo(v.IsLatest), yesNo(v.DeleteMarker), render.Bytes(v.Size)}
		if wide {
			row = append(row, v.Mtime)
		}
		rows = append(rows, row)
	}
	// Sizes in the same units as run's tables; -o json has the byte count.
	header := []string{"BUCKET", "KEY", "VERSION_ID", "LATEST", "MARKER", "SIZE"}
	if wide {
		header = append(header, "MTIME")
	} else {
		rows = render.FitRows(header, rows, width, 1, 0)
	}
	if err := render.Table(w, "Versions", header, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, u := range res.Uploads {
		rows = append(rows, []string{u.Bucket, u.Key, short(u.UploadID), u.Initiated})
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	header = []string{"BUCKET", "KEY", "UPLOAD_ID", "INITIATED"}
	if !wide {
		rows = render.FitRows(header, rows, width, 1, 0)
	}
	return render.Table(w, "Uploads", header, rows)
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
