// Command mongobench measures what a MongoDB deployment really does and
// records every run as a result document. See README.md and docs/.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mongobench/mongobench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the process at once
	}()
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
