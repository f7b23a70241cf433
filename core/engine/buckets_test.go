package engine

import (
	"errors"
	"testing"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

func TestParseBuckets(t *testing.T) {
	good := `<LifecycleConfiguration><Rule><ID>r</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`
	bad := `<LifecycleConfiguration><Rule><ID>z</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Expiration><Days>0</Days></Expiration></Rule></LifecycleConfiguration>`
	ok, rejected := ParseBuckets([]filer.Bucket{
		{Name: "a", LifecycleXML: good, Versioning: filer.VersioningEnabled, ObjectLock: true},
		{Name: "none"},
		{Name: "odd", LifecycleXML: bad},
	})
	if len(ok) != 1 || ok[0].Name != "a" || len(ok[0].Rules) != 1 || !ok[0].ObjectLock || ok[0].Versioning != filer.VersioningEnabled {
		t.Fatalf("ok = %+v, want bucket a with its rule, versioning and lock", ok)
	}
	if len(rejected) != 1 || rejected[0].Bucket != "odd" {
		t.Fatalf("rejected = %+v, want bucket odd only", rejected)
	}
	var le *lifecycle.Error
	if !errors.As(&rejected[0], &le) {
		t.Errorf("rejection %v does not unwrap to the parser's *lifecycle.Error", &rejected[0])
	}
	if got := rejected[0].Error(); got != "bucket odd: "+rejected[0].Err.Error() {
		t.Errorf("Error() = %q", got)
	}
}
