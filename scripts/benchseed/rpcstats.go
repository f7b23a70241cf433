package main

import (
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
)

// rpcStats counts a pass's gRPC calls by method: calls, the time spent
// waiting for them (summed over concurrent calls), stream messages
// received, the most calls of the method in flight at once, and when the
// first started and the last ended. It says
// how much of a pass is round trips and how much the server is kept busy.
type rpcStats struct {
	start time.Time
	mu    sync.Mutex
	m     map[string]*methodStats
}

type methodStats struct {
	calls, msgs      atomic.Int64
	waitNs           atomic.Int64
	inFlight, maxFly atomic.Int64
	// firstNs and lastNs are the first call's start and the last call's
	// end, after rpcStats.start: when in the pass the method was used.
	firstNs, lastNs atomic.Int64
	start           time.Time
}

func newRPCStats() *rpcStats { return &rpcStats{start: time.Now(), m: map[string]*methodStats{}} }

func (r *rpcStats) method(name string) *methodStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	ms := r.m[name]
	if ms == nil {
		ms = &methodStats{start: r.start}
		ms.firstNs.Store(int64(time.Since(r.start)))
		r.m[name] = ms
	}
	return ms
}

func (ms *methodStats) begin() time.Time {
	ms.calls.Add(1)
	n := ms.inFlight.Add(1)
	for {
		old := ms.maxFly.Load()
		if n <= old || ms.maxFly.CompareAndSwap(old, n) {
			break
		}
	}
	return time.Now()
}

func (ms *methodStats) end(t0 time.Time) {
	ms.inFlight.Add(-1)
	ms.waitNs.Add(int64(time.Since(t0)))
	now := int64(time.Since(ms.start))
	for {
		old := ms.lastNs.Load()
		if now <= old || ms.lastNs.CompareAndSwap(old, now) {
			break
		}
	}
}

func (r *rpcStats) dialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			ms := r.method(method)
			t0 := ms.begin()
			defer ms.end(t0)
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			ms := r.method(method)
			t0 := ms.begin()
			cs, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil {
				ms.end(t0)
				return nil, err
			}
			return &countedStream{ClientStream: cs, ms: ms, t0: t0}, nil
		}),
	}
}

// countedStream counts received messages and ends the call at the
// stream's first error (io.EOF included).
type countedStream struct {
	grpc.ClientStream
	ms    *methodStats
	t0    time.Time
	ended atomic.Bool
}

func (s *countedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err == nil {
		s.ms.msgs.Add(1)
		return nil
	}
	if s.ended.CompareAndSwap(false, true) {
		s.ms.end(s.t0)
	}
	return err
}

// print writes one line per method, most calls first, and the process's
// CPU time.
func (r *rpcStats) print(w io.Writer, wall time.Duration) {
	r.mu.Lock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	r.mu.Unlock()
	sort.Slice(names, func(i, j int) bool { return r.m[names[i]].calls.Load() > r.m[names[j]].calls.Load() })
	fmt.Fprintf(w, "%-28s %9s %10s %11s %9s %8s %8s %8s\n", "rpc", "calls", "msgs_recv", "wait_s", "avg_ms", "max_fly", "first_s", "last_s")
	for _, n := range names {
		ms := r.m[n]
		c := ms.calls.Load()
		wait := time.Duration(ms.waitNs.Load())
		fmt.Fprintf(w, "%-28s %9d %10d %11.1f %9.3f %8d %8.1f %8.1f\n", path.Base(n), c, ms.msgs.Load(), wait.Seconds(),
			float64(wait.Microseconds())/1000/float64(max(c, 1)), ms.maxFly.Load(),
			time.Duration(ms.firstNs.Load()).Seconds(), time.Duration(ms.lastNs.Load()).Seconds())
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		fmt.Fprintf(w, "ilmctl process: wall %.1fs, cpu user %.1fs sys %.1fs, max RSS %d MiB\n", wall.Seconds(),
			time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds(), ru.Maxrss/1024)
	}
}
