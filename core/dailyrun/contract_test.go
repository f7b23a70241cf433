package dailyrun

import (
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/filer/filertest"
)

// loggedStore, the store of the replay-versus-walk differential, passes
// the contract the embedded filer passes (client/embedded
// TestStoreContract): a fake is the store, or the differential tests the
// fake.
func TestLoggedStoreContract(t *testing.T) {
	filertest.Run(t, filertest.Harness{New: func(t *testing.T, buckets []filertest.Bucket) filer.Store {
		st := newLoggedStore()
		for _, b := range buckets {
			st.addBucket(b.Name, b.Versioning)
			st.buckets[len(st.buckets)-1].ObjectLock = b.ObjectLock
			for _, o := range b.Objects {
				for _, v := range o.Versions {
					st.put(b.Name, o.Key, v.ID, v.Mtime, v.Size)
					top := &st.objects[b.Name][o.Key].Versions[0]
					top.DeleteMarker, top.LegalHold = v.DeleteMarker, v.LegalHold
					if v.DeleteMarker {
						top.Size, top.ETag = 0, ""
					}
				}
			}
			for _, u := range b.Uploads {
				st.initUpload(b.Name, u.Key, u.UploadID, u.Initiated.UnixNano())
			}
		}
		st.clockNs = filertest.Now.UnixNano()
		return st
	}})
}
