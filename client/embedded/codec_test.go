package embedded

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// TestRecordCodecMatchesStdlib: encode writes, byte for byte, what
// encoding/json writes for every record type, so a filer.db written by
// either reads the same.
func TestRecordCodecMatchesStdlib(t *testing.T) {
	retain := time.Date(2027, 3, 1, 12, 30, 0, 5, time.FixedZone("x", 3600))
	cases := []struct {
		name string
		v    any
	}{
		{"bucket", bucketRecord{Versioning: filer.VersioningEnabled, ObjectLock: true, LifecycleXML: "<LifecycleConfiguration><Rule>&amp;</Rule></LifecycleConfiguration>"}},
		{"bucket zero", bucketRecord{}},
		{"object empty", objectRecord{}},
		{"object", objectRecord{Versions: []versionRecord{
			{VersionID: "null", MtimeNs: 1795684763000000000, Size: 726167, ETag: "5f168fcbb7e3cd6f9797fc5ce24257c2"},
			{VersionID: "dm1", DeleteMarker: true, MtimeNs: -1},
			{VersionID: "v<&>\u2028\u2029é\x00", NoncurrentSinceNs: 1<<63 - 1, RetainUntil: retain, LegalHold: true,
				Tags: map[string]string{"z": "1", "a": "", "ü": "<b>"}, InternalMetadata: map[string]string{"x-rustfs-internal-a": "b"}, MetaGeneration: 1<<64 - 1},
			{VersionID: "bad utf8 \xff\xfe", ETag: "\"quoted\"", Tags: map[string]string{}},
		}}},
		{"upload", uploadRecord{InitiatedNs: 42}},
		{"event", eventRecord{Type: filer.EventPut, Bucket: "b", Key: "k/\"x\"", VersionID: "v"}},
		{"event upload", eventRecord{Type: filer.EventMPURemove, Bucket: "b", Key: "k", UploadID: "u"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := json.Marshal(c.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encode(c.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("encode:\n got %s\nwant %s", got, want)
			}
			back := reflect.New(reflect.TypeOf(c.v))
			if err := decode(c.name, got, back.Interface()); err != nil {
				t.Fatal(err)
			}
			std := reflect.New(reflect.TypeOf(c.v))
			if err := json.Unmarshal(want, std.Interface()); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Elem().Interface(), std.Elem().Interface()) {
				t.Errorf("decode:\n got %+v\nwant %+v", back.Elem().Interface(), std.Elem().Interface())
			}
		})
	}
}

// FuzzObjectRecordDecode: decode accepts exactly what encoding/json
// accepts, and reads it the same, for every record type, so a damaged record is refused (and its
// key fails closed) as it was before.
func FuzzObjectRecordDecode(f *testing.F) {
	for _, s := range []string{
		`{"versions":[{"version_id":"a","mtime_ns":1,"size":2,"etag":"e"}]}`,
		`{"versions":[{"version_id":"a","tags":{"k":"v"},"retain_until":"2027-01-01T00:00:00Z","legal_hold":true}]}`,
		`{"versions":null}`, `{}`, `null`, ``, `{"versions":[`, `{"versions":[{"mtime_ns":"1"}]}`,
		`{"versions":[{"mtime_ns":1e3}]}`, `{"versions":[{"size":-0}]}`, `{"versions":[{"version_id":"\ud800"}]}`,
		`{"versions":[]} x`, `{"versions":[{"retain_until":"not a time"}]}`, `{"versions":[{"meta_generation":-1}]}`,
		`{"Versions":[{"VERSION_ID":"case"}]}`, `{"versions":[{"version_id":"a","version_id":"b"}]}`,
		`{"versions":[{"tags":{"a":1}}]}`, `{"versions":[{"delete_marker":"true"}]}`, "{\"versions\":[{\"etag\":\"\xff\"}]}",
	} {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"type":"put","bucket":"b","key":"k","version_id":"v"}`, `{"type":"mpu_remove","bucket":"b","upload_id":"u"}`,
		`{"versioning":"Enabled","object_lock":true,"lifecycle_xml":"<a/>"}`, `{"initiated_ns":5}`, `{"type":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		same := func(got, want any) {
			t.Helper()
			gerr := decode("record", raw, got)
			werr := json.Unmarshal(raw, want)
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("%q into %T: decode error %v, encoding/json error %v", raw, got, gerr, werr)
			}
			if gerr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%q:\n got %+v\nwant %+v", raw, got, want)
			}
		}
		same(&objectRecord{}, &objectRecord{})
		same(&eventRecord{}, &eventRecord{})
		same(&bucketRecord{}, &bucketRecord{})
		same(&uploadRecord{}, &uploadRecord{})
	})
}
