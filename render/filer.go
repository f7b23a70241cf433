package render

import (
	"fmt"
	"io"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// FilerListing is what 'filer ls' lists, and its -o json document; field
// names are stable.
type FilerListing struct {
	Versions []FilerVersion `json:"versions"`
	Uploads  []FilerUpload  `json:"uploads"`
}

// FilerVersion is one object version (delete markers included).
type FilerVersion struct {
	Bucket       string `json:"bucket"`
	Key          string `json:"key"`
	VersionID    string `json:"version_id"`
	IsLatest     bool   `json:"is_latest"`
	DeleteMarker bool   `json:"delete_marker"`
	Mtime        string `json:"mtime"` // RFC3339 UTC, fractional seconds when present
	Size         int64  `json:"size"`
}

// FilerUpload is one incomplete multipart upload.
type FilerUpload struct {
	Bucket    string `json:"bucket"`
	Key       string `json:"key"`
	UploadID  string `json:"upload_id"`
	Initiated string `json:"initiated"` // RFC3339 UTC
}

// NewFilerListing is an empty listing, whose lists print as [] in JSON.
func NewFilerListing() FilerListing {
	return FilerListing{Versions: []FilerVersion{}, Uploads: []FilerUpload{}}
}

// AddObject lists every version of o, in bucket, in the order given.
func (l *FilerListing) AddObject(bucket string, o filer.Object) {
	for _, v := range o.Versions {
		l.Versions = append(l.Versions, FilerVersion{
			Bucket: bucket, Key: o.Key, VersionID: v.VersionID, IsLatest: v.IsLatest,
			DeleteMarker: v.DeleteMarker, Mtime: rfc3339(time.Unix(0, v.MtimeNs)), Size: v.Size,
		})
	}
}

// AddUpload lists u, in bucket.
func (l *FilerListing) AddUpload(bucket string, u filer.Upload) {
	l.Uploads = append(l.Uploads, FilerUpload{Bucket: bucket, Key: u.Key, UploadID: u.UploadID, Initiated: rfc3339(u.Initiated)})
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// FilerLs prints 'filer ls': versions, then uploads. The table (not -o
// wide) stays short of width columns: keys shortened in the middle, IDs
// to a unique prefix; -o wide adds MTIME with every identifier whole.
func FilerLs(w io.Writer, format Format, res FilerListing, width int) error {
	if format == FormatJSON {
		return JSON(w, res)
	}
	wide := format == FormatWide
	short := func(id string) string { return id }
	if !wide {
		ids := make([]string, 0, len(res.Versions)+len(res.Uploads))
		for _, v := range res.Versions {
			ids = append(ids, v.VersionID)
		}
		for _, u := range res.Uploads {
			ids = append(ids, u.UploadID)
		}
		short = ShortIDs(ids)
	}
	rows := make([][]string, 0, len(res.Versions))
	for _, v := range res.Versions {
		row := []string{v.Bucket, v.Key, short(v.VersionID), yesNo(v.IsLatest), yesNo(v.DeleteMarker), Bytes(v.Size)}
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
		rows = FitRows(header, rows, width, 1, 0)
	}
	if err := Table(w, "Versions", header, rows); err != nil {
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
		rows = FitRows(header, rows, width, 1, 0)
	}
	return Table(w, "Uploads", header, rows)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// FilerLoaded counts what 'filer load' wrote into a filer.
type FilerLoaded struct {
	Buckets, Objects, Versions, Uploads, Events int
}

// FilerLoad prints what 'filer load' wrote into the filer at dir: the
// counts on a line of their own, so a long path does not push them past
// 80 columns.
func FilerLoad(w io.Writer, dir string, n FilerLoaded) error {
	_, err := fmt.Fprintf(w, "loaded into %s:\n  %d buckets, %d objects, %d versions, %d uploads, %d meta-log events\n",
		dir, n.Buckets, n.Objects, n.Versions, n.Uploads, n.Events)
	return err
}
