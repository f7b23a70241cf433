// Command ilmctl keeps S3 lifecycle honest on SeaweedFS, RustFS and MinIO
// clusters: one lifecycle pass per run, plus operator tooling for ILM
// durable records.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/internal/hint"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCommand()
	os.Args = append(os.Args[:1], normalizeSingleDashFlags(root, os.Args[1:])...)
	code := report(os.Stderr, root.ExecuteContext(ctx))
	stop()
	os.Exit(code)
}

// report is the one place an error leaves ilmctl: its message on one line,
// then each hint attached to it (hint.With, or an error type with a Hint
// method) on a line of its own, and the exit code of its kind
// (cmdutil.Code). Commands return errors and never print them.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return cmdutil.ExitOK
	}
	fmt.Fprintf(stderr, "ilmctl: %v\n", err)
	for _, h := range hint.All(err) {
		fmt.Fprintf(stderr, "ilmctl: hint: %s\n", h)
	}
	return cmdutil.Code(err)
}
