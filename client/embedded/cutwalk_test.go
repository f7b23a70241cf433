package embedded

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// The cut-walk proof (docs/design/daily-run.md#resumable-walks): a cold
// pass cut by its deadline into several passes, each continuing the
// recovery walk the previous one saved, ends where one uncut pass ends.
// BenchmarkCutColdPass measures it at scale; TestKillCutPassConverges
// kills such passes at chosen points. Both use the fixture below, written
// as scripts/genfixture's default (an unversioned bucket under Expiration
// Days 30 and a versioned one, 3 versions a key, under NoncurrentDays 7
// and Expiration Days 90; half the keys due), deterministic and streamed.

// cutNow is the pass clock of every pass of the proof, and the filer's
// clock: passes cut by -runtime and run again the same night.
var cutNow = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

const (
	cutOffXML = `<LifecycleConfiguration><Rule><ID>expire-30d</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>` +
		`<Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>`
	cutEnabledXML = `<LifecycleConfiguration><Rule><ID>noncurrent-7d</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>` +
		`<NoncurrentVersionExpiration><NoncurrentDays>7</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>expire-90d</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><Expiration><Days>90</Days></Expiration></Rule></LifecycleConfiguration>`
)

// writeCutFixture writes a fixture of about versions object versions, half
// in each bucket. Key n is due when n*7919 % 10 < 5 (half of them,
// scattered over the key space and the shards).
func writeCutFixture(w io.Writer, versions int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(`{"buckets":[`)
	for bi, b := range []struct {
		name, versioning, xml string
		perKey                int
		dueAge                time.Duration
	}{
		{"b0-off", "Off", cutOffXML, 1, 31 * 24 * time.Hour},
		{"b1-enabled", "Enabled", cutEnabledXML, 3, 91 * 24 * time.Hour},
	} {
		if bi > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"name":%q,"versioning":%q,"lifecycle_xml":%q,"objects":[`, b.name, b.versioning, b.xml)
		keys := max(1, versions/2/b.perKey)
		for k := 0; k < keys; k++ {
			if k > 0 {
				bw.WriteByte(',')
			}
			latest := cutNow.Add(-24*time.Hour - time.Duration(k%96)*time.Hour)
			if k*7919%10 < 5 {
				latest = cutNow.Add(-b.dueAge - time.Duration(k%720)*time.Hour)
			}
			fmt.Fprintf(bw, `{"key":"k/%08d.dat","versions":[`, k)
			for v := 0; v < b.perKey; v++ {
				if v > 0 {
					bw.WriteByte(',')
				}
				mt := latest.Add(-time.Duration(b.perKey-1-v) * time.Hour)
				fmt.Fprintf(bw, `{"mtime":%q,"size":%d}`, mt.Format(time.RFC3339), 1024+k%4096)
			}
			bw.WriteString(`]}`)
		}
		bw.WriteString(`]}`)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// loadCutFixture builds a filer of the fixture in dir.
func loadCutFixture(dir string, versions int) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeCutFixture(pw, versions)) }()
	_, err := Load(context.Background(), dir, pr, LoadOptions{})
	pr.Close()
	return err
}

// copyFiler copies the filer in src to a new filer in dst: two runs start
// from the same bytes without loading the fixture twice.
func copyFiler(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	in, err := os.Open(filepath.Join(src, DBFile))
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dst, DBFile))
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// cutSnapshot is the rules of the filer's buckets, as a pass compiles them.
func cutSnapshot(ctx context.Context, f *Filer) (*engine.Snapshot, error) {
	bs, err := f.ListBuckets(ctx)
	if err != nil {
		return nil, err
	}
	ok, rejected := engine.ParseBuckets(bs)
	if len(rejected) > 0 {
		return nil, &rejected[0]
	}
	return engine.Compile(ok, lifecycle.RoundAWS).Snapshot(), nil
}

// deadlineCtx ends like a -runtime deadline (Err is
// context.DeadlineExceeded, so the pass reports incomplete) when cut is
// called: the benchmark and the kill test end a pass after a given number
// of completed deletes, not after a time a busy machine would stretch.
type deadlineCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newDeadlineCtx() *deadlineCtx {
	return &deadlineCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (c *deadlineCtx) cut() { c.once.Do(func() { close(c.done) }) }

// cutOpenCPU, when set (by BenchmarkCutColdPass), adds up the CPU that
// cutRun's opens of the filer take, by its clock: each open runs bbolt's
// consistency check over the whole file.
var cutOpenCPU *struct {
	clock func() time.Duration
	spent time.Duration
}

// cutRun is one pass of the proof over the filer in dir: cutAfter > 0 ends
// it once that many deletes completed DONE. done receives each DONE
// target (bucket/key@version#upload). wrap, when set, is the store the
// pass runs on, around the filer.
func cutRun(dir string, cutAfter int, wrap func(*Filer) filer.Store, done func(string)) (*dailyrun.Result, error) {
	var cpu0 time.Duration
	if cutOpenCPU != nil {
		cpu0 = cutOpenCPU.clock()
	}
	f, err := Open(dir, Options{Clock: func() time.Time { return cutNow }, MustExist: true})
	if cutOpenCPU != nil {
		cutOpenCPU.spent += cutOpenCPU.clock() - cpu0
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ctx := newDeadlineCtx()
	snap, err := cutSnapshot(ctx, f)
	if err != nil {
		return nil, err
	}
	st := filer.Store(f)
	if wrap != nil {
		st = wrap(f)
	}
	n := 0
	return dailyrun.Run(ctx, dailyrun.Config{Store: st, Snapshot: snap, RunNow: cutNow, Clock: time.Now, DiscardActions: true,
		OnAction: func(a dailyrun.Action) {
			if a.Outcome != filer.OutcomeDone {
				return
			}
			done(a.Bucket + "/" + a.Key + "@" + a.VersionID + "#" + a.UploadID)
			if n++; cutAfter > 0 && n >= cutAfter {
				ctx.cut()
			}
		}})
}

// filerState is a digest of every version and upload the filer holds, and
// how many. What a pass stamps itself is left out: a delete marker's
// version ID and mtime, and the noncurrent-since its marker gives the
// version beneath, are the time of the delete, which a cut run makes
// later by construction (they read "pass"). Everything the fixture wrote,
// and which versions are left, latest or markers, is in.
func filerState(dir string) (digest string, versions int, err error) {
	f, err := Open(dir, Options{Clock: func() time.Time { return cutNow }, MustExist: true, ReadOnly: true})
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	ctx := context.Background()
	h := sha256.New()
	bs, err := f.ListBuckets(ctx)
	if err != nil {
		return "", 0, err
	}
	for _, b := range bs {
		for after := ""; ; {
			objs, next, err := f.ListObjects(ctx, b.Name, after, 1000)
			if err != nil {
				return "", 0, err
			}
			for _, o := range objs {
				for _, v := range o.Versions {
					id, mtime, since := v.VersionID, strconv.FormatInt(v.MtimeNs, 10), strconv.FormatInt(v.NoncurrentSinceNs, 10)
					if v.DeleteMarker {
						id, mtime = "marker", "pass"
					}
					if v.NoncurrentSinceNs >= cutNow.UnixNano() {
						since = "pass"
					}
					fmt.Fprintf(h, "%s/%s %s latest=%v marker=%v mtime=%s size=%d since=%s\n", b.Name, o.Key, id, v.IsLatest, v.DeleteMarker, mtime, v.Size, since)
					versions++
				}
			}
			if next == "" {
				break
			}
			after = next
		}
		for after := ""; ; {
			ups, next, err := f.ListUploads(ctx, b.Name, after, 1000)
			if err != nil {
				return "", 0, err
			}
			for _, u := range ups {
				fmt.Fprintf(h, "%s/%s upload %s\n", b.Name, u.Key, u.UploadID)
			}
			if next == "" {
				break
			}
			after = next
		}
	}
	return hex.EncodeToString(h.Sum(nil)), versions, nil
}

// sameTargets reports whether two runs deleted the same targets, each
// once: a duplicate in got is a target deleted twice.
func sameTargets(want, got []string) (bool, string) {
	slices.Sort(want)
	slices.Sort(got)
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			return false, "deleted twice: " + got[i]
		}
	}
	if !slices.Equal(want, got) {
		return false, fmt.Sprintf("%d targets deleted, want %d", len(got), len(want))
	}
	return true, ""
}
