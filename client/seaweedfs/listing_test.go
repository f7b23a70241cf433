package seaweedfs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ilmctl/ilmctl/core/filer"
)

// mixedBucket fills /buckets/b with n keys "k/000".."k/<n-1>": even ones
// versioned (a .versions directory with two version files, idNew latest),
// odd ones plain files. It returns each key's listing as "key:versionIDs".
func mixedBucket(f *fakeFiler, n int) []string {
	f.add("/buckets", dir("b", nil))
	f.add("/buckets/b", dir("k", nil))
	var want []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%03d", i)
		if i%2 == 1 {
			f.add("/buckets/b/k", file(name, 100, nil))
			want = append(want, "k/"+name+":null")
			continue
		}
		f.add("/buckets/b/k", dir(name+versionsSuffix, map[string]string{extLatestVersionID: idNew}))
		vdir := "/buckets/b/k/" + name + versionsSuffix
		f.add(vdir, file(versionFileName(idNew), 200, map[string]string{extVersionID: idNew}))
		f.add(vdir, file(versionFileName(idOld), 100, map[string]string{extVersionID: idOld}))
		want = append(want, "k/"+name+":"+idNew+","+idOld)
	}
	return want
}

// listAllPages lists bucket b page by page and returns "key:versionIDs"
// per object.
func listAllPages(ctx context.Context, t *testing.T, st *Store, limit int) ([]string, error) {
	t.Helper()
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("listing does not end")
		}
		objs, next, err := st.ListObjects(ctx, "b", after, limit)
		if err != nil {
			return got, err
		}
		if len(objs) > limit {
			t.Fatalf("page of %d objects, limit %d", len(objs), limit)
		}
		if next != "" && (len(objs) == 0 || next != objs[len(objs)-1].Key) {
			t.Fatalf("next %q is not the page's last key", next)
		}
		for _, o := range objs {
			var ids []string
			for _, v := range o.Versions {
				ids = append(ids, v.VersionID)
			}
			got = append(got, o.Key+":"+strings.Join(ids, ","))
		}
		if next == "" {
			return got, nil
		}
		after = next
	}
}

func TestListObjectsKeepsKeyOrderWithVersionListingsInFlight(t *testing.T) {
	for _, limit := range []int{1, 2, 7, listAhead, 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			f := newFakeFiler()
			want := mixedBucket(f, 41)
			got, err := listAllPages(context.Background(), t, f.store(), limit)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("keys (-want +got):\n%s", d)
			}
		})
	}
}

// A page's version listings run concurrently: every .versions listing
// waits until a second one is in flight, which a walk listing one key at a
// time never reaches (the test's deadline then fails it).
func TestListObjectsListsVersionsConcurrently(t *testing.T) {
	f := newFakeFiler()
	want := mixedBucket(f, 40)
	var mu sync.Mutex
	waiting := 0
	pair := make(chan struct{})
	f.gate = func(ctx context.Context, dir string) error {
		if !strings.HasSuffix(dir, versionsSuffix) {
			return nil
		}
		mu.Lock()
		waiting++
		if waiting == 2 {
			close(pair)
		}
		mu.Unlock()
		select {
		case <-pair:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := listAllPages(ctx, t, f.store(), 1000)
	if err != nil {
		t.Fatalf("listing: %v (the version listings never overlapped)", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("keys (-want +got):\n%s", d)
	}
	if f.maxFly < 2 || f.maxFly > listAhead {
		t.Errorf("at most %d listings in flight, want 2..%d", f.maxFly, listAhead)
	}
}

// A version listing that fails fails the page with its own error, not with
// the cancellation of the listings beside it; a key whose layout cannot be
// read carries its error and the rest of the page is listed.
func TestListObjectsVersionListingErrors(t *testing.T) {
	f := newFakeFiler()
	mixedBucket(f, 20)
	f.failDir["/buckets/b/k/010"+versionsSuffix] = status.Error(codes.Unavailable, "volume server down")
	_, err := listAllPages(context.Background(), t, f.store(), 1000)
	if err == nil || !strings.Contains(err.Error(), "volume server down") {
		t.Fatalf("err = %v, want the failed listing's error", err)
	}

	f = newFakeFiler()
	want := mixedBucket(f, 20)
	// k/004's .versions points at a version it does not hold.
	for _, e := range f.dirs["/buckets/b/k"] {
		if e.Name == "004"+versionsSuffix {
			e.Extended[extLatestVersionID] = []byte(idMid)
		}
	}
	objs, next, err := f.store().ListObjects(context.Background(), "b", "", 1000)
	if err != nil || next != "" {
		t.Fatalf("ListObjects: next %q, err %v", next, err)
	}
	if len(objs) != len(want) {
		t.Fatalf("%d objects, want %d", len(objs), len(want))
	}
	for i, o := range objs {
		if o.Key == "k/004" {
			if ke := filer.AsKeyError(o.Err); ke == nil {
				t.Errorf("k/004: Err = %v, want a KeyError", o.Err)
			}
			continue
		}
		if o.Err != nil || !strings.HasPrefix(want[i], o.Key+":") {
			t.Errorf("object %d: %s err %v, want %s", i, o.Key, o.Err, want[i])
		}
	}
}
