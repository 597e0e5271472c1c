package mcpserver

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema"
)

// ExpensiveTools returns the tools whose cost grows with the vault or the
// request (whole-graph analyses, exports, breadth-first walks, full-text
// and vector scans, syncs). They run under a work limit (see workLimit) so
// that the cheap calls — find_concepts, read_note, get_node and the rest —
// keep answering in milliseconds while they run.
func ExpensiveTools() []string {
	return []string{"analyze_duplicates", "analyze_graph", "build_context", "export_graph",
		"find_similar_concepts", "search_notes", "subgraph", "sync"}
}

// Work limit defaults (see DefaultWorkLimit).
const (
	// QueuedPerSlot is how many expensive calls may wait per running one.
	QueuedPerSlot = 16
	// RetryAfter is what a call refused for lack of room is told to wait.
	RetryAfter = 2 * time.Second
	// freeAfter is the least time between two returns of memory to the
	// OS (see workLimit.release).
	freeAfter = 5 * time.Second
	// freeSettle is how long after the last expensive call ends memory
	// is given back: the call's result is encoded and written after its
	// handler returns, and that garbage is part of what it grew.
	freeSettle = time.Second
)

// DefaultWorkLimit is how many expensive calls run at once: all cores but
// one, at least one, so one core always stays free for cheap calls.
func DefaultWorkLimit() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// workLimit runs at most slots expensive calls at once. Further ones wait,
// first come first served, at most queue of them; a wait ends with the
// call's context. Beyond the queue a call is refused at once with
// unavailable and a time to retry after. When the last running call ends,
// the heap it grew is given back to the OS (debug.FreeOSMemory, at most
// once per freeAfter: then later, if still idle), so an idle server
// returns close to its idle size.
type workLimit struct {
	slots chan struct{}
	queue int

	mu        sync.Mutex
	waiting   int
	running   int
	lastFreed time.Time
	freeLater bool // a freeScheduled is scheduled
	// tail is set once the memory of the last burst was given back and a
	// second, later return is scheduled: the answer of a long call is
	// encoded and written after it ends, which can take longer than
	// settle.
	tail bool
	// free returns memory to the OS, at most once per freeEvery;
	// debug.FreeOSMemory and freeAfter unless a test replaces them.
	free      func()
	freeEvery time.Duration
	settle    time.Duration // freeSettle unless a test replaces it
}

func newWorkLimit(slots, queue int) *workLimit {
	return &workLimit{slots: make(chan struct{}, max(1, slots)), queue: max(0, queue), free: debug.FreeOSMemory, freeEvery: freeAfter, settle: freeSettle}
}

// acquire waits for a slot (or refuses the call when too many wait) and
// returns the function that releases it.
func (l *workLimit) acquire(ctx context.Context, tool string) (release func(), err error) {
	select {
	case l.slots <- struct{}{}:
		return l.started(), nil
	default:
	}
	l.mu.Lock()
	if l.waiting >= l.queue {
		running, waiting := l.running, l.waiting
		l.mu.Unlock()
		return nil, noema.Errorf(noema.EUNAVAILABLE, "busy: %d expensive calls (%s and the like) are running and %d waiting; retry %s after %s",
			running, "analyze_graph, build_context, search_notes, export_graph", waiting, tool, RetryAfter)
	}
	l.waiting++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
	}()
	select {
	case l.slots <- struct{}{}:
		return l.started(), nil
	case <-ctx.Done():
		return nil, noema.Errorf(noema.EUNAVAILABLE, "%s was cancelled while waiting for a running expensive call to finish", tool)
	}
}

// started counts a call that took a slot and returns its release.
func (l *workLimit) started() func() {
	l.mu.Lock()
	l.running++
	l.tail = false
	l.mu.Unlock()
	var once sync.Once
	return func() { once.Do(l.release) }
}

// release frees a slot; the last call to finish returns memory to the OS
// (see freeIfIdle).
func (l *workLimit) release() {
	l.mu.Lock()
	l.running--
	l.mu.Unlock()
	<-l.slots
	l.freeIfIdle()
}

// freeIfIdle returns memory to the OS when no expensive call runs or
// waits: settle after the last call ended, or, within freeAfter of the
// last time, once that much time has passed — if still idle then — and
// once more freeAfter later (see freeScheduled), so the memory of the
// last call of a burst, its answer's encoding included, is given back.
func (l *workLimit) freeIfIdle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running > 0 || l.waiting > 0 || l.freeLater {
		return
	}
	l.freeLater = true
	time.AfterFunc(max(l.settle, l.freeEvery-time.Since(l.lastFreed)), l.freeScheduled)
}

// freeScheduled is freeIfIdle's timer: it gives memory back if still
// idle (a call running now schedules the next when it ends), and once
// more freeEvery later, if still idle then.
func (l *workLimit) freeScheduled() {
	l.mu.Lock()
	l.freeLater = false
	if l.running > 0 || l.waiting > 0 {
		l.mu.Unlock()
		return
	}
	l.lastFreed = time.Now()
	again := !l.tail
	l.tail = true
	if again {
		l.freeLater = true
		time.AfterFunc(l.freeEvery, l.freeScheduled)
	}
	l.mu.Unlock()
	l.free()
}

// limited is the receiving middleware that runs the expensive tools' calls
// under l.
func limited(l *workLimit) mcp.Middleware {
	expensive := map[string]bool{}
	for _, t := range ExpensiveTools() {
		expensive[t] = true
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if method != "tools/call" || !ok || p == nil || !expensive[p.Name] {
				return next(ctx, method, req)
			}
			release, err := l.acquire(ctx, p.Name)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
					Text: fmt.Sprintf("%s: %s", noema.ErrorCode(err), noema.ErrorMessage(err))}}}, nil
			}
			defer release()
			return next(ctx, method, req)
		}
	}
}
