package seaweedfs

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"

	"github.com/ilmctl/ilmctl/core/filer"
)

func TestMapEvent(t *testing.T) {
	const ts = 42
	upload := dir("u1", map[string]string{extMultipartObjectKey: "big/obj"})
	tests := []struct {
		name    string
		dir     string
		oldE    *filer_pb.Entry
		newE    *filer_pb.Entry
		want    *filer.Event
		wantErr error
	}{
		{"version created", "/buckets/b/a/k.versions", nil, file("v_"+idNew, 1, nil),
			&filer.Event{Type: filer.EventPut, Bucket: "b", Key: "a/k", VersionID: idNew, Path: "a/k.versions/v_" + idNew}, nil},
		{"version removed", "/buckets/b/k.versions", file("v_"+idNew, 1, nil), nil,
			&filer.Event{Type: filer.EventRemove, Bucket: "b", Key: "k", VersionID: idNew, Path: "k.versions/v_" + idNew}, nil},
		{"version stamped noncurrent", "/buckets/b/k.versions", file("v_"+idOld, 1, nil), file("v_"+idOld, 1, map[string]string{extNoncurrentSinceNs: "9"}),
			&filer.Event{Type: filer.EventDemote, Bucket: "b", Key: "k", VersionID: idOld, Path: "k.versions/v_" + idOld}, nil},
		{"version retagged", "/buckets/b/k.versions", file("v_"+idOld, 1, nil), file("v_"+idOld, 1, map[string]string{"X-Amz-Tagging-a": "b"}),
			&filer.Event{Type: filer.EventPut, Bucket: "b", Key: "k", VersionID: idOld, Path: "k.versions/v_" + idOld}, nil},
		{"pointer moved", "/buckets/b", dir("k.versions", map[string]string{extLatestVersionID: idOld}), dir("k.versions", map[string]string{extLatestVersionID: idNew}),
			&filer.Event{Type: filer.EventDemote, Bucket: "b", Key: "k", VersionID: idOld, Path: "k.versions"}, nil},
		{"pointer set over the null version", "/buckets/b", dir("k.versions", nil), dir("k.versions", map[string]string{extLatestVersionID: idNew}),
			&filer.Event{Type: filer.EventDemote, Bucket: "b", Key: "k", VersionID: "null", Path: "k.versions"}, nil},
		{"pointer unchanged", "/buckets/b", dir("k.versions", map[string]string{extLatestVersionID: idNew}), dir("k.versions", map[string]string{extLatestVersionID: idNew}), nil, nil},
		{"versions dir created", "/buckets/b", nil, dir("k.versions", map[string]string{extLatestVersionID: idNew}), nil, nil},
		{"bare object put", "/buckets/b/x", nil, file("y", 1, nil),
			&filer.Event{Type: filer.EventPut, Bucket: "b", Key: "x/y", VersionID: "null"}, nil},
		{"bare object deleted", "/buckets/b", file("y", 1, nil), nil,
			&filer.Event{Type: filer.EventRemove, Bucket: "b", Key: "y", VersionID: "null"}, nil},
		{"plain directory", "/buckets/b", nil, dir("x", nil), nil, nil},
		{"upload initiated", "/buckets/b/.uploads", nil, upload,
			&filer.Event{Type: filer.EventMPUInit, Bucket: "b", Key: "big/obj", UploadID: "u1", Path: ".uploads/u1"}, nil},
		{"upload removed", "/buckets/b/.uploads", upload, nil,
			&filer.Event{Type: filer.EventMPURemove, Bucket: "b", Key: "big/obj", UploadID: "u1", Path: ".uploads/u1"}, nil},
		{"upload part", "/buckets/b/.uploads/u1", nil, file("0001_x.part", 1, nil), nil, nil},
		{"upload without key", "/buckets/b/.uploads", nil, dir("u2", nil), nil, ErrBadEntry},
		{"bucket created", "/buckets", nil, dir("b", nil), nil, nil},
		{"outside buckets", "/etc/s3", nil, file("x", 1, nil), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &filer_pb.SubscribeMetadataResponse{Directory: tc.dir, TsNs: ts, EventNotification: &filer_pb.EventNotification{OldEntry: tc.oldE, NewEntry: tc.newE}}
			got, ok, err := mapEvent("/buckets", r)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if tc.want == nil {
				if ok {
					t.Errorf("mapped to %+v, want nothing", got)
				}
				return
			}
			tc.want.TsNs = ts
			if d := cmp.Diff(*tc.want, got); !ok || d != "" {
				t.Errorf("ok=%v (-want +got):\n%s", ok, d)
			}
		})
	}
}
