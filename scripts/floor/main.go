// Command floor sends exactly the LifecycleDelete calls a pass sent, and
// nothing else, to a SeaweedFS server holding the data the pass started
// from, so the server's CPU over its calls is what the deletes alone cost:
// the floor scripts/bench-vs-seaweedfs.sh divides each pass's CPU by. It
// is a benchmark helper, not part of ilmctl.
//
//	floor -filer 127.0.0.1:8988 -s3-grpc 127.0.0.1:18433 -server-pid PID pass.jsonl
//
// pass.jsonl is the pass's `ilmctl run -o jsonl` output. Every action line
// the server answered (DONE, NOOP_RESOLVED, SKIPPED_OBJECT_LOCK,
// RETRY_LATER) is one call; BLOCKED, DRY_RUN and ERROR lines are left out
// (see sent). The calls go through client/seaweedfs's Store.LifecycleDelete,
// as the pass's did, each shard's in the order it recorded them with
// -in-flight calls at once (ilmctl's --deletes-in-flight, 8 by default on
// seaweedfs://), all shards at once.
//
// Each call carries the identity the version had when the pass read it.
// The jsonl lines do not hold it (no mtime, head fid or Extended hash), so
// floor first looks up every target key once, before the measurement
// starts; the measured part makes no reads of its own. (An AbortMPU call
// still looks its upload up first, inside Store.LifecycleDelete, as the
// pass's did.) A target the lookup does not find is left out and counted
// as unresolved: the server was not at the pass's starting point.
//
// It prints to stdout one line of key=value pairs the script reads: calls,
// unresolved, differing (outcomes other than the pass's), wall_s,
// client_cpu_s (this process, over the calls), server_cpu_s (the process
// -server-pid over the calls, from /proc: Linux only), and the outcomes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ilmctl/ilmctl/client/seaweedfs"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

func main() {
	filerAddr := flag.String("filer", "127.0.0.1:8888", "filer HTTP host:port (gRPC at +10000)")
	s3GRPC := flag.String("s3-grpc", "127.0.0.1:18333", "S3 gateway gRPC host:port")
	inFlight := flag.Int("in-flight", 8, "calls in flight per shard (the pass's --deletes-in-flight)")
	lookups := flag.Int("lookup-c", 16, "concurrent key lookups before the measurement")
	serverPid := flag.Int("server-pid", 0, "weed server process whose CPU to measure (0: none)")
	flag.Parse()
	if flag.NArg() != 1 || *inFlight < 1 || *lookups < 1 {
		fmt.Fprintln(os.Stderr, "usage: floor -filer HOST:PORT -s3-grpc HOST:PORT [-in-flight 8] [-server-pid PID] pass.jsonl")
		os.Exit(2)
	}
	if err := run(*filerAddr, *s3GRPC, flag.Arg(0), *inFlight, *lookups, *serverPid); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(filerAddr, s3GRPC, path string, inFlight, lookups, serverPid int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	byShard, skipped, err := readCalls(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ctx := context.Background()
	st, err := seaweedfs.Open(ctx, filerAddr, seaweedfs.Options{S3GRPC: s3GRPC})
	if err != nil {
		return err
	}
	defer st.Close()

	reqs, unresolved, err := resolve(ctx, st, byShard, lookups)
	if err != nil {
		return err
	}
	total := 0
	for _, rs := range reqs {
		total += len(rs)
	}
	fmt.Fprintf(os.Stderr, "floor: %d calls in %d shards (%d action lines not sent, %d targets not found), %d in flight per shard\n",
		total, len(reqs), skipped, unresolved, inFlight)

	s0, err := procCPU(serverPid)
	if err != nil {
		return err
	}
	c0 := selfCPU()
	t0 := time.Now()
	outcomes, differing, err := send(ctx, st, reqs, inFlight)
	wall := time.Since(t0)
	c1 := selfCPU()
	s1, serr := procCPU(serverPid)
	if err != nil {
		return err
	}
	if serr != nil {
		return serr
	}
	names := make([]string, 0, len(outcomes))
	for o := range outcomes {
		names = append(names, o)
	}
	sort.Strings(names)
	var outs []string
	for _, o := range names {
		outs = append(outs, fmt.Sprintf("%s:%d", o, outcomes[o]))
	}
	fmt.Printf("calls=%d unresolved=%d differing=%d wall_s=%.2f client_cpu_s=%.2f server_cpu_s=%.2f outcomes=%s\n",
		total, unresolved, differing, wall.Seconds(), (c1 - c0).Seconds(), (s1 - s0).Seconds(), strings.Join(outs, ","))
	return nil
}

// request is one call ready to send, with the outcome the pass got.
type request struct {
	req  filer.DeleteRequest
	pass string
}

// resolve turns each call into a DeleteRequest with the identity its
// target has on the server now, looking every key up once (lookups at a
// time). Targets not found are left out and counted.
func resolve(ctx context.Context, st *seaweedfs.Store, byShard map[int][]call, lookups int) (map[int][]request, int, error) {
	type bk struct{ bucket, key string }
	objs := map[bk]filer.Object{}
	for _, cs := range byShard {
		for _, c := range cs {
			if c.Kind != string(lifecycle.AbortMPU) {
				objs[bk{c.Bucket, c.Key}] = filer.Object{}
			}
		}
	}
	keys := make(chan bk)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range lookups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				o, _, err := st.LookupObject(ctx, k.bucket, k.key)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("look up %s/%s: %w", k.bucket, k.key, err)
				}
				objs[k] = o
				mu.Unlock()
			}
		}()
	}
	all := make([]bk, 0, len(objs))
	for k := range objs {
		all = append(all, k)
	}
	for _, k := range all {
		keys <- k
	}
	close(keys)
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	out := map[int][]request{}
	unresolved := 0
	for shard, cs := range byShard {
		for _, c := range cs {
			r := filer.DeleteRequest{Bucket: c.Bucket, Key: c.Key, Kind: filer.ActionKind(c.Kind), RuleID: c.RuleID}
			if c.Kind == string(lifecycle.AbortMPU) {
				r.Expected = filer.Identity{UploadID: c.UploadID}
			} else {
				found := false
				for _, v := range objs[bk{c.Bucket, c.Key}].Versions {
					if v.VersionID == c.VersionID {
						r.Expected, found = v.Identity(), true
						break
					}
				}
				if !found {
					unresolved++
					continue
				}
			}
			out[shard] = append(out[shard], request{req: r, pass: c.Outcome})
		}
	}
	return out, unresolved, nil
}

// send makes the calls, each shard's in order with inFlight at once and
// all shards at once, and counts their outcomes and those that differ
// from the pass's.
func send(ctx context.Context, st *seaweedfs.Store, reqs map[int][]request, inFlight int) (map[string]int, int, error) {
	var mu sync.Mutex
	outcomes := map[string]int{}
	differing := 0
	var firstErr error
	var wg sync.WaitGroup
	for _, rs := range reqs {
		next := make(chan request)
		for range inFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range next {
					o, err := st.LifecycleDelete(ctx, r.req)
					mu.Lock()
					if err != nil {
						if firstErr == nil {
							firstErr = err
						}
						o = "ERROR"
					}
					outcomes[string(o)]++
					if string(o) != r.pass {
						differing++
					}
					mu.Unlock()
				}
			}()
		}
		go func() {
			for _, r := range rs {
				next <- r
			}
			close(next)
		}()
	}
	wg.Wait()
	return outcomes, differing, firstErr
}

// selfCPU is this process's user+system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// procCPU is process pid's user+system CPU time so far, from fields 14
// and 15 of /proc/PID/stat; 0 when pid is 0.
func procCPU(pid int) (time.Duration, error) {
	if pid == 0 {
		return 0, nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("-server-pid %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("-server-pid %d: unreadable /proc stat", pid)
	}
	fields := strings.Fields(s[i+1:]) // fields[0] is field 3 (state)
	if len(fields) < 13 {
		return 0, fmt.Errorf("-server-pid %d: short /proc stat", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("-server-pid %d: unreadable /proc stat", pid)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}
