package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/internal/noematest"
)

// exits records the calls of a fake os.Exit.
type exits struct {
	mu    sync.Mutex
	codes []int
	at    []time.Time
	c     chan int
}

func newExits() *exits { return &exits{c: make(chan int, 4)} }

func (e *exits) exit(code int) {
	e.mu.Lock()
	e.codes = append(e.codes, code)
	e.at = append(e.at, time.Now())
	e.mu.Unlock()
	e.c <- code
}

func TestSuperviseCancelsOnSignal(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ex := newExits()
	var cause error
	code := supervise(sigs, time.Minute, io.Discard, ex.exit, func(ctx context.Context, _ func(error)) int {
		sigs <- syscall.SIGTERM
		<-ctx.Done()
		cause = context.Cause(ctx)
		return 7
	})
	var in *cli.Interrupted
	if code != 7 || !errors.As(cause, &in) || in.Signal != syscall.SIGTERM || in.Error() != "interrupted by SIGTERM" {
		t.Errorf("code %d, cause %v", code, cause)
	}
	if len(ex.codes) != 0 {
		t.Errorf("exit called: %v", ex.codes)
	}
}

// TestSuperviseForcesExit: a command that ignores its context is ended
// after the grace period, with the signal's status.
func TestSuperviseForcesExit(t *testing.T) {
	for _, c := range []struct {
		sig  os.Signal
		code int
	}{{syscall.SIGTERM, 143}, {os.Interrupt, 130}} {
		sigs := make(chan os.Signal, 2)
		ex := newExits()
		var stderr noematest.Buffer
		release := make(chan struct{})
		var sent time.Time
		go supervise(sigs, 200*time.Millisecond, &stderr, ex.exit, func(ctx context.Context, _ func(error)) int {
			sent = time.Now()
			sigs <- c.sig
			<-release // blocked where cancellation cannot reach
			return 0
		})
		select {
		case got := <-ex.c:
			if got != c.code {
				t.Errorf("%v: exit %d, want %d", c.sig, got, c.code)
			}
			if d := ex.at[0].Sub(sent); d < 200*time.Millisecond || d > 5*time.Second {
				t.Errorf("%v: exit after %v, want the 200ms grace", c.sig, d)
			}
			if !strings.Contains(stderr.String(), "still busy after 200ms") {
				t.Errorf("stderr %q", stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: no exit", c.sig)
		}
		close(release)
	}
}

// TestSuperviseSecondSignal: a second signal exits at once, whatever the
// grace period.
func TestSuperviseSecondSignal(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ex := newExits()
	var stderr noematest.Buffer
	release := make(chan struct{})
	defer close(release)
	go supervise(sigs, time.Hour, &stderr, ex.exit, func(ctx context.Context, _ func(error)) int {
		sigs <- syscall.SIGTERM
		<-ctx.Done()
		sigs <- os.Interrupt
		<-release
		return 0
	})
	select {
	case got := <-ex.c:
		if got != 130 || !strings.Contains(stderr.String(), "SIGINT while stopping") {
			t.Errorf("exit %d, stderr %q", got, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second signal did not exit")
	}
}

// TestSuperviseStop: stop (the end of noema mcp's input) cancels nothing
// but bounds the time to stop; a signal then exits at once.
func TestSuperviseStop(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ex := newExits()
	release := make(chan struct{})
	var stderr noematest.Buffer
	go supervise(sigs, 100*time.Millisecond, &stderr, ex.exit, func(ctx context.Context, stop func(error)) int {
		stop(cli.ErrEndOfInput)
		stop(errors.New("ignored: already stopping"))
		if ctx.Err() != nil {
			t.Error("stop cancelled the context")
		}
		<-release
		return 0
	})
	select {
	case got := <-ex.c:
		if got != cli.ExitError || !strings.Contains(stderr.String(), "end of input, and still busy after 100ms") {
			t.Errorf("exit %d, stderr %q", got, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after stop")
	}
	close(release)

	// A signal after stop exits at once.
	ex = newExits()
	release2 := make(chan struct{})
	defer close(release2)
	go supervise(sigs, time.Hour, io.Discard, ex.exit, func(ctx context.Context, stop func(error)) int {
		stop(cli.ErrEndOfInput)
		sigs <- syscall.SIGTERM
		<-release2
		return 0
	})
	select {
	case got := <-ex.c:
		if got != 143 {
			t.Errorf("exit %d, want 143", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a signal after stop did not exit")
	}

	// A command that returns in time exits with its own status.
	ex = newExits()
	code := supervise(sigs, time.Hour, io.Discard, ex.exit, func(ctx context.Context, stop func(error)) int {
		stop(cli.ErrEndOfInput)
		return 0
	})
	if code != 0 || len(ex.codes) != 0 {
		t.Errorf("code %d, exits %v", code, ex.codes)
	}
}
