package main

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// TestRPCProxy forwards unary calls and their errors to a real gRPC
// server and counts them by method.
func TestRPCProxy(t *testing.T) {
	serve := func(s *grpc.Server) string {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = s.Serve(lis) }()
		t.Cleanup(s.Stop)
		return lis.Addr().String()
	}
	hs := health.NewServer()
	hs.SetServingStatus("filer", healthpb.HealthCheckResponse_SERVING)
	backend := grpc.NewServer()
	healthpb.RegisterHealthServer(backend, hs)
	to := serve(backend)

	cc, err := grpc.NewClient(to, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	stats := newRPCStats()
	proxy := serve(proxyServer(cc, stats))

	client, err := grpc.NewClient(proxy, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	hc := healthpb.NewHealthClient(client)
	ctx := context.Background()
	for _, tc := range []struct {
		service string
		want    healthpb.HealthCheckResponse_ServingStatus
		code    codes.Code
	}{
		{"filer", healthpb.HealthCheckResponse_SERVING, codes.OK},
		{"filer", healthpb.HealthCheckResponse_SERVING, codes.OK},
		{"nope", 0, codes.NotFound},
	} {
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: tc.service})
		if status.Code(err) != tc.code {
			t.Fatalf("Check(%q) through the proxy: %v, want code %v", tc.service, err, tc.code)
		}
		if err == nil && resp.GetStatus() != tc.want {
			t.Errorf("Check(%q) = %v, want %v", tc.service, resp.GetStatus(), tc.want)
		}
	}
	ms := stats.method("/grpc.health.v1.Health/Check")
	if got := ms.calls.Load(); got != 3 {
		t.Errorf("counted %d Check calls, want 3", got)
	}
	if got := ms.msgs.Load(); got != 2 {
		t.Errorf("counted %d messages received, want 2 (the failed call has none)", got)
	}
}
