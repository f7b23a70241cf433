package seaweedfs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"
	"github.com/seaweedfs/seaweedfs/weed/pb/s3_lifecycle_pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// fakeLifecycle records LifecycleDelete requests and answers with outcome
// or err.
type fakeLifecycle struct {
	reqs    []*s3_lifecycle_pb.LifecycleDeleteRequest
	auth    []string
	outcome s3_lifecycle_pb.LifecycleDeleteOutcome
	err     error
}

func (f *fakeLifecycle) LifecycleDelete(ctx context.Context, in *s3_lifecycle_pb.LifecycleDeleteRequest, _ ...grpc.CallOption) (*s3_lifecycle_pb.LifecycleDeleteResponse, error) {
	f.reqs = append(f.reqs, in)
	md, _ := metadata.FromOutgoingContext(ctx)
	f.auth = append(f.auth, strings.Join(md.Get("authorization"), ","))
	if f.err != nil {
		return nil, f.err
	}
	return &s3_lifecycle_pb.LifecycleDeleteResponse{Outcome: f.outcome}, nil
}

// listedVersion is a version as the store lists it, with a head chunk and
// a tag.
func listedVersion(t *testing.T) (filer.Version, *filer_pb.Entry) {
	t.Helper()
	e := file("v_"+idNew, 100, map[string]string{"X-Amz-Tagging-env": "dev", extVersionID: idNew})
	e.Attributes.MtimeNs = 5
	e.Chunks = []*filer_pb.FileChunk{{FileId: "3,01637037d6"}}
	v, err := versionFromEntry(e, idNew)
	if err != nil {
		t.Fatal(err)
	}
	return v, e
}

// TestLifecycleDeleteSendsListedIdentity: the CAS witness sent is the one
// from the listing, not re-read (the store has no filer client here, so a
// re-read would fail the test by panicking).
func TestLifecycleDeleteSendsListedIdentity(t *testing.T) {
	v, e := listedVersion(t)
	lc := &fakeLifecycle{outcome: s3_lifecycle_pb.LifecycleDeleteOutcome_NOOP_RESOLVED}
	s := &Store{lc: lc, bucketsPath: "/buckets", auth: Auth{SigningKey: "k"}}
	out, err := s.LifecycleDelete(context.Background(), filer.DeleteRequest{
		Bucket: "b", Key: "a/k", Kind: lifecycle.NoncurrentDays, RuleID: "r", Expected: v.Identity(),
	})
	if err != nil || out != filer.OutcomeNoopResolved {
		t.Fatalf("LifecycleDelete = %s, %v", out, err)
	}
	if len(lc.reqs) != 1 {
		t.Fatalf("%d calls, want 1", len(lc.reqs))
	}
	type sent struct {
		Bucket, ObjectPath, VersionID string
		Kind                          s3_lifecycle_pb.ActionKind
		MtimeNs, Size                 int64
		HeadFid                       string
		ExtendedHash                  []byte
	}
	r := lc.reqs[0]
	got := sent{r.Bucket, r.ObjectPath, r.VersionId, r.ActionKind,
		r.GetExpectedIdentity().GetMtimeNs(), r.GetExpectedIdentity().GetSize(), r.GetExpectedIdentity().GetHeadFid(), r.GetExpectedIdentity().GetExtendedHash()}
	want := sent{"b", "a/k", idNew, s3_lifecycle_pb.ActionKind_NONCURRENT_DAYS, 100e9 + 5, 3, "3,01637037d6", hashExtended(e.Extended)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("request (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(lc.auth[0], "Bearer ") {
		t.Errorf("authorization %q, want a Bearer token", lc.auth[0])
	}
}

func TestLifecycleDeleteRefusesWithoutCall(t *testing.T) {
	v, _ := listedVersion(t)
	foreign := v.Identity()
	foreign.StoreToken = "" // as the embedded or s3 store would list it
	malformed := v.Identity()
	malformed.StoreToken = "not-a-token"
	noVersion := v.Identity()
	noVersion.VersionID = ""
	for _, tc := range []struct {
		name string
		kind string
		id   filer.Identity
	}{
		{"identity from another store", string(lifecycle.ExpirationDays), foreign},
		{"malformed token", string(lifecycle.ExpirationDays), malformed},
		{"no version id", string(lifecycle.ExpirationDays), noVersion},
		{"unknown kind", "Transition", v.Identity()},
		{"upload id with a slash", string(lifecycle.AbortMPU), filer.Identity{UploadID: "../x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := &fakeLifecycle{outcome: s3_lifecycle_pb.LifecycleDeleteOutcome_DONE}
			s := &Store{lc: lc, bucketsPath: "/buckets"}
			out, err := s.LifecycleDelete(context.Background(), filer.DeleteRequest{Bucket: "b", Key: "k", Kind: filer.ActionKind(tc.kind), Expected: tc.id})
			if err != nil || out != filer.OutcomeBlocked {
				t.Errorf("LifecycleDelete = %s, %v; want BLOCKED", out, err)
			}
			if len(lc.reqs) != 0 {
				t.Errorf("%d calls, want none", len(lc.reqs))
			}
		})
	}
}

func TestLifecycleDeleteOutcomes(t *testing.T) {
	v, _ := listedVersion(t)
	transport := errors.New("connection refused")
	for _, tc := range []struct {
		name    string
		lc      *fakeLifecycle
		want    filer.Outcome
		wantErr error
	}{
		{"done", &fakeLifecycle{outcome: s3_lifecycle_pb.LifecycleDeleteOutcome_DONE}, filer.OutcomeDone, nil},
		{"retry later", &fakeLifecycle{outcome: s3_lifecycle_pb.LifecycleDeleteOutcome_RETRY_LATER}, filer.OutcomeRetryLater, nil},
		{"object lock", &fakeLifecycle{outcome: s3_lifecycle_pb.LifecycleDeleteOutcome_SKIPPED_OBJECT_LOCK}, filer.OutcomeSkippedObjectLock, nil},
		{"transport error", &fakeLifecycle{err: transport}, "", transport},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Store{lc: tc.lc, bucketsPath: "/buckets"}
			out, err := s.LifecycleDelete(context.Background(), filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpirationDays, Expected: v.Identity()})
			if out != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("LifecycleDelete = %s, %v; want %s, %v", out, err, tc.want, tc.wantErr)
			}
		})
	}
	s := &Store{lc: &fakeLifecycle{outcome: s3_lifecycle_pb.LifecycleDeleteOutcome_LIFECYCLE_DELETE_OUTCOME_UNSPECIFIED}, bucketsPath: "/buckets"}
	if _, err := s.LifecycleDelete(context.Background(), filer.DeleteRequest{Bucket: "b", Key: "k", Kind: lifecycle.ExpirationDays, Expected: v.Identity()}); err == nil {
		t.Error("an unspecified outcome was accepted")
	}
}

// hangingLifecycle never answers: each call returns only when its context
// ends, with the context's error.
type hangingLifecycle struct{}

func (hangingLifecycle) LifecycleDelete(ctx context.Context, _ *s3_lifecycle_pb.LifecycleDeleteRequest, _ ...grpc.CallOption) (*s3_lifecycle_pb.LifecycleDeleteResponse, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestLifecycleDeleteNoAnswer: a call the server leaves unanswered fails
// with ErrNoAnswer once the call's deadline passes, an error the pass
// treats as a transport failure (not its own cancellation); a pass that
// is cancelled while waiting still gets its cancellation back.
func TestLifecycleDeleteNoAnswer(t *testing.T) {
	v, _ := listedVersion(t)
	req := filer.DeleteRequest{Bucket: "b", Key: "a/k", Kind: lifecycle.NoncurrentDays, RuleID: "r", Expected: v.Identity()}

	s := &Store{lc: hangingLifecycle{}, bucketsPath: "/buckets", deleteTimeout: 20 * time.Millisecond}
	_, err := s.LifecycleDelete(context.Background(), req)
	if !errors.Is(err, ErrNoAnswer) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("unanswered call: %v; want ErrNoAnswer, not a context error", err)
	}

	s.deleteTimeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.LifecycleDelete(ctx, req)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || errors.Is(err, ErrNoAnswer) {
		t.Errorf("cancelled pass: %v; want context.Canceled", err)
	}
}

// TestLifecycleDeleteRedecidesNoncurrent: a noncurrent kind with Applies
// is re-decided on a fresh filer read before the call (the server checks
// identity and position only, not a rank that fell); a current-version
// kind is not, as the identity and position the server checks pin all its
// rule reads.
func TestLifecycleDeleteRedecidesNoncurrent(t *testing.T) {
	yes := func(*filer.Object, int) bool { return true }
	no := func(*filer.Object, int) bool { return false }
	for _, tc := range []struct {
		name      string
		kind      lifecycle.ActionKind
		target    string // version decided on
		applies   func(*filer.Object, int) bool
		change    func(f *fakeFiler) // after the decision, before the delete
		want      filer.Outcome
		wantCalls int
		wantReads int
	}{
		{"noncurrent, still selected: sent", lifecycle.NoncurrentDays, idOld, yes, nil, filer.OutcomeDone, 1, 1},
		{"newer noncurrent, no longer selected: not sent", lifecycle.NewerNoncurrent, idOld, no, nil, filer.OutcomeNoopResolved, 0, 1},
		{"noncurrent without Applies: sent unread", lifecycle.NoncurrentDays, idOld, nil, nil, filer.OutcomeDone, 1, 0},
		{"noncurrent version gone: not sent", lifecycle.NoncurrentDays, idOld, yes, func(f *fakeFiler) {
			f.dirs["/buckets/b/k.versions"] = f.dirs["/buckets/b/k.versions"][:1]
		}, filer.OutcomeNoopResolved, 0, 1},
		{"noncurrent version retagged: not sent", lifecycle.NoncurrentDays, idOld, yes, func(f *fakeFiler) {
			f.dirs["/buckets/b/k.versions"][1].Extended["X-Amz-Tagging-env"] = []byte("prod")
		}, filer.OutcomeNoopResolved, 0, 1},
		{"expiration: the server's checks are the rule's, sent unread", lifecycle.ExpirationDays, idNew, no, nil, filer.OutcomeDone, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFiler()
			f.add("/buckets", dir("b", nil))
			f.add("/buckets/b", dir("k"+versionsSuffix, map[string]string{extLatestVersionID: idNew}))
			f.add("/buckets/b/k"+versionsSuffix, file(versionFileName(idNew), 200, map[string]string{extVersionID: idNew}))
			f.add("/buckets/b/k"+versionsSuffix, file(versionFileName(idOld), 100, map[string]string{extVersionID: idOld}))
			st := f.store()
			lc := &fakeLifecycle{outcome: s3_lifecycle_pb.LifecycleDeleteOutcome_DONE}
			st.lc, st.auth = lc, Auth{SigningKey: "k"}
			obj, found, err := st.LookupObject(context.Background(), "b", "k")
			if err != nil || !found {
				t.Fatalf("LookupObject: %v, %v", found, err)
			}
			i := slices.IndexFunc(obj.Versions, func(v filer.Version) bool { return v.VersionID == tc.target })
			if tc.change != nil {
				tc.change(f)
			}
			reads := f.lookups + f.lists
			out, err := st.LifecycleDelete(context.Background(), filer.DeleteRequest{Bucket: "b", Key: "k", Kind: tc.kind, Expected: obj.Versions[i].Identity(), Applies: tc.applies})
			if err != nil || out != tc.want {
				t.Errorf("LifecycleDelete = %s, %v; want %s", out, err, tc.want)
			}
			if len(lc.reqs) != tc.wantCalls {
				t.Errorf("%d calls, want %d", len(lc.reqs), tc.wantCalls)
			}
			if got := f.lookups + f.lists - reads; (got > 0) != (tc.wantReads > 0) {
				t.Errorf("%d filer reads before the call, want them %v", got, tc.wantReads > 0)
			}
		})
	}
}
