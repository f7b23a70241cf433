package manualjob

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzDecodeManual(f *testing.F) {
	_ = filepath.WalkDir("../../testdata/ilm/pool-a/ilm/manual-transition", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeJob("k", b)
		_, _ = DecodeScope("k", b)
		_, _ = DecodeTask("k", b)
		_, _ = DecodeResult("k", b)
	})
}

func TestJobRoundTrip(t *testing.T) {
	var n int
	_ = filepath.WalkDir("../../testdata/ilm/pool-a/ilm/manual-transition/jobs", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel("../../testdata/ilm/pool-a", p)
		j, err := DecodeJob(filepath.ToSlash(rel), b)
		if err != nil {
			t.Fatal(err)
		}
		if string(j.Encode()) != string(b) {
			t.Fatal("re-encoding differs")
		}
		n++
		return nil
	})
	if n == 0 {
		t.Fatal("no job fixtures")
	}
}
