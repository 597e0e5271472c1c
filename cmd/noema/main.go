// Command noema is a local-first memory server for LLM agents: it indexes a
// vault of Markdown notes whose [[WikiLinks]] name concepts, and serves the
// resulting knowledge graph over MCP (stdio and streamable HTTP) and as CLI
// commands. Run `noema help` for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	code := m.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
