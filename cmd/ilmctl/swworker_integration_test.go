//go:build integration

package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seaweedfs/seaweedfs/weed/pb/s3_lifecycle_pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// swCall is one LifecycleDelete SeaweedFS's worker sent, as a tap in front
// of the S3 gateway's gRPC saw it.
type swCall struct {
	proc    string // which worker process sent it
	bucket  string
	target  string // "<key> latest" for current-version kinds, else "<key>@<version>"
	outcome string // the gateway's outcome, "ERROR" when the call failed
	reason  string
}

// swCalls records the calls of one scenario. After killAfter DONE calls on
// killBucket it runs kill once, before the worker gets that answer.
type swCalls struct {
	mu         sync.Mutex
	calls      []swCall
	killBucket string
	killAfter  int
	kill       func()
	done       int
	// inflight counts calls forwarded and not yet recorded.
	inflight sync.WaitGroup
	// pair, when set, holds each current-version expiration until the
	// other process sends the same one (same target, same identity).
	pair *pairing
}

// pairing sends two processes' identical calls to the gateway side by
// side: the first to arrive waits for the second, or for timeout.
type pairing struct {
	timeout time.Duration
	mu      sync.Mutex
	waiting map[string]chan struct{}
	paired  map[string]int // bucket -> calls sent beside their twin
}

func (p *pairing) wait(ctx context.Context, bucket, key string) {
	p.mu.Lock()
	if ch, ok := p.waiting[key]; ok {
		delete(p.waiting, key)
		p.paired[bucket] += 2
		p.mu.Unlock()
		close(ch)
		return
	}
	ch := make(chan struct{})
	p.waiting[key] = ch
	p.mu.Unlock()
	t := time.NewTimer(p.timeout)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
	p.mu.Lock()
	if p.waiting[key] == ch {
		delete(p.waiting, key)
	}
	p.mu.Unlock()
}

func (l *swCalls) add(c swCall) {
	l.mu.Lock()
	l.calls = append(l.calls, c)
	fire := false
	if c.outcome == s3_lifecycle_pb.LifecycleDeleteOutcome_DONE.String() && c.bucket == l.killBucket && l.kill != nil {
		l.done++
		fire = l.done == l.killAfter
	}
	kill := l.kill
	l.mu.Unlock()
	if fire {
		kill()
	}
}

// of returns the calls on bucket.
func (l *swCalls) of(bucket string) []swCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []swCall
	for _, c := range l.calls {
		if c.bucket == bucket {
			out = append(out, c)
		}
	}
	return out
}

// elsewhere counts the answers to calls on buckets other than bucket: due
// work of earlier seeds sent again.
func (l *swCalls) elsewhere(bucket string) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for _, c := range l.calls {
		if c.bucket != bucket {
			out[strings.TrimSpace(c.outcome+" "+c.reason)]++
		}
	}
	return out
}

// merged returns one log of l's calls and then more's.
func (l *swCalls) merged(more *swCalls) *swCalls {
	out := &swCalls{}
	for _, x := range []*swCalls{l, more} {
		x.mu.Lock()
		out.calls = append(out.calls, x.calls...)
		x.mu.Unlock()
	}
	return out
}

// lifecycleTap forwards LifecycleDelete to the S3 gateway and records each
// call and its outcome: the worker logs neither, and its metrics live in
// the weed shell process.
type lifecycleTap struct {
	s3_lifecycle_pb.UnimplementedSeaweedS3LifecycleInternalServer
	proc string
	next s3_lifecycle_pb.SeaweedS3LifecycleInternalClient
	log  func() *swCalls
}

func (p *lifecycleTap) LifecycleDelete(ctx context.Context, req *s3_lifecycle_pb.LifecycleDeleteRequest) (*s3_lifecycle_pb.LifecycleDeleteResponse, error) {
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if a := md.Get("authorization"); len(a) > 0 {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", a[0])
		}
	}
	l := p.log()
	l.inflight.Add(1)
	defer l.inflight.Done()
	if l.pair != nil && req.GetActionKind() == s3_lifecycle_pb.ActionKind_EXPIRATION_DAYS {
		id := req.GetExpectedIdentity()
		l.pair.wait(ctx, req.GetBucket(), fmt.Sprintf("%s/%s@%s %d %d %s %x", req.GetBucket(), req.GetObjectPath(), req.GetVersionId(),
			id.GetMtimeNs(), id.GetSize(), id.GetHeadFid(), id.GetExtendedHash()))
	}
	// The gateway's answer is recorded even when the worker is killed
	// meanwhile, so a delete done for a dead worker is counted.
	resp, err := p.next.LifecycleDelete(context.WithoutCancel(ctx), req)
	key, _, _ := strings.Cut(req.GetObjectPath(), ".versions/")
	target := key + " latest"
	if req.GetVersionId() != "" {
		target = key + "@" + req.GetVersionId()
	}
	c := swCall{proc: p.proc, bucket: req.GetBucket(), target: target, outcome: "ERROR"}
	if err == nil {
		c.outcome, c.reason = resp.GetOutcome().String(), resp.GetReason()
	} else {
		c.reason = err.Error()
	}
	l.add(c)
	return resp, err
}

// startTap serves a lifecycleTap for proc on a loopback port until t ends
// and returns its address, to give run-shard as -s3.
func startTap(t *testing.T, s3GRPC, proc string, log func() *swCalls) string {
	t.Helper()
	conn, err := grpc.NewClient(s3GRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial %s: %v", s3GRPC, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := grpc.NewServer()
	s3_lifecycle_pb.RegisterSeaweedS3LifecycleInternalServer(srv, &lifecycleTap{proc: proc, next: s3_lifecycle_pb.NewSeaweedS3LifecycleInternalClient(conn), log: log})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Stop()
		conn.Close()
	})
	return ln.Addr().String()
}

// swSeed is what seedDoubleDispatch wrote into one bucket.
type swSeed struct {
	bucket string
	after  time.Time           // the seed's last write
	seeded map[string]bool     // "<key>@<version>" of every version written
	ncOf   map[string]string   // n/ key -> its noncurrent version
	keys   map[string][]string // prefix -> keys
}

const swKeys = 32 // per prefix

// seedDoubleDispatch writes into a versioned bucket, for each of 32 keys
// under n/ and under e/, two versions, and backdates them three days: under
// n/ the older one's noncurrent stamp (due: NoncurrentDays 1), under e/
// both versions' mtime (due: Expiration Days 1 on the latest).
//
// SeaweedFS's reader shards each meta-log event by the filer path it
// changed, so one key's events fall in several shards: e/ key's two
// version files each route an Expiration Days match for the key's current
// version from their own shard (routeVersionFileExpiration), an n/ key's
// .versions directory routes its noncurrent version from a third.
func seedDoubleDispatch(t *testing.T, s3c *itest.S3, ft itest.FilerTarget, bucket string) swSeed {
	t.Helper()
	st := itest.OpenFiler(t, ft)
	seed := swSeed{bucket: bucket, seeded: map[string]bool{}, ncOf: map[string]string{}, keys: map[string][]string{}}
	for i := range swKeys {
		n, e := fmt.Sprintf("n/%02d", i), fmt.Sprintf("e/%02d", i)
		n1, _ := s3c.PutObject(t, bucket, n, "n1-"+n, nil)
		n2, _ := s3c.PutObject(t, bucket, n, "n2-"+n, nil)
		itest.BackdateNoncurrent(t, st, bucket, n, n1, 3*24*time.Hour)
		e1, _ := s3c.PutObject(t, bucket, e, "e1-"+e, nil)
		e2, _ := s3c.PutObject(t, bucket, e, "e2-"+e, nil)
		itest.Backdate(t, st, bucket, e, e1, 3*24*time.Hour)
		itest.Backdate(t, st, bucket, e, e2, 3*24*time.Hour)
		for _, kv := range [][2]string{{n, n1}, {n, n2}, {e, e1}, {e, e2}} {
			seed.seeded[kv[0]+"@"+kv[1]] = true
		}
		seed.ncOf[n] = n1
		seed.keys["n/"] = append(seed.keys["n/"], n)
		seed.keys["e/"] = append(seed.keys["e/"], e)
	}
	seed.after = time.Now()
	return seed
}

// swOutcome is what one scenario did to one seeded bucket.
type swOutcome struct {
	calls    map[string]int            // target -> LifecycleDelete calls
	done     map[string]int            // target -> DONE answers
	procs    map[string]map[string]int // target -> process -> calls
	reasons  map[string]int            // outcome/reason -> calls
	removed  map[string]int            // n/ key -> meta-log removals of its noncurrent version
	markers  map[string]int            // e/ key -> delete markers the meta-log shows created
	leftDMs  map[string]int            // e/ key -> delete markers left on the filer
	leftVers map[string]int            // key -> versions (delete markers included) left
}

// measure reads what the worker did to seed's bucket: the calls l saw, the
// meta-log since the seed and what the filer holds now.
func measure(t *testing.T, ft itest.FilerTarget, seed swSeed, l *swCalls) swOutcome {
	t.Helper()
	st := itest.OpenFiler(t, ft)
	o := swOutcome{calls: map[string]int{}, done: map[string]int{}, procs: map[string]map[string]int{}, reasons: map[string]int{},
		removed: map[string]int{}, markers: map[string]int{}, leftDMs: map[string]int{}, leftVers: map[string]int{}}
	for _, c := range l.of(seed.bucket) {
		o.calls[c.target]++
		if c.outcome == s3_lifecycle_pb.LifecycleDeleteOutcome_DONE.String() {
			o.done[c.target]++
		}
		if o.procs[c.target] == nil {
			o.procs[c.target] = map[string]int{}
		}
		o.procs[c.target][c.proc]++
		o.reasons[strings.TrimSpace(c.outcome+" "+c.reason)]++
	}
	err := st.SubscribeMetadata(context.Background(), seed.after.UnixNano(), time.Now().UnixNano(), func(ev filer.Event) error {
		if ev.Bucket != seed.bucket {
			return nil
		}
		switch {
		case ev.Type == filer.EventRemove && seed.ncOf[ev.Key] == ev.VersionID:
			o.removed[ev.Key]++
		case ev.Type == filer.EventPut && strings.HasPrefix(ev.Key, "e/") && !seed.seeded[ev.Key+"@"+ev.VersionID]:
			o.markers[ev.Key]++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the meta-log: %v", err)
	}
	vs, _ := itest.Left(t, st, seed.bucket)
	for _, v := range vs {
		key, _, _ := strings.Cut(v, "@")
		o.leftVers[key]++
		if strings.HasSuffix(v, "[DM]") {
			o.leftDMs[key]++
		}
	}
	return o
}

// summary logs the numbers.
func (o swOutcome) summary(t *testing.T, what string) {
	t.Helper()
	var multi, crossProc []string
	for target, n := range o.calls {
		if n > 1 {
			multi = append(multi, target)
		}
		if len(o.procs[target]) > 1 {
			crossProc = append(crossProc, target)
		}
	}
	sort.Strings(multi)
	sort.Strings(crossProc)
	calls := 0
	for _, n := range o.calls {
		calls += n
	}
	t.Logf("%s: %d LifecycleDelete calls on %d targets; %d targets called more than once, %d by both processes; answers %v",
		what, calls, len(o.calls), len(multi), len(crossProc), o.reasons)
	for target := range o.calls {
		key, _, _ := strings.Cut(strings.TrimSuffix(target, " latest"), "@")
		if !strings.HasPrefix(key, "n/") && !strings.HasPrefix(key, "e/") {
			t.Errorf("%s: a call on %s, which no rule selects", what, target)
		}
	}
}

// check logs the numbers and asserts that every due target of seed was
// done once, and that the meta-log and the filer agree with AWS: one
// removal per noncurrent version, one delete marker per e/ key.
func (o swOutcome) check(t *testing.T, what string, seed swSeed) {
	t.Helper()
	o.summary(t, what)
	for _, n := range seed.keys["n/"] {
		target := n + "@" + seed.ncOf[n]
		if o.done[target] != 1 || o.removed[n] != 1 || o.leftVers[n] != 1 {
			t.Errorf("%s: %s: %d DONE of %d calls, %d removals in the meta-log, %d versions left; want 1, 1 and 1",
				what, target, o.done[target], o.calls[target], o.removed[n], o.leftVers[n])
		}
	}
	for _, e := range seed.keys["e/"] {
		target := e + " latest"
		if o.done[target] != 1 || o.markers[e] != 1 || o.leftDMs[e] != 1 || o.leftVers[e] != 3 {
			t.Errorf("%s: %s: %d DONE of %d calls, %d delete markers created, %d left, %d versions left; want 1, 1, 1 and 3",
				what, target, o.done[target], o.calls[target], o.markers[e], o.leftDMs[e], o.leftVers[e])
		}
	}
}

// TestSeaweedFSWorkerDoubleDispatch measures whether SeaweedFS's own
// lifecycle worker (weed shell s3.lifecycle.run-shard), whose reader
// shards meta-log events by filer path (extractBucketKey in
// weed/s3api/s3lifecycle/reader/reader.go), dispatches one target from
// two shards, in the scenario where ilmctl sharding the same way did (see
// docs/design/daily-run.md#one-owner-per-target): 32 keys with two
// versions under NoncurrentDays 1 and 32 under Expiration Days 1, all due,
// replayed (a) by one pass over shards 0-15, (b) by two passes side by
// side over 0-7 and 8-15, (c) by a pass killed with SIGKILL after 16
// deletes, then run again; and (d) by two passes side by side over the
// same shards 0-15.
//
// A tap in front of the S3 gateway's gRPC counts the LifecycleDelete calls
// and their answers; the meta-log and the filer show what they did. In
// (a)-(c) the worker sends an e/ key's current version once per version
// file's event, so from two shards, and from two processes in (b); a
// noncurrent version only from its .versions directory's event. The
// gateway re-checks each call against the live key (LifecycleDelete in
// weed/s3api/s3api_internal_lifecycle.go: the identity the match carries
// against the latest version's; for noncurrent kinds the latest pointer,
// and NOT_FOUND for a version gone), so every call but one per target is
// NOOP_RESOLVED and each target is done once. In (d) both processes send
// the same call, identity and all, and the tap sends each pair side by
// side: the re-check and the delete are two steps, both calls pass the
// check, and e/ keys get two delete markers.
func TestSeaweedFSWorkerDoubleDispatch(t *testing.T) {
	itest.RequireServer(t, itest.SeaweedFS, "it runs SeaweedFS's own lifecycle worker")
	ft := itest.FilerEnv(t)
	s3c := itest.FromEnv(t)
	rules := lc +
		`<Rule><ID>exp</ID><Filter><Prefix>e/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>` +
		`<Rule><ID>nc</ID><Filter><Prefix>n/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`</LifecycleConfiguration>`
	buckets := map[string]string{}
	for _, name := range []string{"one", "two", "kill", "same"} {
		b := s3c.CreateBucket(t, "swworker-"+name)
		s3c.PutVersioning(t, b, "Enabled")
		s3c.PutLifecycleXML(t, b, rules)
		buckets[name] = b
	}

	var (
		mu  sync.Mutex
		cur = &swCalls{}
	)
	log := func() *swCalls {
		mu.Lock()
		defer mu.Unlock()
		return cur
	}
	scenario := func(l *swCalls) {
		mu.Lock()
		cur = l
		mu.Unlock()
	}
	tapA := startTap(t, ft.S3GRPC, "process 1", log)
	tapB := startTap(t, ft.S3GRPC, "process 2", log)
	runShard := func(shards, tap string) string {
		return "s3.lifecycle.run-shard -shards " + shards + " -s3 " + tap + " -events 0 -runtime 90s"
	}
	pass := func(shards, tap string) {
		t.Helper()
		out := itest.WeedShell(t, ft, runShard(shards, tap), 3*time.Minute)
		if !strings.Contains(out, "cursors checkpointed") {
			t.Fatalf("run-shard -shards %s did not complete:\n%s", shards, out)
		}
	}

	// The new buckets are a rule edit for the worker's cursors: a
	// recovery walk (of empty buckets) that rewinds them, so the passes
	// below replay the seeds from the meta-log.
	pass("0-15", tapA)

	// (a) One pass over every shard.
	one := seedDoubleDispatch(t, s3c, ft, buckets["one"])
	la := &swCalls{}
	scenario(la)
	pass("0-15", tapA)
	oa := measure(t, ft, one, la)
	oa.check(t, "one pass over 0-15", one)
	t.Logf("one pass over 0-15: answers to calls on other buckets %v", la.elsewhere(one.bucket))
	var twoEvents int
	for _, e := range one.keys["e/"] {
		if oa.calls[e+" latest"] >= 2 {
			twoEvents++
		}
	}
	if twoEvents == 0 {
		t.Errorf("one pass over 0-15: no e/ key's current version was sent from both its versions' events; SeaweedFS's router changed (routeVersionFileExpiration)")
	}

	// (b) Two processes side by side, on disjoint shards.
	two := seedDoubleDispatch(t, s3c, ft, buckets["two"])
	lb := &swCalls{}
	scenario(lb)
	var wg sync.WaitGroup
	for _, p := range [][2]string{{"0-7", tapA}, {"8-15", tapB}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := weedShell(ft, runShard(p[0], p[1]), 3*time.Minute, nil)
			if err != nil || !strings.Contains(out, "cursors checkpointed") {
				t.Errorf("run-shard -shards %s did not complete: %v\n%s", p[0], err, out)
			}
		}()
	}
	wg.Wait()
	ob := measure(t, ft, two, lb)
	ob.check(t, "two processes over 0-7 and 8-15", two)
	t.Logf("two processes: answers to calls on other buckets %v", lb.elsewhere(two.bucket))
	var both int
	for _, e := range two.keys["e/"] {
		if len(ob.procs[e+" latest"]) == 2 {
			both++
		}
	}
	if both == 0 {
		t.Errorf("two processes: no e/ key's current version was sent by both; SeaweedFS's reader changed how it shards (extractBucketKey)")
	}

	// (c) A pass killed with SIGKILL after 16 deletes on the bucket (the
	// 16th done by the gateway, its answer never read), then run again.
	killed := seedDoubleDispatch(t, s3c, ft, buckets["kill"])
	lk := &swCalls{killBucket: killed.bucket, killAfter: 16}
	scenario(lk)
	out, err := weedShell(ft, runShard("0-15", tapA), 3*time.Minute, lk)
	if err == nil || strings.Contains(out, "cursors checkpointed") {
		t.Fatalf("run-shard was not killed part-way (err %v):\n%s", err, out)
	}
	lk.inflight.Wait() // the dead worker's last calls, answered
	lr := &swCalls{}
	scenario(lr)
	pass("0-15", tapA)
	oc := measure(t, ft, killed, lk.merged(lr))
	oc.check(t, "a pass killed after 16 deletes, then run again", killed)
	t.Logf("killed and run again: answers to calls on other buckets %v", lk.merged(lr).elsewhere(killed.bucket))
	doneBefore := map[string]bool{}
	for _, c := range lk.of(killed.bucket) {
		if c.outcome == s3_lifecycle_pb.LifecycleDeleteOutcome_DONE.String() {
			doneBefore[c.target] = true
		}
	}
	again := map[string]int{}
	for _, c := range lr.of(killed.bucket) {
		if doneBefore[c.target] {
			again[strings.TrimSpace(c.outcome+" "+c.reason)]++
			if c.outcome == s3_lifecycle_pb.LifecycleDeleteOutcome_DONE.String() {
				t.Errorf("killed and run again: %s done again", c.target)
			}
		}
	}
	t.Logf("killed and run again: %d targets done before the kill; the second run's calls on them %v", len(doneBefore), again)

	// (d) Two processes side by side on the same shards, each call of
	// one sent to the gateway beside the same call of the other. The
	// gateway's re-check and its delete are two steps, so both calls
	// pass the check: two delete markers where AWS leaves one. A
	// noncurrent version is removed once (the second removal finds
	// nothing, yet answers DONE).
	same := seedDoubleDispatch(t, s3c, ft, buckets["same"])
	pair := &pairing{timeout: 30 * time.Second, waiting: map[string]chan struct{}{}, paired: map[string]int{}}
	ld := &swCalls{pair: pair}
	scenario(ld)
	for _, tap := range []string{tapA, tapB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := weedShell(ft, runShard("0-15", tap), 3*time.Minute, nil)
			if err != nil || !strings.Contains(out, "cursors checkpointed") {
				t.Errorf("run-shard -shards 0-15 did not complete: %v\n%s", err, out)
			}
		}()
	}
	wg.Wait()
	od := measure(t, ft, same, ld)
	od.summary(t, "two processes over 0-15")
	pair.mu.Lock()
	paired := pair.paired[same.bucket]
	pair.mu.Unlock()
	var twoMarkers []string
	for _, e := range same.keys["e/"] {
		if od.markers[e] != od.leftDMs[e] || od.markers[e] < 1 || od.markers[e] > 2 || od.leftVers[e] != 2+od.leftDMs[e] {
			t.Errorf("two processes over 0-15: %s: %d delete markers created, %d left, %d versions left; want 1 or 2, as many, and 2 more",
				e, od.markers[e], od.leftDMs[e], od.leftVers[e])
		}
		if od.leftDMs[e] == 2 {
			twoMarkers = append(twoMarkers, e)
		}
	}
	var doneTwice int
	for _, n := range same.keys["n/"] {
		if od.done[n+"@"+same.ncOf[n]] > 1 {
			doneTwice++
		}
		if od.removed[n] != 1 || od.leftVers[n] != 1 {
			t.Errorf("two processes over 0-15: %s: %d removals in the meta-log, %d versions left; want 1 and 1", n, od.removed[n], od.leftVers[n])
		}
	}
	t.Logf("two processes over 0-15: %d current-version calls sent in pairs; %d of %d e/ keys left with two delete markers %v; "+
		"%d of %d noncurrent versions answered DONE twice, removed once", paired, len(twoMarkers), len(same.keys["e/"]), twoMarkers,
		doneTwice, len(same.keys["n/"]))
	if len(twoMarkers) == 0 {
		t.Errorf("two processes over 0-15: no e/ key got two delete markers from %d calls sent in pairs: "+
			"SeaweedFS's LifecycleDelete now checks and deletes as one step; say so in docs/design/daily-run.md#one-owner-per-target", paired)
	}
}

// weedShell runs one weed shell command like itest.WeedShell but returns
// its error; with kill set, the process is registered for kill to SIGKILL
// it.
func weedShell(ft itest.FilerTarget, command string, timeout time.Duration, kill *swCalls) (string, error) {
	c, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(c, ft.Weed, "shell", "-master="+ft.Master, "-filer="+ft.Filer)
	cmd.Stdin = strings.NewReader(command + "\nexit\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	if kill != nil {
		kill.mu.Lock()
		kill.kill = func() { _ = cmd.Process.Kill() }
		kill.mu.Unlock()
	}
	err := cmd.Wait()
	return out.String(), err
}
