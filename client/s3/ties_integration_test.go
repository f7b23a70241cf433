//go:build integration

package s3_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/internal/itest"
)

// tiedVersion is one version to write: its mtime, and whether it goes in
// while the bucket is Suspended (a null version).
type tiedVersion struct {
	at   time.Time
	null bool
}

// writeAt writes key's versions in order, each with LastModified at its
// mtime: on MinIO through MinIO's source-mtime header, on SeaweedFS by
// rewriting the entry's mtime through the filer. Versions written in the
// same second keep their write order in the listing. It returns
// "key@versionID" of each, in write order.
func writeAt(t *testing.T, c *itest.S3, bucket, key string, vs []tiedVersion) []string {
	t.Helper()
	var fs interface {
		SetVersionMtime(context.Context, string, string, string, time.Time) error
	}
	if itest.ServerEnv(t) == itest.SeaweedFS {
		fs = itest.OpenFiler(t, itest.FilerEnv(t))
	}
	var ids []string
	for _, v := range vs {
		if v.null {
			c.PutVersioning(t, bucket, "Suspended")
		}
		id, _ := c.AtMtime(v.at).PutObject(t, bucket, key, "x", nil)
		if v.null {
			c.PutVersioning(t, bucket, "Enabled")
		}
		if v.null {
			id = "null"
		}
		if fs != nil {
			if err := fs.SetVersionMtime(context.Background(), bucket, key, id, v.at); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, key+"@"+id)
	}
	return ids
}

// Versions that share a LastModified second are ordinary (S3 timestamps
// carry whole seconds); the listing's own order says which came first, so
// a pass acts on such keys and halts nothing. Ties of two and of three
// noncurrent versions are expired like any others. A null version that
// the listing puts last while it shares its second with another
// noncurrent version has an unknown place (SeaweedFS lists null last
// wherever it belongs): that key alone gets no action from ilmctl and is
// counted in ambiguous_keys; the pass still ends ok.
func TestSameSecondVersionsOnS3(t *testing.T) {
	c := itest.FromEnv(t)
	b := c.CreateBucket(t, "s3-ties")
	c.PutVersioning(t, b, "Enabled")
	c.PutLifecycleXML(t, b, lifecycleXML(`<Rule><ID>nc1</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`))
	base := time.Now().Add(-10 * day).Truncate(time.Second)
	sec := func(d time.Duration) time.Time { return base.Add(d) }
	two := writeAt(t, c, b, "two", []tiedVersion{{at: sec(0)}, {at: sec(day + 200*time.Millisecond)}, {at: sec(day + 700*time.Millisecond)}, {at: sec(2 * day)}})
	three := writeAt(t, c, b, "three", []tiedVersion{{at: sec(100 * time.Millisecond)}, {at: sec(400 * time.Millisecond)}, {at: sec(800 * time.Millisecond)}, {at: sec(day)}})
	nullTied := writeAt(t, c, b, "null-tied", []tiedVersion{{at: sec(100 * time.Millisecond), null: true}, {at: sec(600 * time.Millisecond)}, {at: sec(day)}})
	before, _ := c.ListAll(t, b)

	rep := runPass(t, time.Now(), t.TempDir())
	if rep.Status != "ok" {
		t.Errorf("status %s, want ok: tied seconds must not halt a shard", rep.Status)
	}
	for _, a := range rep.Actions {
		if a.Key == "null-tied" && a.Outcome == "DONE" {
			t.Errorf("a delete on the ambiguous key was done: %+v", a)
		}
	}
	after, _ := c.ListAll(t, b)
	want := []string{two[3], three[3]}
	if itest.ServerEnv(t) == itest.SeaweedFS {
		// MinIO runs its own lifecycle on the same rules and may expire
		// null-tied itself; SeaweedFS's gateway does not.
		if rep.AmbiguousKeys != 1 {
			t.Errorf("ambiguous_keys %d, want 1 (null-tied); notices %+v", rep.AmbiguousKeys, rep.Notices)
		}
		want = append(want, nullTied...)
	} else {
		after = slices.DeleteFunc(after, func(v string) bool { return slices.Contains(nullTied, v) })
	}
	slices.Sort(want)
	if !slices.Equal(after, want) {
		t.Errorf("left %v, want %v (before: %v)", after, want, before)
	}
}
