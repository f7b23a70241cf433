package seaweedfs

import (
	"context"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// fakeFiler is an in-memory SeaweedFiler with the two read calls a walk
// makes (ListEntries, LookupDirectoryEntry), for unit tests of the
// store's listing logic. It counts calls and the most ListEntries in
// flight at once; gate, when set, runs inside every ListEntries of a
// directory it names, before the listing is answered.
type fakeFiler struct {
	filer_pb.SeaweedFilerClient // nil: any other call panics

	mu      sync.Mutex
	dirs    map[string][]*filer_pb.Entry // sorted by name
	failDir map[string]error
	lists   int
	lookups int
	flying  int
	maxFly  int
	gate    func(ctx context.Context, dir string) error
}

func newFakeFiler() *fakeFiler {
	return &fakeFiler{dirs: map[string][]*filer_pb.Entry{}, failDir: map[string]error{}}
}

// add puts e in dir, keeping dir sorted by name.
func (f *fakeFiler) add(dir string, e *filer_pb.Entry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	es := append(f.dirs[dir], e)
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	f.dirs[dir] = es
}

func (f *fakeFiler) store() *Store { return &Store{fc: f, bucketsPath: "/buckets"} }

func (f *fakeFiler) ListEntries(ctx context.Context, in *filer_pb.ListEntriesRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[filer_pb.ListEntriesResponse], error) {
	f.mu.Lock()
	f.lists++
	f.flying++
	f.maxFly = max(f.maxFly, f.flying)
	gate, err := f.gate, f.failDir[in.Directory]
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.flying--
		f.mu.Unlock()
	}()
	if gate != nil {
		if gerr := gate(ctx, in.Directory); gerr != nil {
			return nil, gerr
		}
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*filer_pb.ListEntriesResponse
	for _, e := range f.dirs[in.Directory] {
		if in.StartFromFileName != "" && (e.Name < in.StartFromFileName || e.Name == in.StartFromFileName && !in.InclusiveStartFrom) {
			continue
		}
		if !strings.HasPrefix(e.Name, in.Prefix) {
			continue
		}
		if in.Limit > 0 && len(out) == int(in.Limit) {
			break
		}
		out = append(out, &filer_pb.ListEntriesResponse{Entry: e})
	}
	return &fakeStream{resps: out}, nil
}

func (f *fakeFiler) LookupDirectoryEntry(_ context.Context, in *filer_pb.LookupDirectoryEntryRequest, _ ...grpc.CallOption) (*filer_pb.LookupDirectoryEntryResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	for _, e := range f.dirs[in.Directory] {
		if e.Name == in.Name {
			return &filer_pb.LookupDirectoryEntryResponse{Entry: e}, nil
		}
	}
	return nil, status.Error(codes.NotFound, "not found")
}

// fakeStream is a finished ListEntries stream.
type fakeStream struct {
	resps []*filer_pb.ListEntriesResponse
}

func (s *fakeStream) Recv() (*filer_pb.ListEntriesResponse, error) {
	if len(s.resps) == 0 {
		return nil, io.EOF
	}
	r := s.resps[0]
	s.resps = s.resps[1:]
	return r, nil
}
func (s *fakeStream) Header() (metadata.MD, error) { return nil, nil }
func (s *fakeStream) Trailer() metadata.MD         { return nil }
func (s *fakeStream) CloseSend() error             { return nil }
func (s *fakeStream) Context() context.Context     { return context.Background() }
func (s *fakeStream) SendMsg(any) error            { return nil }
func (s *fakeStream) RecvMsg(any) error            { return nil }
