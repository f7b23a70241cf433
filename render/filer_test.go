package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// The listing stays short of 80 columns with a long key and version IDs
// as SeaweedFS writes them: the key keeps its start and end, each ID a
// prefix no other ID shares; -o wide has them whole, with MTIME.
func TestFilerLsFits(t *testing.T) {
	key := "exports/" + strings.Repeat("customers/eu/", 8) + "part-00001.parquet"
	res := FilerListing{Versions: []FilerVersion{
		{Bucket: "analytics", Key: key, VersionID: "7ffe8b3c1a02d9f0c4e8b7a6d5c4b3a2", IsLatest: true, Mtime: "2026-11-25T18:00:00Z", Size: 5 << 30},
		{Bucket: "analytics", Key: key, VersionID: "7ffe8b3c1a12d9f0c4e8b7a6d5c4b3a2", Mtime: "2026-10-25T18:00:00Z", Size: 1 << 20},
	}, Uploads: []FilerUpload{{Bucket: "analytics", Key: key, UploadID: "f81d4fae-7dec-11d0-a765-00a0c91e6bf6", Initiated: "2026-11-01T09:00:00Z"}}}
	var b bytes.Buffer
	if err := FilerLs(&b, FormatTable, res, 80); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n >= 80 {
			t.Errorf("line %d is %d runes:\n%s", i+1, n, line)
		}
	}
	for _, want := range []string{"exports/cust", "00001.parquet", "7ffe8b3c1a02 ", "7ffe8b3c1a12 ", "f81d4fae-7de "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%q missing:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := FilerLs(&b, FormatWide, res, 80); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{key, "7ffe8b3c1a02d9f0c4e8b7a6d5c4b3a2", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "MTIME", "2026-10-25T18:00:00Z"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("-o wide lacks %q:\n%s", want, b.String())
		}
	}
}
