// Command noema is a local-first memory server for LLM agents: it indexes a
// vault of Markdown notes whose [[WikiLinks]] name concepts, and serves the
// resulting knowledge graph over MCP (stdio and streamable HTTP) and as CLI
// commands. Run `noema help` for the commands.
//
// The command line itself is package cli; this file wires it to the
// process: its arguments, streams and signals.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/noema-mem/noema/cli"
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	c := &cli.CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	os.Exit(supervise(sigs, cli.ExitGrace, os.Stderr, os.Exit, func(ctx context.Context, stop func(error)) int {
		c.Stop = stop
		return c.Run(ctx, os.Args[1:])
	}))
}

// stopStatus is the exit status of a command stopped for cause.
func stopStatus(cause error) int {
	var in *cli.Interrupted
	if errors.As(cause, &in) {
		return cli.SignalStatus(in.Signal)
	}
	return cli.ExitError
}

// supervise runs run with a context that is cancelled, with the cause, on
// the first signal from sigs. run may also call stop when it is winding down
// on its own (the end of `noema mcp`'s input); that cancels nothing. From
// either moment run has grace to return; after that, or on a signal while
// stopping, supervise calls exit itself: a command blocked where
// cancellation cannot reach still ends promptly, and a second Ctrl-C always
// works.
func supervise(sigs <-chan os.Signal, grace time.Duration, stderr io.Writer, exit func(int), run func(ctx context.Context, stop func(cause error)) int) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var (
		mu    sync.Mutex
		cause error // why the process is stopping; nil until it is
	)
	begin := func(c error) bool {
		mu.Lock()
		defer mu.Unlock()
		if cause != nil {
			return false
		}
		cause = c
		return true
	}
	stopped := make(chan struct{}, 1)
	stop := func(c error) {
		if begin(c) {
			stopped <- struct{}{}
		}
	}
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		var deadline <-chan time.Time
		for {
			select {
			case <-finished:
				return
			case sig := <-sigs:
				in := &cli.Interrupted{Signal: sig}
				if !begin(in) {
					fmt.Fprintf(stderr, "noema: %s while stopping: exiting now\n", cli.SignalName(sig))
					exit(cli.SignalStatus(sig))
					return
				}
				cancel(in)
				deadline = time.After(grace)
			case <-stopped:
				deadline = time.After(grace)
			case <-deadline:
				mu.Lock()
				c := cause
				mu.Unlock()
				fmt.Fprintf(stderr, "noema: %v, and still busy after %s: exiting now\n", c, grace)
				exit(stopStatus(c))
				return
			}
		}
	}()
	return run(ctx, stop)
}
