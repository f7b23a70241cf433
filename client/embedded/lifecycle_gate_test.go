package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// The loader judges lifecycle documents with the lifecycle parser alone:
// it stores every document as given, loads the fixture, and reports the
// parser's verdict for each document the parser rejects, exactly as a pass
// will see it.
func TestLoadJudgesLifecycleXMLWithTheParser(t *testing.T) {
	const rule = `<Rule><ID>r</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`
	for _, tc := range []struct {
		name string
		doc  string
		want string // the verdict's message; "" when accepted
	}{
		{"no configuration", "", ""},
		{"LifecycleConfiguration", `<LifecycleConfiguration>` + rule + `</LifecycleConfiguration>`, ""},
		{"BucketLifecycleConfiguration root", `<BucketLifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + rule + `</BucketLifecycleConfiguration>`, ""},
		{"byte order mark and declaration", "\uFEFF" + `<?xml version="1.0" encoding="UTF-8"?><LifecycleConfiguration>` + rule + `</LifecycleConfiguration>`, ""},
		{"transition-only rule", `<LifecycleConfiguration><Rule><ID>t</ID><Filter/><Status>Enabled</Status><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition></Rule></LifecycleConfiguration>`, ""},
		{"unclosed", `<LifecycleConfiguration><Rule>`, "MalformedXML: "},
		{"other root", `<Tagging/>`, "MalformedXML: root element is <Tagging>, want <LifecycleConfiguration> or <BucketLifecycleConfiguration>"},
		{"declared Latin-1", `<?xml version="1.0" encoding="ISO-8859-1"?><LifecycleConfiguration>` + rule + `</LifecycleConfiguration>`, `MalformedXML: the document declares encoding "ISO-8859-1"`},
		{"whitespace only", "  \n", "MalformedXML: document has no root element"},
		{"rule the parser refuses", `<LifecycleConfiguration><Rule><ID>r</ID><Filter/><Status>Enabled</Status><Expiration><Days>0</Days></Expiration></Rule></LifecycleConfiguration>`, `InvalidArgument: rule "r": Expiration Days is 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := json.Marshal(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			f := openTest(t, Options{})
			sum := loadTest(t, f, `{"buckets":[{"name":"a"},{"name":"b","versioning":"Enabled","lifecycle_xml":`+string(doc)+`,
				"objects":[{"key":"k","versions":[{"mtime":"2026-01-01T00:00:00Z"}]}]}]}`)
			if sum.Buckets != 2 || sum.Objects != 1 {
				t.Fatalf("summary %+v: the fixture was not loaded whole", sum)
			}
			_, parseErr := lifecycle.Parse([]byte(tc.doc))
			switch {
			case tc.want == "":
				if len(sum.Rejected) != 0 {
					t.Fatalf("rejected %+v, want none", sum.Rejected)
				}
			case len(sum.Rejected) != 1 || sum.Rejected[0].Bucket != "b":
				t.Fatalf("rejected %+v, want bucket b", sum.Rejected)
			case !strings.HasPrefix(sum.Rejected[0].Err.Error(), tc.want):
				t.Errorf("verdict %q, want it to begin %q", sum.Rejected[0].Err, tc.want)
			case tc.doc != "" && (parseErr == nil || sum.Rejected[0].Err.Error() != parseErr.Error()):
				t.Errorf("verdict %q differs from the parser's %v", sum.Rejected[0].Err, parseErr)
			}
			var le *lifecycle.Error
			if tc.want != "" && !errors.As(sum.Rejected[0].Err, &le) {
				t.Errorf("verdict %v is not a *lifecycle.Error", sum.Rejected[0].Err)
			}
			bs, err := f.ListBuckets(context.Background())
			if err != nil || len(bs) != 2 {
				t.Fatalf("ListBuckets = %+v, %v", bs, err)
			}
			if bs[1].LifecycleXML != tc.doc {
				t.Errorf("stored document %q, want it as given %q", bs[1].LifecycleXML, tc.doc)
			}
		})
	}
}
