package seaweedfs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"google.golang.org/protobuf/proto"
)

// withNoise adds to e what a real meta-log entry carries and mapEvent
// does not read: chunks, attributes, content, other Extended attributes.
func withNoise(e *filer_pb.Entry) *filer_pb.Entry {
	if e == nil {
		return nil
	}
	e = proto.Clone(e).(*filer_pb.Entry)
	e.Chunks = []*filer_pb.FileChunk{{FileId: "3,01637037d6", Size: 3, ModifiedTsNs: 7}}
	e.Attributes = &filer_pb.FuseAttributes{Mtime: 5, FileSize: 3, Mime: "text/plain"}
	e.Content = []byte("abc")
	e.CommitTsNs = 99
	if e.Extended == nil {
		e.Extended = map[string][]byte{}
	}
	e.Extended["X-Amz-Tagging-team"] = []byte("a")
	e.Extended[extETag] = []byte(`"900150983cd24fb0d6963f7d28e17f72"`)
	return e
}

// The lean stream decoding gives mapEvent exactly what the full protobuf
// decoding gives it, for every kind of event, batched or not, and keeps
// nothing mapEvent does not read.
func TestEventCodecMatchesFullDecoding(t *testing.T) {
	upload := dir("u1", map[string]string{extMultipartObjectKey: "big/obj"})
	prefixDir := dir("p", map[string]string{extPrefixObject: "true"})
	cases := []struct {
		dir        string
		oldE, newE *filer_pb.Entry
		parent     string
	}{
		{"/buckets/b/a/k.versions", nil, file("v_"+idNew, 1, nil), ""},
		{"/buckets/b/k.versions", file("v_"+idNew, 1, nil), nil, ""},
		{"/buckets/b/k.versions", file("v_"+idOld, 1, nil), file("v_"+idOld, 1, map[string]string{extNoncurrentSinceNs: "9"}), ""},
		{"/buckets/b", dir("k.versions", map[string]string{extLatestVersionID: idOld}), dir("k.versions", map[string]string{extLatestVersionID: idNew}), ""},
		{"/buckets/b", dir("k.versions", nil), dir("k.versions", map[string]string{extLatestVersionID: idNew}), ""},
		{"/buckets/b/x", nil, file("y", 1, nil), ""},
		{"/buckets/b/x", file("y", 1, nil), file("y", 1, nil), "/buckets/b/z"},
		{"/buckets/b", nil, prefixDir, ""},
		{"/buckets/b/.uploads", nil, upload, ""},
		{"/buckets/b/.uploads", upload, nil, ""},
		{"/buckets/b/.uploads/u1", nil, file("0001_x.part", 1, nil), ""},
		{"/buckets/b/.uploads", nil, dir("u2", nil), ""},
		{"/etc/s3", nil, file("x", 1, nil), ""},
	}
	var batch []*filer_pb.SubscribeMetadataResponse
	for i, c := range cases {
		batch = append(batch, &filer_pb.SubscribeMetadataResponse{
			Directory: c.dir, TsNs: int64(100 + i),
			EventNotification: &filer_pb.EventNotification{OldEntry: withNoise(c.oldE), NewEntry: withNoise(c.newE),
				NewParentPath: c.parent, DeleteChunks: true, Signatures: []int32{1, 2}},
		})
	}
	full := &filer_pb.SubscribeMetadataResponse{
		Directory: batch[0].Directory, TsNs: batch[0].TsNs, EventNotification: batch[0].EventNotification,
		Events: batch[1:], FlushedTsNs: 12345,
		LogFileRefs: []*filer_pb.LogFileChunkRef{{FilerId: "f1", FileTsNs: 7}},
	}
	data, err := proto.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var lean filer_pb.SubscribeMetadataResponse
	if err := (eventCodec{}).Unmarshal(data, &lean); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	type mapped struct {
		Ev  string
		OK  bool
		Err string
	}
	mapAll := func(r *filer_pb.SubscribeMetadataResponse) []mapped {
		var out []mapped
		for _, x := range append([]*filer_pb.SubscribeMetadataResponse{r}, r.Events...) {
			ev, ok, err := mapEvent("/buckets", x)
			m := mapped{Ev: ev.Bucket + "|" + ev.Key + "|" + ev.VersionID + "|" + ev.UploadID + "|" + ev.Path + "|" + string(ev.Type), OK: ok}
			if err != nil {
				m.Err = err.Error()
			}
			m.Ev += "|" + string(rune('0'+x.TsNs%10))
			out = append(out, m)
		}
		return out
	}
	if d := cmp.Diff(mapAll(full), mapAll(&lean)); d != "" {
		t.Errorf("mapEvent over the lean decoding differs (-full +lean):\n%s", d)
	}
	if len(lean.Events) != len(batch)-1 || lean.TsNs != full.TsNs {
		t.Fatalf("lean: %d batched events, ts %d", len(lean.Events), lean.TsNs)
	}
	for _, x := range append([]*filer_pb.SubscribeMetadataResponse{&lean}, lean.Events...) {
		for _, e := range []*filer_pb.Entry{x.EventNotification.GetOldEntry(), x.EventNotification.GetNewEntry()} {
			if e == nil {
				continue
			}
			if e.Chunks != nil || e.Attributes != nil || e.Content != nil {
				t.Errorf("%s: kept chunks, attributes or content", e.Name)
			}
			for k := range e.Extended {
				if !eventExtended[k] {
					t.Errorf("%s: kept Extended %q", e.Name, k)
				}
			}
		}
	}
	if err := (eventCodec{}).Unmarshal(data[:len(data)-5], &filer_pb.SubscribeMetadataResponse{}); err == nil {
		t.Error("a truncated message decoded without an error")
	}
}

// BenchmarkEventDecode decodes one batched SubscribeMetadata response of
// 128 version events (each with a chunk, attributes and tags, as the
// filer sends them) with the full protobuf decoding and with eventCodec.
func BenchmarkEventDecode(b *testing.B) {
	full := &filer_pb.SubscribeMetadataResponse{}
	for i := 0; i < 128; i++ {
		r := &filer_pb.SubscribeMetadataResponse{Directory: "/buckets/b/k/000123.versions", TsNs: int64(i + 1),
			EventNotification: &filer_pb.EventNotification{
				OldEntry: withNoise(file("v_"+idOld, 1, map[string]string{extVersionID: idOld})),
				NewEntry: withNoise(file("v_"+idOld, 1, map[string]string{extVersionID: idOld, extNoncurrentSinceNs: "9"})),
			}}
		if i == 0 {
			full.Directory, full.TsNs, full.EventNotification = r.Directory, r.TsNs, r.EventNotification
			continue
		}
		full.Events = append(full.Events, r)
	}
	data, err := proto.Marshal(full)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("proto", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := proto.Unmarshal(data, &filer_pb.SubscribeMetadataResponse{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("eventCodec", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := (eventCodec{}).Unmarshal(data, &filer_pb.SubscribeMetadataResponse{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
