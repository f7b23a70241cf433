package seaweedfs

import "google.golang.org/grpc"

// ExtraDialOptions are appended to the options of every gRPC connection
// Open makes. It exists for benchmark tools (scripts/benchseed counts the
// RPCs of a pass with an interceptor); ilmctl itself never sets it. Set it
// before Open; it is not safe to change while a Store is being opened.
var ExtraDialOptions []grpc.DialOption
