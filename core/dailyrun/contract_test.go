package dailyrun

import (
	"fmt"
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/filer/filertest"
)

// fakeStore, the store of the pass's unit tests, and loggedStore, the
// store of the replay-versus-walk differential, pass the contract the
// embedded filer passes (client/embedded TestStoreContract): a fake is
// the store, or the tests test the fake.
func TestFakeStoreContract(t *testing.T) {
	filertest.Run(t, filertest.Harness{New: func(t *testing.T, buckets []filertest.Bucket) filer.Store {
		st := newFakeStore()
		return fill(st, buckets, func(bucket string, u filer.Upload) { st.uploads[bucket] = append(st.uploads[bucket], u) })
	}, Ambiguate: ambiguate})
}

func TestLoggedStoreContract(t *testing.T) {
	filertest.Run(t, filertest.Harness{New: func(t *testing.T, buckets []filertest.Bucket) filer.Store {
		st := newLoggedStore()
		fill(st.fakeStore, buckets, func(bucket string, u filer.Upload) { st.initUpload(bucket, u.Key, u.UploadID, u.Initiated.UnixNano()) })
		return st
	}, Ambiguate: ambiguate})
}

// ambiguate makes a key unreadable as a store reports an ambiguous layout
// (keyErrs): the fakes hold versions, not entries.
func ambiguate(t *testing.T, s filertest.Subject, bucket, key string) {
	var f *fakeStore
	switch st := s.Store.(type) {
	case *fakeStore:
		f = st
	case *loggedStore:
		f = st.fakeStore
	default:
		t.Fatalf("ambiguate: %T is no fake", s.Store)
	}
	f.keyErrs = map[string]error{bucket + "/" + key: fmt.Errorf("%w: two entries carry version ID null", filer.ErrAmbiguousLayout)}
}

// fill writes the contract's buckets into st, each upload with upload,
// and sets st's clock to the contract's.
func fill(st *fakeStore, buckets []filertest.Bucket, upload func(bucket string, u filer.Upload)) *fakeStore {
	for _, b := range buckets {
		st.addBucket(b.Name, b.Versioning)
		st.buckets[len(st.buckets)-1].ObjectLock = b.ObjectLock
		for _, o := range b.Objects {
			for _, v := range o.Versions {
				st.put(b.Name, o.Key, v.ID, v.Mtime, v.Size)
				top := &st.objects[b.Name][o.Key].Versions[0]
				top.DeleteMarker, top.LegalHold, top.RetainUntil = v.DeleteMarker, v.LegalHold, v.RetainUntil
				if v.DeleteMarker {
					top.Size, top.ETag = 0, ""
				}
			}
		}
		for _, u := range b.Uploads {
			upload(b.Name, u)
		}
	}
	st.clockNs = filertest.Now.UnixNano()
	return st
}
