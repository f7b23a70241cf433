//go:build integration

// Integration tests of the S3 metadata-pool store (s3://host:port/bucket
// [/prefix]) against a real S3 endpoint: the S3 gateway of the SeaweedFS
// that scripts/seaweedfs.sh starts (`make test-integration`).
// ILMCTL_IT_S3=host:port, ILMCTL_IT_ACCESS_KEY and ILMCTL_IT_SECRET_KEY
// name it; a run without them fails rather than skips. The store resolves
// credentials through the SDK default chain (client/awsconf), so each test
// hands it the keys as AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.
package metastore_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/client/metastore"
	journalcmd "github.com/ilmctl/ilmctl/commands/journal"
	corejournal "github.com/ilmctl/ilmctl/core/journal"
	core "github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/internal/itest"
)

const (
	poolA = "../../testdata/ilm/pool-a"
	// fixtureNow is the instant the committed fixtures are classified at
	// (commands/journal's tests use the same).
	fixtureNow = "2025-06-15T15:06:40Z"
)

// openS3 returns the admin client, a fresh bucket (removed when the test
// ends) and the store for s3://endpoint/bucket[/prefix], with the store's
// credentials in the environment.
func openS3(t *testing.T, prefix string) (*itest.S3, string, *metastore.S3) {
	t.Helper()
	endpoint, access, secret := itest.S3Env(t)
	setCreds(t, access, secret)
	admin := itest.NewClient(endpoint, access, secret)
	bucket := admin.CreateBucket(t, "ilmctl-meta")
	url := "s3://" + endpoint + "/" + bucket
	if prefix != "" {
		url += "/" + prefix
	}
	s, err := metastore.OpenS3(t.Context(), url)
	if err != nil {
		t.Fatalf("OpenS3(%s): %v", url, err)
	}
	if s.Name() != url {
		t.Fatalf("Name() = %q, want %q", s.Name(), url)
	}
	return admin, bucket, s
}

func setCreds(t *testing.T, access, secret string) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// mustGet is a Get that must succeed with want.
func mustGet(t *testing.T, s core.Store, key string, want []byte) string {
	t.Helper()
	b, etag, err := s.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("Get(%s) = %q, want %q", key, b, want)
	}
	if etag == "" || strings.Contains(etag, `"`) {
		t.Fatalf("Get(%s) ETag %q: want a non-empty unquoted ETag", key, etag)
	}
	return etag
}

// TestS3ConditionalOps walks one key through the store's write contract:
// create-only, ETag CAS and ETag-conditional delete, each with its failing
// case, with a strong read after every step. On MinIO, which ignores
// If-Match on DeleteObject, every conditional delete is refused instead
// and the key stays.
func TestS3ConditionalOps(t *testing.T) {
	ctx := t.Context()
	admin, bucket, s := openS3(t, "meta/pool0")
	const key = "ilm/tier-delete-journal/x.json"
	full := "meta/pool0/" + key

	if _, _, err := s.Get(ctx, key); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}

	// Create-only: once.
	v1 := []byte(`{"v":1}`)
	e1, err := s.PutIfAbsent(ctx, key, v1)
	if err != nil {
		t.Fatalf("PutIfAbsent (first): %v", err)
	}
	if e1 == "" || strings.Contains(e1, `"`) {
		t.Fatalf("PutIfAbsent ETag %q: want non-empty, unquoted", e1)
	}
	if got := mustGet(t, s, key, v1); got != e1 {
		t.Fatalf("Get ETag %q != PutIfAbsent ETag %q", got, e1)
	}
	t.Logf("server ETag for %q: %s (md5 %s)", v1, e1, md5hex(v1))

	// The key lands under the pool prefix, nowhere else.
	if vs, _ := admin.ListAll(t, bucket); len(vs) != 1 || !strings.HasPrefix(vs[0], full+"@") {
		t.Fatalf("bucket holds %v, want only %s", vs, full)
	}

	// Create-only: the second create fails typed, and changes nothing.
	_, err = s.PutIfAbsent(ctx, key, []byte(`{"v":"second"}`))
	if !errors.Is(err, core.ErrExists) {
		t.Fatalf("PutIfAbsent (second): %v, want ErrExists", err)
	}
	if !strings.Contains(err.Error(), s.Name()) || !strings.Contains(err.Error(), key) {
		t.Errorf("PutIfAbsent error %q does not name the pool and key", err)
	}
	if got := mustGet(t, s, key, v1); got != e1 {
		t.Fatalf("after the failed create: ETag %q, want %q", got, e1)
	}

	// CAS: a stale / made-up ETag fails and changes nothing.
	v2 := []byte(`{"v":2}`)
	for _, bad := range []string{md5hex([]byte("not the content")), "stale"} {
		if _, err := s.PutIfMatch(ctx, key, v2, bad); !errors.Is(err, core.ErrPreconditionFailed) {
			t.Fatalf("PutIfMatch with ETag %q: %v, want ErrPreconditionFailed", bad, err)
		}
	}
	mustGet(t, s, key, v1)

	// CAS: the current ETag wins; the strong read sees the new bytes at once.
	e2, err := s.PutIfMatch(ctx, key, v2, e1)
	if err != nil {
		t.Fatalf("PutIfMatch with the current ETag: %v", err)
	}
	if e2 == "" || e2 == e1 {
		t.Fatalf("PutIfMatch ETag %q (previous %q): want a new ETag", e2, e1)
	}
	if got := mustGet(t, s, key, v2); got != e2 {
		t.Fatalf("Get ETag %q != PutIfMatch ETag %q", got, e2)
	}

	// CAS: the ETag that just lost its race is stale now.
	if _, err := s.PutIfMatch(ctx, key, []byte(`{"v":3}`), e1); !errors.Is(err, core.ErrPreconditionFailed) {
		t.Fatalf("PutIfMatch with the replaced ETag: %v, want ErrPreconditionFailed", err)
	}
	mustGet(t, s, key, v2)

	if itest.ServerEnv(t) == itest.MinIO {
		// MinIO ignores If-Match on DeleteObject: the store's probe finds
		// that out and it sends no delete, whatever the ETag.
		for _, etag := range []string{e1, e2} {
			if err := s.DeleteIfMatch(ctx, key, etag); !errors.Is(err, core.ErrConditionalDeleteUnsupported) {
				t.Fatalf("DeleteIfMatch with ETag %s on MinIO: %v, want ErrConditionalDeleteUnsupported", etag, err)
			}
		}
		mustGet(t, s, key, v2)
		if vs, _ := admin.ListAll(t, bucket); len(vs) != 1 || !strings.HasPrefix(vs[0], full+"@") {
			t.Fatalf("bucket after the refused deletes holds %v, want only %s (no probe left)", vs, full)
		}
		return
	}

	// Conditional delete: a stale ETag fails and the key stays.
	if err := s.DeleteIfMatch(ctx, key, e1); !errors.Is(err, core.ErrPreconditionFailed) {
		t.Fatalf("DeleteIfMatch with a stale ETag: %v, want ErrPreconditionFailed", err)
	}
	mustGet(t, s, key, v2)

	// Conditional delete: the current ETag removes it.
	if err := s.DeleteIfMatch(ctx, key, e2); err != nil {
		t.Fatalf("DeleteIfMatch with the current ETag: %v", err)
	}
	if _, _, err := s.Get(ctx, key); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("Get after delete: %v, want ErrNotFound", err)
	}
	if vs, _ := admin.ListAll(t, bucket); len(vs) != 0 {
		t.Fatalf("bucket after delete holds %v", vs)
	}

	// On a missing key neither CAS nor conditional delete may succeed
	// (and CAS must not create it).
	if _, err := s.PutIfMatch(ctx, key, v2, e2); err == nil {
		t.Fatal("PutIfMatch on a deleted key succeeded")
	} else if !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("PutIfMatch on a missing key: %v, want ErrNotFound", err)
	}
	if _, _, err := s.Get(ctx, key); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("PutIfMatch on a missing key created it: %v", err)
	}
	if err := s.DeleteIfMatch(ctx, key, e2); err == nil {
		t.Fatal("DeleteIfMatch on a deleted key succeeded")
	} else if !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("DeleteIfMatch on a missing key: %v, want ErrNotFound", err)
	}

	// Create-only works again once the key is gone.
	e3, err := s.PutIfAbsent(ctx, key, v1)
	if err != nil {
		t.Fatalf("PutIfAbsent after delete: %v", err)
	}
	if got := mustGet(t, s, key, v1); got != e3 {
		t.Fatalf("Get ETag %q != PutIfAbsent ETag %q", got, e3)
	}
}

// TestS3WriteContract runs the write-contract table the dir: store passes
// (contract_test.go) against the s3:// store on the real server.
func TestS3WriteContract(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "the contract's deletes need If-Match honoured on DeleteObject; on MinIO the store refuses them (TestS3ConditionalOps)")
	_, _, s := openS3(t, "contract")
	writeContract(t, s)
}

// TestS3Actor: the actor is the credentials' access key ID, never the
// secret.
func TestS3Actor(t *testing.T) {
	_, _, s := openS3(t, "")
	_, access, secret := itest.S3Env(t)
	a, err := metastore.Actor(t.Context(), s)
	if err != nil || a != "access-key:"+access || strings.Contains(a, secret) {
		t.Fatalf("Actor = %q, %v; want access-key:%s", a, err, access)
	}
}

// TestS3ConcurrentConditionalWrites races writers on one key: of N
// create-only puts exactly one wins, and of N CAS puts from the same ETag
// exactly one wins; every create loser gets ErrExists and every CAS loser
// ErrPreconditionFailed.
func TestS3ConcurrentConditionalWrites(t *testing.T) {
	ctx := t.Context()
	_, _, s := openS3(t, "race")
	const key, n = "ilm/transition-transactions/race.json", 8

	race := func(lose error, op func(i int) (string, error)) (wins []int, etags []string) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		losers := map[string]int{}
		begin := time.Now()
		defer func() { t.Logf("losers after %v: %v", time.Since(begin).Round(time.Millisecond), losers) }()
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				etag, err := op(i)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins, etags = append(wins, i), append(etags, etag)
				case errors.Is(err, lose):
					losers[err.Error()]++
				default:
					t.Errorf("writer %d: %v, want success or %v", i, err, lose)
				}
			}()
		}
		close(start)
		wg.Wait()
		return wins, etags
	}
	body := func(round string, i int) []byte { return []byte(fmt.Sprintf(`{"round":%q,"writer":%d}`, round, i)) }

	// A new bucket's first write makes SeaweedFS grow volumes (seconds);
	// get it out of the way so the racers meet at the conditional check.
	if _, err := s.PutIfAbsent(ctx, "ilm/warm-up.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	wins, etags := race(core.ErrExists, func(i int) (string, error) { return s.PutIfAbsent(ctx, key, body("create", i)) })
	if len(wins) != 1 {
		t.Fatalf("create-only race: writers %v all succeeded, want exactly one", wins)
	}
	if got := mustGet(t, s, key, body("create", wins[0])); got != etags[0] {
		t.Fatalf("winner's ETag %q, stored %q", etags[0], got)
	}

	cur := etags[0]
	wins, etags = race(core.ErrPreconditionFailed, func(i int) (string, error) { return s.PutIfMatch(ctx, key, body("cas", i), cur) })
	if len(wins) != 1 {
		t.Fatalf("CAS race from one ETag: writers %v all succeeded, want exactly one", wins)
	}
	if got := mustGet(t, s, key, body("cas", wins[0])); got != etags[0] {
		t.Fatalf("winner's ETag %q, stored %q", etags[0], got)
	}
}

// TestS3PagedList lists more keys than one page, through core.ListAll at
// several page sizes, and checks every key under the prefix comes back
// exactly once, in order, with its ETag and size, and nothing else does:
// not the pool prefix's siblings, not another pool in the same bucket, not
// keys of the pool outside the listed prefix.
func TestS3PagedList(t *testing.T) {
	ctx := t.Context()
	admin, bucket, s := openS3(t, "pools/p1")

	want := map[string][]byte{}
	for i := range 23 {
		k := fmt.Sprintf("ilm/ns%d/%03d.json", i%3, i)
		want[k] = []byte(fmt.Sprintf(`{"i":%d}`, i))
	}
	// Keys that need escaping on the wire must round-trip too.
	for _, k := range []string{"ilm/odd/sp ace+plus%25.json", "ilm/odd/ünï/çødé.json"} {
		want[k] = []byte(k)
	}
	for k, b := range want {
		if _, err := s.PutIfAbsent(ctx, k, b); err != nil {
			t.Fatalf("PutIfAbsent(%s): %v", k, err)
		}
	}
	// In the pool but outside "ilm/". (Not the bare key "ilm": SeaweedFS
	// stores keys as filer paths, so a key cannot also be the "directory"
	// of other keys; it answers such a create-only put with 412.)
	for _, k := range []string{"ilm.json", "ilmx/a.json", "other/ilm/a.json"} {
		if _, err := s.PutIfAbsent(ctx, k, []byte("outside")); err != nil {
			t.Fatalf("PutIfAbsent(%s): %v", k, err)
		}
	}
	// Outside the pool, in the same bucket.
	for _, k := range []string{"pools/p1x/ilm/a.json", "pools/p10/ilm/a.json", "pools/ilm/a.json", "ilm/a.json", "pools/p1.json"} {
		admin.PutObject(t, bucket, k, "other pool", nil)
	}

	wantKeys := make([]string, 0, len(want))
	for k := range want {
		wantKeys = append(wantKeys, k)
	}
	sort.Strings(wantKeys)

	for _, size := range []int{1, 4, 7, len(want) - 1, len(want), 1000} {
		t.Run(fmt.Sprintf("page%d", size), func(t *testing.T) {
			var got []string
			pages := 0
			err := core.ListAll(ctx, s, "ilm/", size, func(objs []core.Object) error {
				pages++
				if len(objs) > size {
					t.Errorf("page %d has %d objects, more than the limit %d", pages, len(objs), size)
				}
				for _, o := range objs {
					got = append(got, o.Key)
					b, ok := want[o.Key]
					if !ok {
						continue
					}
					if o.ETag == "" || strings.Contains(o.ETag, `"`) {
						t.Errorf("%s: listed ETag %q: want non-empty, unquoted", o.Key, o.ETag)
					}
					if o.Size != int64(len(b)) {
						t.Errorf("%s: size %d, want %d", o.Key, o.Size, len(b))
					}
					if o.LastModified.IsZero() {
						t.Errorf("%s: zero LastModified", o.Key)
					}
					if _, etag, err := s.Get(ctx, o.Key); err != nil || etag != o.ETag {
						t.Errorf("%s: listed ETag %q, Get ETag %q (%v)", o.Key, o.ETag, etag, err)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("ListAll(page %d): %v", size, err)
			}
			if strings.Join(got, "\n") != strings.Join(wantKeys, "\n") {
				t.Fatalf("ListAll(page %d) returned %d keys:\n%s\nwant %d:\n%s", size, len(got), strings.Join(got, "\n"), len(wantKeys), strings.Join(wantKeys, "\n"))
			}
			if wantPages := (len(want) + size - 1) / size; pages < wantPages || pages > wantPages+1 {
				t.Errorf("ListAll(page %d) took %d pages, want %d (or one more, empty)", size, pages, wantPages)
			}
		})
	}

	// One page by hand: truncated with a token, and the token moves on.
	p1, err := s.List(ctx, "ilm/", "", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Objects) != 5 || !p1.Truncated || p1.NextToken == "" {
		t.Fatalf("first page of 5: %d objects, truncated %v, token %q", len(p1.Objects), p1.Truncated, p1.NextToken)
	}
	p2, err := s.List(ctx, "ilm/", p1.NextToken, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Objects) == 0 || p2.Objects[0].Key <= p1.Objects[4].Key {
		t.Fatalf("second page does not follow the first: %v after %v", p2.Objects, p1.Objects)
	}

	// A narrower prefix inside the pool.
	var ns1 []string
	if err := core.ListAll(ctx, s, "ilm/ns1/", 2, func(objs []core.Object) error {
		for _, o := range objs {
			ns1 = append(ns1, o.Key)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var wantNS1 []string
	for _, k := range wantKeys {
		if strings.HasPrefix(k, "ilm/ns1/") {
			wantNS1 = append(wantNS1, k)
		}
	}
	if strings.Join(ns1, ",") != strings.Join(wantNS1, ",") {
		t.Fatalf("ListAll(ilm/ns1/) = %v, want %v", ns1, wantNS1)
	}

	// An empty prefix lists the whole pool and nothing outside it.
	var all []string
	if err := core.ListAll(ctx, s, "", 3, func(objs []core.Object) error {
		for _, o := range objs {
			all = append(all, o.Key)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want)+3 {
		t.Fatalf("ListAll(\"\") = %d keys %v, want %d", len(all), all, len(want)+3)
	}
	for _, k := range all {
		if strings.Contains(k, "other pool") || strings.HasPrefix(k, "pools/") {
			t.Fatalf("ListAll(\"\") returned %q from outside the pool", k)
		}
	}
}

// TestS3BucketRootPool is a pool at the root of its bucket (no prefix).
func TestS3BucketRootPool(t *testing.T) {
	ctx := t.Context()
	_, _, s := openS3(t, "")
	for _, k := range []string{"ilm/a.json", "ilm/b.json", "x.json"} {
		if _, err := s.PutIfAbsent(ctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := core.ListAll(ctx, s, "ilm/", 1, func(objs []core.Object) error {
		for _, o := range objs {
			got = append(got, o.Key)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "ilm/a.json,ilm/b.json" {
		t.Fatalf("ListAll = %v", got)
	}
	mustGet(t, s, "x.json", []byte("x.json"))
}

// uploadPool copies every file under dir into bucket under prefix (keys are
// the paths relative to dir) and returns how many.
func uploadPool(t *testing.T, admin *itest.S3, bucket, prefix, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		admin.PutObject(t, bucket, prefix+"/"+filepath.ToSlash(rel), string(b), nil)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lsRecord is what the end-to-end check compares of one `journal ls` row.
type lsRecord struct {
	Path           string `json:"path"`
	Protocol       string `json:"protocol"`
	Kind           string `json:"kind"`
	Schema         string `json:"schema"`
	State          string `json:"state"`
	Owner          string `json:"owner"`
	Classification string `json:"classification"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	SourceEvidence string `json:"source_evidence"`
	Copies         []struct {
		Pool   string `json:"pool"`
		SHA256 string `json:"sha256"`
	} `json:"copies"`
}

type lsOutput struct {
	Records    []lsRecord      `json:"records"`
	Summary    json.RawMessage `json:"summary"`
	Incomplete bool            `json:"incomplete"`
	PoolErrors json.RawMessage `json:"pool_errors"`
}

// journalLs runs `ilmctl journal ls --meta meta --now fixtureNow -o json`.
func journalLs(t *testing.T, meta string) lsOutput {
	t.Helper()
	cmd := journalcmd.NewCommand()
	var stdout, stderr bytes.Buffer
	cmd.SetArgs([]string{"ls", "--meta", meta, "--now", fixtureNow, "-o", "json"})
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SilenceUsage = true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("journal ls --meta %s: %v\nstderr: %s\nstdout: %s", meta, err, stderr.String(), stdout.String())
	}
	var v lsOutput
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("journal ls --meta %s: decode: %v\n%s", meta, err, stdout.String())
	}
	if v.Incomplete {
		t.Fatalf("journal ls --meta %s: incomplete: %s", meta, v.PoolErrors)
	}
	return v
}

// captureStderr runs fn with os.Stderr redirected to a pipe and returns
// what was written. Loggers created inside fn (the SDK's default logger
// binds os.Stderr when the store loads its configuration) write there.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		_, _ = b.ReadFrom(r)
		done <- b.String()
	}()
	defer func() {
		os.Stderr = saved
		_ = w.Close()
	}()
	fn()
	os.Stderr = saved
	_ = w.Close()
	return <-done
}

// compareRecords checks the S3 scan classified every record exactly as the
// directory scan did. Ages (from mtimes) and ETags (the directory store's
// are SHA-256, S3's are MD5) differ by design and are not compared; the
// content hash of every copy must match.
func compareRecords(t *testing.T, dirPool, s3Pool string, dir, s3 map[string]lsRecord) {
	t.Helper()
	if len(dir) == 0 {
		t.Fatal("the directory scan found no records")
	}
	for p, d := range dir {
		got, ok := s3[p]
		if !ok {
			t.Errorf("%s: in the directory scan, missing from the S3 scan", p)
			continue
		}
		if len(got.Copies) != 1 || len(d.Copies) != 1 {
			t.Errorf("%s: copies dir %v s3 %v, want one each", p, d.Copies, got.Copies)
			continue
		}
		if got.Copies[0].Pool != s3Pool || d.Copies[0].Pool != dirPool {
			t.Errorf("%s: copy pools dir %q s3 %q", p, d.Copies[0].Pool, got.Copies[0].Pool)
		}
		if got.Copies[0].SHA256 != d.Copies[0].SHA256 {
			t.Errorf("%s: content sha256 dir %s s3 %s", p, d.Copies[0].SHA256, got.Copies[0].SHA256)
		}
		got.Copies, d.Copies = nil, nil
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", d) {
			t.Errorf("%s:\n dir %+v\n s3  %+v", p, d, got)
		}
	}
	for p := range s3 {
		if _, ok := dir[p]; !ok {
			t.Errorf("%s: in the S3 scan only", p)
		}
	}
}

// TestS3JournalScanMatchesDir uploads testdata/ilm/pool-a into a bucket
// under a prefix and checks `journal ls` over s3:// classifies every record
// exactly as over the directory, through the command and through
// core/journal.Scan with pages smaller than the pool.
func TestS3JournalScanMatchesDir(t *testing.T) {
	endpoint, access, secret := itest.S3Env(t)
	setCreds(t, access, secret)
	admin := itest.NewClient(endpoint, access, secret)
	bucket := admin.CreateBucket(t, "ilmctl-pool-a")
	const prefix = "cluster/pool-a"
	files := uploadPool(t, admin, bucket, prefix, poolA)
	// Objects beside the pool must not leak into it.
	admin.PutObject(t, bucket, "cluster/pool-b/ilm/tier-delete-journal/1111111111111111111111111111111111111111111111111111111111111111.json", "{}", nil)
	admin.PutObject(t, bucket, "ilm/not-a-namespace/y.json", "{}", nil)
	s3URL := "s3://" + endpoint + "/" + bucket + "/" + prefix

	index := func(v lsOutput) map[string]lsRecord {
		m := map[string]lsRecord{}
		for _, r := range v.Records {
			if _, dup := m[r.Path]; dup {
				t.Errorf("%s listed twice", r.Path)
			}
			m[r.Path] = r
		}
		return m
	}
	dirOut := journalLs(t, poolA)
	var s3Out lsOutput
	// The store's SDK client logs to the process's stderr: a scan must not
	// write a line per record there (it once logged "Response has no
	// supported checksum" for every Get against this server).
	if stderr := captureStderr(t, func() { s3Out = journalLs(t, s3URL) }); stderr != "" {
		t.Errorf("journal ls --meta %s wrote to stderr:\n%s", s3URL, stderr)
	}
	dir, s3 := index(dirOut), index(s3Out)
	if len(dir) != files {
		t.Errorf("directory scan: %d records, want %d (one per file)", len(dir), files)
	}
	compareRecords(t, poolA, s3URL, dir, s3)
	if !bytes.Equal(dirOut.Summary, s3Out.Summary) {
		t.Errorf("summaries differ:\n dir %s\n s3  %s", dirOut.Summary, s3Out.Summary)
	}

	// The core scan, with pages much smaller than the pool.
	clock := func() time.Time { n, _ := time.Parse(time.RFC3339, fixtureNow); return n }
	d, err := metastore.Open(t.Context(), poolA)
	if err != nil {
		t.Fatal(err)
	}
	s, err := metastore.Open(t.Context(), s3URL)
	if err != nil {
		t.Fatal(err)
	}
	scan := func(st core.Store) map[string]lsRecord {
		rep, err := corejournal.Scan(t.Context(), []core.Store{st}, corejournal.Options{Clock: clock, PageSize: 7})
		if err != nil {
			t.Fatalf("Scan(%s): %v", st.Name(), err)
		}
		if rep.Incomplete {
			t.Fatalf("Scan(%s) incomplete: %+v", st.Name(), rep.PoolErrors)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		var v lsOutput
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return index(v)
	}
	compareRecords(t, poolA, s3URL, scan(d), scan(s))
}
