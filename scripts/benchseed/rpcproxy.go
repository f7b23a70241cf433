package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// rawFrame is one gRPC message, passed through undecoded.
type rawFrame struct{ b []byte }

// rawCodec moves messages as bytes, so the proxy needs no protobuf types.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	f, ok := v.(*rawFrame)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot marshal %T", v)
	}
	return f.b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	f, ok := v.(*rawFrame)
	if !ok {
		return fmt.Errorf("rawCodec: cannot unmarshal into %T", v)
	}
	f.b = append(f.b[:0], data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// rpcProxy listens on -listen and forwards every gRPC call, undecoded and
// with its metadata, to -to, counting calls and messages by method the
// way profile-run counts ilmctl's (rpcStats). On SIGTERM or SIGINT it
// prints the table to stderr and exits. It lets the benchmark count the
// RPCs of a client it cannot instrument, SeaweedFS's weed shell, at the
// cost of one loopback hop per call (CPU in the proxy, not in the client
// or the server).
func rpcProxy(args []string) int {
	fs := flag.NewFlagSet("rpc-proxy", flag.ExitOnError)
	listen := fs.String("listen", "", "host:port to listen on")
	to := fs.String("to", "", "host:port of the gRPC server to forward to")
	_ = fs.Parse(args)
	if *listen == "" || *to == "" {
		fmt.Fprintln(os.Stderr, "usage: benchseed rpc-proxy -listen HOST:PORT -to HOST:PORT")
		return 2
	}
	cc, err := grpc.NewClient(*to, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30), grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchseed:", err)
		return 1
	}
	defer cc.Close()
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchseed:", err)
		return 1
	}
	stats := newRPCStats()
	srv := proxyServer(cc, stats)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		srv.Stop()
	}()
	t0 := time.Now()
	if err := srv.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		fmt.Fprintln(os.Stderr, "benchseed:", err)
		return 1
	}
	stats.print(os.Stderr, time.Since(t0))
	return 0
}

// proxyServer is a gRPC server that forwards every call to cc and
// counts it in stats.
func proxyServer(cc *grpc.ClientConn, stats *rpcStats) *grpc.Server {
	return grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.MaxRecvMsgSize(1<<30), grpc.MaxSendMsgSize(1<<30),
		grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
			method, _ := grpc.MethodFromServerStream(ss)
			ms := stats.method(method)
			t0 := ms.begin()
			defer ms.end(t0)
			return forward(ss, cc, method, ms)
		}))
}

// forward relays one call between the client's stream ss and a new
// stream to cc, in both directions, until both ends are done.
func forward(ss grpc.ServerStream, cc *grpc.ClientConn, method string, ms *methodStats) error {
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	md, _ := metadata.FromIncomingContext(ctx)
	cs, err := cc.NewStream(metadata.NewOutgoingContext(ctx, md.Copy()),
		&grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return err
	}
	up := make(chan error, 1)
	go func() {
		for {
			f := &rawFrame{}
			if err := ss.RecvMsg(f); err != nil {
				if errors.Is(err, io.EOF) {
					up <- cs.CloseSend()
				} else {
					up <- err
				}
				return
			}
			if err := cs.SendMsg(f); err != nil {
				up <- err
				return
			}
		}
	}()
	if h, err := cs.Header(); err == nil {
		_ = ss.SendHeader(h)
	}
	for {
		f := &rawFrame{}
		if err := cs.RecvMsg(f); err != nil {
			ss.SetTrailer(cs.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		ms.msgs.Add(1)
		if err := ss.SendMsg(f); err != nil {
			return err
		}
	}
}
