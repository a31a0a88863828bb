package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/acme/comments-gateway/internal/command"
)

// main runs the command line (package command) until it ends or SIGINT or
// SIGTERM asks serve to shut down gracefully.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := command.Main(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
