package mcpserver

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWorkLimit checks the work limit on expensive tool calls: with one
// slot and a queue of two, one call runs, two wait (in order), a fourth
// is refused at once with unavailable and a time to retry after, a waiting
// call whose context ends leaves the queue, cheap calls never wait, and
// memory is given back when the last running call ends.
func TestWorkLimit(t *testing.T) {
	l := newWorkLimit(1, 2)
	var freed atomic.Int32
	l.free = func() { freed.Add(1) }
	l.settle = 10 * time.Millisecond
	hold := make(chan struct{})
	var running, peak atomic.Int32
	next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p := req.GetParams().(*mcp.CallToolParamsRaw); p.Name == "find_concepts" {
			return &mcp.CallToolResult{}, nil
		}
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-hold
		running.Add(-1)
		return &mcp.CallToolResult{}, nil
	}
	h := limited(l)(next)
	call := func(ctx context.Context, tool string) (mcp.Result, error) {
		return h(ctx, "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool}})
	}
	type answer struct {
		res mcp.Result
		err error
	}
	start := func(ctx context.Context, tool string) chan answer {
		ch := make(chan answer, 1)
		go func() { r, err := call(ctx, tool); ch <- answer{r, err} }()
		return ch
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting until %s", what)
			}
		}
	}
	waiting := func() int { l.mu.Lock(); defer l.mu.Unlock(); return l.waiting }

	first := start(context.Background(), "analyze_graph")
	waitFor("the first call runs", func() bool { return running.Load() == 1 })
	cancelled, cancel := context.WithCancel(context.Background())
	second := start(cancelled, "build_context")
	third := start(context.Background(), "search_notes")
	waitFor("two calls wait", func() bool { return waiting() == 2 })

	// The queue is full: refused at once, with a time to retry after.
	res, err := call(context.Background(), "export_graph")
	r, _ := res.(*mcp.CallToolResult)
	if err != nil || r == nil || !r.IsError {
		t.Fatalf("a call beyond the queue: %v %v, want a tool error", res, err)
	}
	text := r.Content[0].(*mcp.TextContent).Text
	if !strings.HasPrefix(text, "unavailable: ") || !strings.Contains(text, "retry export_graph after 2s") {
		t.Errorf("refusal reads %q, want unavailable with a retry time", text)
	}
	// A cheap call does not wait.
	if res, err := call(context.Background(), "find_concepts"); err != nil || res.(*mcp.CallToolResult).IsError {
		t.Errorf("find_concepts while the limit is full: %v %v", res, err)
	}
	// A waiting call whose context ends leaves the queue.
	cancel()
	a := <-second
	if r, _ := a.res.(*mcp.CallToolResult); a.err != nil || r == nil || !r.IsError ||
		!strings.HasPrefix(r.Content[0].(*mcp.TextContent).Text, "unavailable: build_context was cancelled") {
		t.Errorf("cancelled waiting call: %+v", a)
	}
	waitFor("the cancelled call leaves the queue", func() bool { return waiting() == 1 })

	close(hold)
	for _, ch := range []chan answer{first, third} {
		if a := <-ch; a.err != nil || a.res.(*mcp.CallToolResult).IsError {
			t.Errorf("a limited call failed: %+v", a)
		}
	}
	if p := peak.Load(); p != 1 {
		t.Errorf("%d expensive calls ran at once, want 1", p)
	}
	waitFor("the memory is given back once the last call ended", func() bool { return freed.Load() >= 1 })
	time.Sleep(5 * l.settle)
	if f := freed.Load(); f != 1 {
		t.Errorf("memory given back %d times, want once (settle after the last call ended; then at most every %v)", f, freeAfter)
	}
	// A second burst right after: its memory is given back too, once the
	// interval has passed.
	l.freeEvery = 50 * time.Millisecond
	l.lastFreed = time.Now()
	hold = make(chan struct{})
	close(hold)
	if a := <-start(context.Background(), "analyze_graph"); a.err != nil {
		t.Fatal(a.err)
	}
	if f := freed.Load(); f != 1 {
		t.Errorf("memory given back %d times right after the second burst, want still once", f)
	}
	waitFor("the second burst's memory is given back", func() bool { return freed.Load() >= 2 })
	waitFor("and once more, freeEvery later", func() bool { return freed.Load() >= 3 })
	time.Sleep(5 * l.freeEvery)
	if f := freed.Load(); f != 3 {
		t.Errorf("an idle server gave memory back %d times after two bursts, want 3 (no more once idle)", f)
	}
}
