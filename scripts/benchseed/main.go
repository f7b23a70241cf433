// Command benchseed seeds and lists the dataset scripts/bench-vs-seaweedfs.sh
// runs SeaweedFS's lifecycle worker and ilmctl against. It is a benchmark
// helper, not part of ilmctl.
//
//	benchseed seed -s3 127.0.0.1:8433 -filer 127.0.0.1:8988 [-scale 1] [-c 16]
//	benchseed list -s3 127.0.0.1:8433 >left.txt
//	benchseed churn -s3 127.0.0.1:8433 -s3-b 127.0.0.1:8533 [-scale 1]
//	benchseed compare left-a.txt left-b.txt
//	benchseed profile-run cpu.pprof|- --filer seaweedfs://... [ilmctl run flags]
//	benchseed rpc-proxy -listen 127.0.0.1:28988 -to 127.0.0.1:18988
//
// seed creates the buckets below on a fresh SeaweedFS through its S3 API,
// sets versioning and lifecycle, PUTs every version (tiny deterministic
// bodies, so a version's ETag names it on any server), and makes the "aged"
// part of the dataset due by backdating through the filer (mtime,
// noncurrent-since stamp, upload initiation), the way SeaweedFS's own
// lifecycle tests do. The same generator on two servers gives the same
// dataset; only version IDs differ.
//
// list prints what the S3 API holds as sorted lines that do not depend on
// version IDs: "bucket/key etag=<md5> latest=<bool>" per version,
// "bucket/key DM latest=<bool>" per delete marker and "bucket/key UPLOAD"
// per incomplete multipart upload, so two servers' outputs diff cleanly.
//
// churn changes 1 % of the dataset's keys on two servers at the same times
// (churn.go); compare diffs two listings and names the differences it
// knows (compare.go). rpc-proxy counts the gRPC calls of a client it
// forwards, by method (rpcproxy.go).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	runcmd "github.com/ilmctl/ilmctl/commands/run"
)

const day = 24 * time.Hour

// bucketSpec is one bucket of the dataset: its keys, how many versions
// each gets, which keys are aged (made due), and its lifecycle rules.
type bucketSpec struct {
	name      string
	versioned bool
	keys      int
	versions  func(i int) int    // versions PUT for key i
	key       func(i int) string // key name
	aged      func(i int) bool   // backdate key i's versions
	tags      func(i int) string // x-amz-tagging for key i, "" for none
	markers   bool               // key i is a lone delete marker (DELETE of a missing key)
	uploads   int                // incomplete multipart uploads, every other one aged
	rules     []types.LifecycleRule
}

func days(n int32) *int32 { return aws.Int32(n) }

func prefixRule(id, prefix string) types.LifecycleRule {
	return types.LifecycleRule{ID: aws.String(id), Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{Prefix: aws.String(prefix)}}
}

// dataset is the benchmark's buckets at scale (1 = about 121k versions;
// a fraction such as 0.25 gives a smaller run).
func dataset(scale float64) []bucketSpec {
	n := func(k int) int { return max(1, int(float64(k)*scale)) }
	pad := func(p string) func(int) string { return func(i int) string { return fmt.Sprintf("%s%06d", p, i) } }
	specs := []bucketSpec{
		{
			// Expiration on a versioned bucket: aged current versions
			// under old/ get a delete marker; new/ is outside the rule.
			name: "bench-exp", versioned: true, keys: n(8000),
			versions: func(int) int { return 3 },
			key: func(i int) string {
				if i%2 == 0 {
					return fmt.Sprintf("old/%06d", i)
				}
				return fmt.Sprintf("new/%06d", i)
			},
			aged: func(i int) bool { return i%4 < 3 },
			rules: func() []types.LifecycleRule {
				r := prefixRule("exp-old", "old/")
				r.Expiration = &types.LifecycleExpiration{Days: days(1)}
				return []types.LifecycleRule{r}
			}(),
		},
		{
			// NoncurrentDays: aged keys lose their 3 noncurrent versions.
			name: "bench-nc", versioned: true, keys: n(6000),
			versions: func(int) int { return 4 },
			key:      pad("k/"),
			aged:     func(i int) bool { return i%2 == 0 },
			rules: func() []types.LifecycleRule {
				r := prefixRule("nc", "")
				r.NoncurrentVersionExpiration = &types.NoncurrentVersionExpiration{NoncurrentDays: days(1)}
				return []types.LifecycleRule{r}
			}(),
		},
		{
			// NewerNoncurrentVersions: aged keys keep 2 noncurrent.
			name: "bench-newer", versioned: true, keys: n(4000),
			versions: func(int) int { return 5 },
			key:      pad("n/"),
			aged:     func(i int) bool { return i%3 != 0 },
			rules: func() []types.LifecycleRule {
				r := prefixRule("newer", "")
				r.NoncurrentVersionExpiration = &types.NoncurrentVersionExpiration{NoncurrentDays: days(1), NewerNoncurrentVersions: aws.Int32(2)}
				return []types.LifecycleRule{r}
			}(),
		},
		{
			// Unversioned Expiration by prefix: aged tmp/ objects go.
			name: "bench-plain", keys: n(20000),
			versions: func(int) int { return 1 },
			key: func(i int) string {
				if i%2 == 0 {
					return fmt.Sprintf("tmp/%06d", i)
				}
				return fmt.Sprintf("keep/%06d", i)
			},
			aged: func(i int) bool { return i%4 < 3 },
			rules: func() []types.LifecycleRule {
				r := prefixRule("tmp", "tmp/")
				r.Expiration = &types.LifecycleExpiration{Days: days(1)}
				return []types.LifecycleRule{r}
			}(),
		},
		{
			// Tag filter: aged objects tagged expire=yes go.
			name: "bench-tags", keys: n(6000),
			versions: func(int) int { return 1 },
			key:      pad("t/"),
			aged:     func(i int) bool { return i%3 != 0 },
			tags: func(i int) string {
				if i%2 == 0 {
					return "expire=yes&team=a"
				}
				return "expire=no&team=b"
			},
			rules: []types.LifecycleRule{{ID: aws.String("tagged"), Status: types.ExpirationStatusEnabled,
				Filter:     &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("expire"), Value: aws.String("yes")}},
				Expiration: &types.LifecycleExpiration{Days: days(1)}}},
		},
		{
			// Several rules in one bucket: Expiration Days=2 on a/,
			// NoncurrentDays=1 on b/, both on c/; aged keys are 3 days old.
			name: "bench-mixed", versioned: true, keys: n(6000),
			versions: func(int) int { return 3 },
			key: func(i int) string {
				return fmt.Sprintf("%c/%06d", "abcd"[i%4], i)
			},
			aged: func(i int) bool { return (i/4)%2 == 0 },
			rules: func() []types.LifecycleRule {
				a := prefixRule("a-exp", "a/")
				a.Expiration = &types.LifecycleExpiration{Days: days(2)}
				b := prefixRule("b-nc", "b/")
				b.NoncurrentVersionExpiration = &types.NoncurrentVersionExpiration{NoncurrentDays: days(1)}
				c := prefixRule("c-both", "c/")
				c.Expiration = &types.LifecycleExpiration{Days: days(2)}
				c.NoncurrentVersionExpiration = &types.NoncurrentVersionExpiration{NoncurrentDays: days(1)}
				return []types.LifecycleRule{a, b, c}
			}(),
		},
		{
			// ExpiredObjectDeleteMarker: lone delete markers (DELETE of a
			// key that never existed) go; keys with a live version stay.
			name: "bench-edm", versioned: true, keys: n(4000),
			versions: func(i int) int { return 1 },
			key:      pad("m/"),
			aged:     func(int) bool { return true },
			markers:  true,
			rules: func() []types.LifecycleRule {
				r := prefixRule("edm", "")
				r.Expiration = &types.LifecycleExpiration{ExpiredObjectDeleteMarker: aws.Bool(true)}
				return []types.LifecycleRule{r}
			}(),
		},
		{
			// AbortIncompleteMultipartUpload plus Expiration on a
			// versioned bucket.
			name: "bench-mpu", versioned: true, keys: n(2000),
			versions: func(int) int { return 2 },
			key:      pad("u/"),
			aged:     func(i int) bool { return i%2 == 0 },
			uploads:  n(1000),
			rules: func() []types.LifecycleRule {
				r := prefixRule("mpu", "")
				r.AbortIncompleteMultipartUpload = &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: days(1)}
				r.Expiration = &types.LifecycleExpiration{Days: days(1)}
				return []types.LifecycleRule{r}
			}(),
		},
	}
	return specs
}

func newS3(endpoint, access, secret string) *s3.Client {
	base := endpoint
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider(access, secret, "")}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(base)
		o.UsePathStyle = true
	})
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchseed seed|list|count|churn|compare|profile-run|rpc-proxy [flags]")
		os.Exit(2)
	}
	cmd := os.Args[1]
	if cmd == "profile-run" {
		os.Exit(profileRun(os.Args[2:]))
	}
	if cmd == "rpc-proxy" {
		os.Exit(rpcProxy(os.Args[2:]))
	}
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	s3addr := fs.String("s3", "127.0.0.1:8333", "S3 endpoint host:port")
	filerAddr := fs.String("filer", "127.0.0.1:8888", "filer HTTP host:port (gRPC at +10000)")
	access := fs.String("access-key", envOr("WEED_ACCESS_KEY", "ilmctl"), "S3 access key")
	secret := fs.String("secret-key", envOr("WEED_SECRET_KEY", "ilmctl-secret"), "S3 secret key")
	scale := fs.Float64("scale", 1, "dataset multiplier (1 = about 120k versions; 0.25 a quarter)")
	s3b := fs.String("s3-b", "", "churn: the second server's S3 endpoint, written at the same times")
	conc := fs.Int("c", 16, "concurrent requests")
	_ = fs.Parse(os.Args[2:])
	ctx := context.Background()
	c := newS3(*s3addr, *access, *secret)
	var err error
	switch cmd {
	case "seed":
		err = seed(ctx, c, *filerAddr, *scale, *conc)
	case "list":
		err = list(ctx, c, *scale, *conc)
	case "count":
		err = count(*scale)
	case "churn":
		if *s3b == "" {
			err = errors.New("churn needs -s3-b, the second server's S3 endpoint")
			break
		}
		err = churn(ctx, []*s3.Client{c, newS3(*s3b, *access, *secret)}, *scale, *conc)
	case "compare":
		if fs.NArg() != 2 {
			err = errors.New("usage: benchseed compare left-by-seaweedfs.txt left-by-ilmctl.txt")
			break
		}
		err = compareFiles(fs.Arg(0), fs.Arg(1), *scale)
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchseed:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func count(scale float64) error {
	total := 0
	for _, b := range dataset(scale) {
		for i := 0; i < b.keys; i++ {
			total += b.versions(i) // a lone delete marker counts as one
		}
		total += b.uploads
	}
	fmt.Println(total)
	return nil
}

func seed(ctx context.Context, c *s3.Client, filerAddr string, scale float64, conc int) error {
	st, err := seaweedfs.Open(ctx, filerAddr, seaweedfs.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	specs := dataset(scale)
	for _, b := range specs {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b.name)}); err != nil {
			return fmt.Errorf("create bucket %s: %w", b.name, err)
		}
		if b.versioned {
			if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(b.name),
				VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
				return fmt.Errorf("versioning %s: %w", b.name, err)
			}
		}
	}
	// Every write and backdate happens before any lifecycle is set, so
	// neither tool sees a rule that predates its objects' final state.
	start := time.Now()
	now := start
	type job struct {
		b *bucketSpec
		i int
	}
	jobs := make(chan job, 1024)
	var done, writes atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				n, err := seedKey(ctx, c, st, j.b, j.i, now)
				writes.Add(int64(n))
				if err != nil {
					errOnce.Do(func() { firstErr = err })
				}
				if d := done.Add(1); d%10000 == 0 {
					fmt.Fprintf(os.Stderr, "benchseed: %d keys, %d writes, %.0f writes/s\n", d, writes.Load(), float64(writes.Load())/time.Since(start).Seconds())
				}
			}
		}()
	}
	// Interleave buckets so each bucket's writes spread over the seeding.
	maxKeys := 0
	for _, b := range specs {
		maxKeys = max(maxKeys, b.keys, b.uploads)
	}
	for i := 0; i < maxKeys && firstErr == nil; i++ {
		for bi := range specs {
			b := &specs[bi]
			if i < b.keys {
				jobs <- job{b, i}
			}
			if i < b.uploads {
				jobs <- job{b, -1 - i}
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	for _, b := range specs {
		if _, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: aws.String(b.name),
			LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: b.rules}}); err != nil {
			return fmt.Errorf("lifecycle %s: %w", b.name, err)
		}
	}
	fmt.Fprintf(os.Stderr, "benchseed: seeded %d keys/uploads with %d writes in %s\n", done.Load(), writes.Load(), time.Since(start).Round(time.Second))
	return nil
}

// seedKey writes key i of b (or, for i < 0, upload -1-i) and backdates it
// when aged; it returns how many writes it made.
func seedKey(ctx context.Context, c *s3.Client, st *seaweedfs.Store, b *bucketSpec, i int, now time.Time) (int, error) {
	if i < 0 {
		u := -1 - i
		key := fmt.Sprintf("up/%06d", u)
		out, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(b.name), Key: aws.String(key)})
		if err != nil {
			return 0, fmt.Errorf("create upload %s/%s: %w", b.name, key, err)
		}
		if u%2 == 0 {
			if err := st.SetUploadMtime(ctx, b.name, aws.ToString(out.UploadId), now.Add(-3*day)); err != nil {
				return 1, fmt.Errorf("backdate upload %s/%s: %w", b.name, key, err)
			}
			return 2, nil
		}
		return 1, nil
	}
	key := b.key(i)
	if b.markers && i%2 == 0 {
		out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.name), Key: aws.String(key)})
		if err != nil {
			return 0, fmt.Errorf("delete %s/%s: %w", b.name, key, err)
		}
		if aws.ToString(out.VersionId) == "" {
			return 1, fmt.Errorf("delete %s/%s made no delete marker", b.name, key)
		}
		if b.aged(i) {
			if err := st.SetVersionMtime(ctx, b.name, key, aws.ToString(out.VersionId), now.Add(-3*day)); err != nil {
				return 1, fmt.Errorf("backdate marker %s/%s: %w", b.name, key, err)
			}
			return 2, nil
		}
		return 1, nil
	}
	nv := b.versions(i)
	ids := make([]string, nv)
	writes := 0
	for v := 0; v < nv; v++ {
		in := &s3.PutObjectInput{Bucket: aws.String(b.name), Key: aws.String(key),
			Body: bytes.NewReader([]byte(fmt.Sprintf("%s/%s/v%d", b.name, key, v)))}
		if b.tags != nil {
			if t := b.tags(i); t != "" {
				in.Tagging = aws.String(t)
			}
		}
		out, err := c.PutObject(ctx, in)
		if err != nil {
			return writes, fmt.Errorf("put %s/%s v%d: %w", b.name, key, v, err)
		}
		writes++
		ids[v] = aws.ToString(out.VersionId)
		if !b.versioned {
			ids[v] = "null"
		}
	}
	if !b.aged(i) {
		return writes, nil
	}
	// Version v (0 oldest) was created (10-v) days ago and became
	// noncurrent when v+1 was, (10-v-1) days ago; the current version is
	// 3 days old so that Days=1 and Days=2 rules are both past due.
	for v := 0; v < nv; v++ {
		created := now.Add(-time.Duration(10-v) * day)
		if v == nv-1 {
			created = now.Add(-3 * day)
		}
		if err := st.SetVersionMtime(ctx, b.name, key, ids[v], created); err != nil {
			return writes, fmt.Errorf("backdate %s/%s@%s: %w", b.name, key, ids[v], err)
		}
		writes++
		if v < nv-1 && b.versioned {
			demoted := now.Add(-time.Duration(10-v-1) * day)
			if v+1 == nv-1 {
				demoted = now.Add(-3 * day)
			}
			if err := st.SetVersionNoncurrentSince(ctx, b.name, key, ids[v], demoted); err != nil {
				return writes, fmt.Errorf("backdate noncurrent %s/%s@%s: %w", b.name, key, ids[v], err)
			}
			writes++
		}
	}
	return writes, nil
}

// list prints the S3 view of every dataset bucket, one line per version,
// delete marker or upload, sorted; it lists buckets concurrently.
func list(ctx context.Context, c *s3.Client, scale float64, conc int) error {
	specs := dataset(scale)
	out := make([][]string, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, min(conc, len(specs))))
	for bi, b := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[bi], errs[bi] = listBucket(ctx, c, b.name)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	var all []string
	for _, o := range out {
		all = append(all, o...)
	}
	sort.Strings(all)
	var buf bytes.Buffer
	for _, l := range all {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	_, err := os.Stdout.Write(buf.Bytes())
	return err
}

func listBucket(ctx context.Context, c *s3.Client, bucket string) ([]string, error) {
	var lines []string
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), MaxKeys: aws.Int32(1000)}
	for {
		out, err := c.ListObjectVersions(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list versions %s: %w", bucket, err)
		}
		for _, v := range out.Versions {
			lines = append(lines, fmt.Sprintf("%s/%s etag=%s latest=%t", bucket, aws.ToString(v.Key), strings.Trim(aws.ToString(v.ETag), `"`), aws.ToBool(v.IsLatest)))
		}
		for _, m := range out.DeleteMarkers {
			lines = append(lines, fmt.Sprintf("%s/%s DM latest=%t", bucket, aws.ToString(m.Key), aws.ToBool(m.IsLatest)))
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		if out.NextKeyMarker == nil && out.NextVersionIdMarker == nil {
			return nil, fmt.Errorf("list versions %s: truncated without a marker", bucket)
		}
		in.KeyMarker, in.VersionIdMarker = out.NextKeyMarker, out.NextVersionIdMarker
	}
	uin := &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)}
	for {
		out, err := c.ListMultipartUploads(ctx, uin)
		if err != nil {
			return nil, fmt.Errorf("list uploads %s: %w", bucket, err)
		}
		for _, u := range out.Uploads {
			lines = append(lines, fmt.Sprintf("%s/%s UPLOAD", bucket, aws.ToString(u.Key)))
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		if out.NextKeyMarker == nil && out.NextUploadIdMarker == nil {
			return nil, fmt.Errorf("list uploads %s: truncated without a marker", bucket)
		}
		uin.KeyMarker, uin.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
	return lines, nil
}

// profileRun runs `ilmctl run` (the same command package the binary uses)
// with args, writing a CPU profile of the whole pass to the file named by
// args[0], and prints the pass's gRPC calls by method (rpcStats) and the
// process's CPU time to stderr. With BENCHSEED_HEAP set, it also writes
// there a heap profile taken when the heap in use peaked (sampled every
// 50 ms). It lets the benchmark say where ilmctl's
// time goes without adding profiling flags to the product.
func profileRun(args []string) int {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: benchseed profile-run cpu.pprof [ilmctl run flags]")
		return 2
	}
	var f *os.File
	if args[0] != "-" {
		var err error
		if f, err = os.Create(args[0]); err != nil {
			fmt.Fprintln(os.Stderr, "benchseed:", err)
			return 1
		}
		defer f.Close()
	}
	stats := newRPCStats()
	seaweedfs.ExtraDialOptions = stats.dialOptions()
	cmd := runcmd.NewCommand()
	cmd.SetArgs(args[1:])
	if f != nil {
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "benchseed:", err)
			return 1
		}
	}
	stopHeap := peakHeapProfile(os.Getenv("BENCHSEED_HEAP"))
	t0 := time.Now()
	err := cmd.ExecuteContext(context.Background())
	if f != nil {
		pprof.StopCPUProfile()
	}
	stopHeap()
	stats.print(os.Stderr, time.Since(t0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchseed: ilmctl run:", err)
		return 1
	}
	return 0
}

// peakHeapProfile samples the heap in use every 50 ms and, each time it
// passes its peak so far, writes a heap profile to path (nothing when path
// is empty). The returned function stops the sampling and reports the
// peak to stderr.
func peakHeapProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	var peak uint64
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse < peak+peak/20 {
				continue
			}
			peak = ms.HeapInuse
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		fmt.Fprintf(os.Stderr, "benchseed: peak heap in use %d MiB, profile in %s\n", peak>>20, path)
	}
}
