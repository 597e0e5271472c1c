// Command noema is a local-first memory server for LLM agents: it indexes a
// vault of Markdown notes whose [[WikiLinks]] name concepts, and serves the
// resulting knowledge graph over MCP (stdio and streamable HTTP) and as CLI
// commands. Run `noema help` for the commands.
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
)

// exitGrace is how long noema may take to stop once asked to — SIGINT,
// SIGTERM, or the end of `noema mcp`'s input — before it exits regardless of
// what is still running (a read that blocks in the kernel, a driver that
// ignores cancellation). Nothing is lost by that: every write is an atomic
// rename or an SQLite transaction, which survive SIGKILL too.
const exitGrace = 2 * time.Second

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	os.Exit(supervise(sigs, exitGrace, os.Stderr, os.Exit, func(ctx context.Context, stop func(error)) int {
		m.stop = stop
		return m.Run(ctx, os.Args[1:])
	}))
}

// interrupted is the cancellation cause of a command stopped by a signal.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "interrupted by " + signalName(e.sig) }

// errEndOfInput is the cancellation cause of `noema mcp` when its input ends.
var errEndOfInput = errors.New("end of input")

// signalName names sig the way kill(1) does.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// signalStatus is the exit status of a command stopped by sig: 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM), as shells report it.
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitError
}

// stopStatus is the exit status of a command stopped for cause.
func stopStatus(cause error) int {
	var in *interrupted
	if errors.As(cause, &in) {
		return signalStatus(in.sig)
	}
	return exitError
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
				in := &interrupted{sig}
				if !begin(in) {
					fmt.Fprintf(stderr, "noema: %s while stopping: exiting now\n", signalName(sig))
					exit(signalStatus(sig))
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
