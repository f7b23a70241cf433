package seaweedfs

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ilmctl/ilmctl/internal/hint"
)

// A filer that does not answer is one short line naming the gRPC address
// tried and the status code, and a hint naming the --filer address and the
// port rule; the gRPC error stays reachable through Unwrap.
func TestOpenNoAnswer(t *testing.T) {
	// A loopback port nobody listens on: taken, then given back.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	grpcPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if grpcPort <= grpcPortOffset {
		t.Skipf("loopback port %d has no HTTP port below it", grpcPort)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(grpcPort-grpcPortOffset))
	grpcAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(grpcPort))

	s, err := Open(context.Background(), addr, Options{})
	if err == nil {
		s.Close()
		t.Fatalf("Open(%s) answered; want no answer", addr)
	}
	if got, want := err.Error(), "no seaweedfs filer answers on gRPC "+grpcAddr+" (Unavailable)"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	wantHint := "is a filer running at " + addr + "? (its gRPC port is that port + 10000)"
	if got := hint.All(err); len(got) != 1 || got[0] != wantHint {
		t.Errorf("hints = %q, want [%q]", got, wantHint)
	}
	if c := status.Code(errors.Unwrap(err)); c != codes.Unavailable {
		t.Errorf("unwrapped gRPC code = %v, want Unavailable", c)
	}
	if n := len("ilmctl: " + err.Error()); n > 80 {
		t.Errorf("the error line is %d columns, want at most 80", n)
	}
}
