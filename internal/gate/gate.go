// Package gate lets a server's background work give way to the requests
// it is serving.
//
// A server keeps caches warm and rankings current in background goroutines
// (the note and concept vectors loaded at start, the communities and
// PageRank recomputed after writes, the first sync). On a machine with few
// cores they hold every processor the Go runtime has, and a request that
// blocks for a moment (an fsync, a page read) then waits in the run queue
// until the scheduler preempts one of them — about 10 ms each time, several
// times a request. Background work marked with [Background] calls [Yield]
// in its loops; while a request begun with [Gate.Begin] is in flight, Yield
// hands the processor to whatever goroutine is waiting (runtime.Gosched).
// It never blocks: with no request waiting to run, the background goroutine
// goes on at once, so it cannot be starved or wedged by a request that is
// itself waiting for it.
package gate

import (
	"context"
	"runtime"
	"sync/atomic"
)

// Gate counts the requests in flight in one process. The zero value is
// ready to use; a nil *Gate counts nothing.
type Gate struct {
	inFlight atomic.Int64
}

// Begin marks a request as in flight until the returned function is
// called (once).
func (g *Gate) Begin() (end func()) {
	if g == nil {
		return func() {}
	}
	g.inFlight.Add(1)
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			g.inFlight.Add(-1)
		}
	}
}

// InFlight is the number of requests in flight.
func (g *Gate) InFlight() int64 {
	if g == nil {
		return 0
	}
	return g.inFlight.Load()
}

type key struct{}

// Background returns a context for background work that gives way to g's
// requests: [Yield] with it (or a context derived from it) yields while
// one is in flight. g may be nil (no gate).
func Background(ctx context.Context, g *Gate) context.Context {
	if g == nil {
		return ctx
	}
	return context.WithValue(ctx, key{}, g)
}

// Request returns ctx marked as a request of g, so that work the request
// leaves running after it ends ([Detached]) is background work of g. g
// may be nil.
func Request(ctx context.Context, g *Gate) context.Context {
	if g == nil {
		return ctx
	}
	return context.WithValue(ctx, requestKey{}, g)
}

type requestKey struct{}

// Detached returns ctx without its cancellation (context.WithoutCancel),
// for work a request starts and leaves running: when ctx is a request of a
// gate ([Request]), the work is background work of that gate.
func Detached(ctx context.Context) context.Context {
	bg := context.WithoutCancel(ctx)
	if g, ok := ctx.Value(requestKey{}).(*Gate); ok && From(ctx) == nil {
		return Background(bg, g)
	}
	return bg
}

// From returns the gate whose background work ctx is, or nil.
func From(ctx context.Context) *Gate {
	g, _ := ctx.Value(key{}).(*Gate)
	return g
}

// Yield gives the processor to a waiting goroutine when ctx is background
// work (see [Background]) and a request is in flight; otherwise it returns
// at once. Call it in the loops of background work, every few hundred
// microseconds of work: it costs a context lookup and an atomic load.
func Yield(ctx context.Context) {
	if g := From(ctx); g != nil && g.inFlight.Load() > 0 {
		runtime.Gosched()
	}
}
