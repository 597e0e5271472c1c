package cli

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/internal/gate"
)

// TestRequestsAreCountedOnTheGate: while a request runs, the gate the
// vaults' background work watches counts it, and work it leaves running
// (gate.Detached) is background work of that gate; after it, nothing is
// in flight.
func TestRequestsAreCountedOnTheGate(t *testing.T) {
	var g gate.Gate
	var during int64
	var detached *gate.Gate
	h := cancelOnStop(context.Background(), &g)(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		during = g.InFlight()
		detached = gate.From(gate.Detached(ctx))
		if gate.From(ctx) != nil {
			t.Error("the request's own context is background work")
		}
		return nil, nil
	})
	if _, err := h(context.Background(), "tools/call", nil); err != nil {
		t.Fatal(err)
	}
	if during != 1 || detached != &g {
		t.Errorf("during the request: in flight %d (want 1), detached work's gate %p (want %p)", during, detached, &g)
	}
	if n := g.InFlight(); n != 0 {
		t.Errorf("after the request: in flight %d, want 0", n)
	}
}
