// Command ilmctl keeps S3 lifecycle honest on SeaweedFS, RustFS and MinIO
// clusters: one lifecycle pass per run, plus operator tooling for ILM
// durable records.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCommand()
	os.Args = append(os.Args[:1], normalizeSingleDashFlags(root, os.Args[1:])...)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ilmctl: %v\n", err)
	}
	os.Exit(cmdutil.Code(err))
}
